"""chainer.utils.argument: what Chainer-era functions rely on when they read ``**kwargs``.

Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer 7.8.1 itself.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys

import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
argument = importlib.import_module(chainer.__name__ + ".utils.argument")

TRAIN_REMOVED = "train argument is not supported anymore. Use chainer.using_config"


def takes_options(**kwargs):
    return argument.parse_kwargs(kwargs, ("alpha", 1), ("beta", None), train=TRAIN_REMOVED)


def test_parse_kwargs_returns_values_in_order_with_defaults():
    assert takes_options() == (1, None)
    assert takes_options(beta="b", alpha=3) == (3, "b")


def test_parse_kwargs_empties_what_it_read():
    kwargs = {"alpha": 2}
    assert argument.parse_kwargs(kwargs, ("alpha", 0)) == (2,)
    assert kwargs == {}


def test_a_removed_option_raises_value_error_with_its_message():
    with pytest.raises(ValueError) as info:
        takes_options(train=False)
    assert str(info.value) == TRAIN_REMOVED


def test_an_unknown_option_raises_type_error_naming_the_caller_and_the_names():
    with pytest.raises(TypeError) as info:
        takes_options(zeta=1, gamma=2)
    assert str(info.value) == "takes_options() got unexpected keyword argument(s) 'gamma', 'zeta'"


def test_a_removed_option_wins_over_unknown_ones():
    with pytest.raises(ValueError):
        takes_options(train=True, gamma=2)


def test_check_unexpected_kwargs_refuses_only_the_listed_names():
    argument.check_unexpected_kwargs({"alpha": 1}, train=TRAIN_REMOVED)
    with pytest.raises(ValueError, match="train argument is not supported"):
        argument.check_unexpected_kwargs({"train": 1}, train=TRAIN_REMOVED)


def test_assert_kwargs_empty():
    argument.assert_kwargs_empty({})
    with pytest.raises(TypeError, match=r"got unexpected keyword argument\(s\) 'alpha'"):
        argument.assert_kwargs_empty({"alpha": 1})


def test_it_is_reachable_after_a_plain_import_of_the_package():
    # chainer.utils.argument without importing the submodule first (in a fresh interpreter).
    code = (f"import {chainer.__name__} as c; "
            "print(c.utils.argument.parse_kwargs({}, ('a', 1)))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == "(1,)", result.stderr


def test_core_entry_points_word_unexpected_keywords_as_parse_kwargs_does():
    numpy = pytest.importorskip("numpy")
    F = importlib.import_module(chainer.__name__ + ".functions")
    x = numpy.ones(2, numpy.float32)
    y = F.sum(chainer.Variable(x))
    cases = [
        (lambda: chainer.Variable(x, shape=(2,), initializer=0.0), "__init__"),
        (lambda: F.dropout(x, zeta=1, alpha=2), "dropout"),
        (lambda: chainer.backward([y], zeta=1, alpha=2), "backward"),
    ]
    for call, caller in cases:
        with pytest.raises(TypeError) as info:
            call()
        names = "'initializer', 'shape'" if caller == "__init__" else "'alpha', 'zeta'"
        assert str(info.value) == f"{caller}() got unexpected keyword argument(s) {names}"
    with pytest.raises(ValueError) as info:
        F.dropout(x, train=True)
    assert str(info.value) == TRAIN_REMOVED
