"""Code that replaces LocalConfig's attribute methods in terms of Chainer's layout (a thread's
keys in ``config._local``, the global ones in ``config._global``), as nnoir-chainer does at
import, keeps using_config working. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on
Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
configuration = importlib.import_module(chainer.__name__ + ".configuration")


@pytest.fixture
def patched_config():
    """LocalConfig's __getattr__/__setattr__ replaced as nnoir-chainer replaces them."""
    local_config = configuration.LocalConfig
    saved = local_config.__getattr__, local_config.__setattr__

    def getattr_(self, name):
        if name == "enable_backprop":
            return True
        if hasattr(self._local, name):
            return getattr(self._local, name)
        return getattr(self._global, name)

    def setattr_(self, name, value):
        if name == "enable_backprop" and not value:
            raise RuntimeError("enable_backprop is forced on")
        setattr(self._local, name, value)

    local_config.__getattr__, local_config.__setattr__ = getattr_, setattr_
    yield
    local_config.__getattr__, local_config.__setattr__ = saved


def test_using_config_works_through_chainers_layout(patched_config):
    assert chainer.config.train is True
    with chainer.using_config("train", False):
        assert chainer.config.train is False
        assert chainer.config._local.train is False
    assert chainer.config.train is True
    assert not hasattr(chainer.config._local, "train")
    with pytest.raises(RuntimeError, match="forced on"):
        with chainer.no_backprop_mode():
            pass


def test_keys_of_ones_own_go_through_the_thread_keys(patched_config):
    with chainer.using_config("user_key_for_test", 3):
        assert chainer.config.user_key_for_test == 3
    assert not hasattr(chainer.config._local, "user_key_for_test")


def test_will_recompute_is_a_key_false_by_default_and_shown():
    import io

    assert chainer.config._will_recompute is False
    shown = io.StringIO()
    chainer.config.show(shown)
    assert shown.getvalue().splitlines()[0].split() == ["_will_recompute", "False"]
