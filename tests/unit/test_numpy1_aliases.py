"""NOTE [NumPy 1 aliases]: the NumPy 1 names NumPy 2 removed, put back on request as what NumPy 1
had, without touching the names NumPy has, and taken off again; the runner's option and its
hint when a script meets such a name."""

from __future__ import annotations

import builtins
import textwrap

import numpy
import pytest

import chainer_compat
from chainer_compat import _numpy1_aliases
from tests.unit.test_main import run_cli, write


@pytest.fixture
def aliases():
    handle = chainer_compat.install_numpy1_aliases()
    try:
        yield handle
    finally:
        handle.remove()


def test_the_names_are_what_numpy_1_had(aliases):
    assert numpy.float is builtins.float and numpy.int is builtins.int
    assert numpy.object is builtins.object and numpy.unicode is builtins.str
    assert numpy.float_ is numpy.float64 and numpy.string_ is numpy.bytes_
    assert numpy.asscalar(numpy.array([2.5])) == 2.5
    assert numpy.isnan(numpy.NaN) and numpy.NINF == -numpy.inf
    assert numpy.signbit(numpy.NZERO) and not numpy.signbit(numpy.PZERO)
    matrix = numpy.array([[3.0, 1.0], [2.0, 5.0]])
    assert numpy.product(matrix) == 30.0 and numpy.cumproduct([2, 3]).tolist() == [2, 6]
    assert numpy.sometrue(matrix > 4) and not numpy.alltrue(matrix > 2)
    numpy.testing.assert_array_equal(numpy.msort(matrix), [[2.0, 1.0], [3.0, 5.0]])
    assert numpy.asfarray([1, 2]).dtype == numpy.float64
    assert numpy.asfarray([1, 2], dtype=numpy.int32).dtype == numpy.float64
    assert numpy.asfarray([1, 2], dtype=numpy.float32).dtype == numpy.float32
    assert numpy.in1d(matrix, [1.0, 5.0]).tolist() == [False, True, False, True]
    assert numpy.rank(matrix) == 2
    assert numpy.cast["i4"]([1.7, 2.2]).tolist() == [1, 2]
    assert numpy.sctypes["float"] == [numpy.float16, numpy.float32, numpy.float64,
                                      numpy.longdouble]
    assert numpy.zeros(2, dtype=numpy.float).dtype == numpy.float64


def test_names_numpy_has_again_keep_their_numpy_2_meaning(aliases):
    # numpy.bool and numpy.long came back in NumPy 2 as NumPy types: left alone.
    assert numpy.bool is numpy.bool_ and numpy.long is not builtins.int
    assert "bool" not in aliases.names and "long" not in aliases.names
    assert "float" in aliases.names


def test_remove_takes_the_names_off_and_is_harmless_twice():
    handle = chainer_compat.install_numpy1_aliases()

    def users_mat(data):
        return numpy.asmatrix(data)

    numpy.mat = users_mat  # reassigned by the user since: not ours to remove any more
    try:
        handle.remove()
        handle.remove()
        with pytest.raises(AttributeError):
            numpy.float  # noqa: B018 - the attribute access is the test
        with pytest.raises(AttributeError):
            numpy.asscalar  # noqa: B018
        assert numpy.mat is users_mat
    finally:
        del numpy.mat


def test_numpy_2s_errors_name_the_removed_name():
    errors = {}
    for name in ("float", "float_", "asscalar", "bool_"):
        try:
            getattr(numpy, name + "_not_there" if name == "bool_" else name)
        except AttributeError as error:
            errors[name] = error
    assert _numpy1_aliases.removed_numpy_name(errors["float"]) == "float"
    assert _numpy1_aliases.removed_numpy_name(errors["float_"]) == "float_"
    assert _numpy1_aliases.removed_numpy_name(errors["asscalar"]) == "asscalar"
    assert _numpy1_aliases.removed_numpy_name(errors["bool_"]) is None
    assert _numpy1_aliases.removed_numpy_name(ValueError("module 'numpy' has no attribute "
                                                         "'float'")) is None


LEGACY_NUMPY_SCRIPT = """\
    import numpy as np
    import chainer
    x = chainer.Variable(np.zeros(2, dtype=np.float32))
    print(np.asscalar(np.sum(x.array + np.float(1.5))), np.NaN != np.NaN)
"""


def test_the_runner_puts_the_names_back_on_request(tmp_path):
    script = write(tmp_path / "legacy.py", LEGACY_NUMPY_SCRIPT)
    result = run_cli("--numpy1-aliases", str(script), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["3.0", "True"]


def test_without_the_option_the_runner_says_how_to_run_it(tmp_path):
    script = write(tmp_path / "legacy.py", LEGACY_NUMPY_SCRIPT)
    result = run_cli(str(script), cwd=tmp_path)
    assert result.returncode == 1
    assert "AttributeError" in result.stderr
    assert "`numpy.asscalar` is a NumPy 1 name that NumPy 2 removed" in result.stderr
    assert "--numpy1-aliases" in result.stderr and "`a.item()`" in result.stderr


def test_the_option_applies_to_modules_and_needs_something_to_run(tmp_path):
    write(tmp_path / "legacy_module.py", LEGACY_NUMPY_SCRIPT)
    result = run_cli("--numpy1-aliases", "-m", "legacy_module", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["3.0", "True"]
    alone = run_cli("--numpy1-aliases", cwd=tmp_path)
    assert alone.returncode == 2 and "needs a SCRIPT or -m MODULE" in alone.stderr
    with_check = run_cli("--numpy1-aliases", "check", ".", cwd=tmp_path)
    assert with_check.returncode == 2


def test_other_errors_get_no_hint(tmp_path):
    script = write(tmp_path / "broken.py", textwrap.dedent("""\
        import numpy
        numpy.no_such_name_in_any_numpy
    """))
    result = run_cli(str(script), cwd=tmp_path)
    assert result.returncode == 1 and "AttributeError" in result.stderr
    assert "--numpy1-aliases" not in result.stderr
