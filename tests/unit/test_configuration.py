"""Configuration: thread-local values over a global table, and the mode helpers."""

from __future__ import annotations

import gc
import io
import os
import subprocess
import sys
import threading

import numpy
import pytest

import chainer_compat as C
from chainer_compat import configuration


def test_defaults_match_chainer():
    cfg = C.config
    assert cfg.enable_backprop is True and cfg.train is True and cfg.type_check is True
    assert cfg.debug is False and cfg.lazy_grad_sum is False
    assert cfg.use_cudnn == "auto" and cfg.use_ideep == "never"
    assert cfg.dtype == numpy.float32 and cfg.in_recomputing is False


def test_using_config_restores_on_exit_and_on_exception():
    with C.using_config("train", False):
        assert C.config.train is False
    assert C.config.train is True
    with pytest.raises(ZeroDivisionError):
        with C.using_config("train", False):
            1 / 0
    assert C.config.train is True
    assert "train" not in vars(C.config)


def test_using_config_restores_a_previous_local_value():
    with C.using_config("train", False):
        with C.using_config("train", True):
            assert C.config.train is True
        assert C.config.train is False


def test_a_config_context_can_be_entered_again_as_in_chainer():
    evaluation = C.no_backprop_mode()
    for _ in range(2):
        with evaluation:
            assert C.config.enable_backprop is False
            with evaluation:  # nested in itself
                assert C.config.enable_backprop is False
            assert C.config.enable_backprop is False
        assert C.config.enable_backprop is True
    testing = C.using_config("train", False)
    with testing:
        assert C.config.train is False
    with testing:
        assert C.config.train is False
    assert C.config.train is True


def test_a_config_context_entered_without_exit_keeps_its_value():
    testing = C.using_config("train", False)
    testing.__enter__()
    try:
        del testing
        gc.collect()
        assert C.config.train is False  # as in Chainer: nothing restores it behind the scenes
    finally:
        del C.config.train
    assert C.config.train is True


def test_using_config_works_as_a_decorator():
    @C.using_config("train", False)
    def evaluate():
        return C.config.train

    assert evaluate() is False and evaluate() is False
    assert C.config.train is True


def test_using_config_name_must_be_a_string():
    with pytest.raises(TypeError, match="using_config name must be a str"):
        with C.using_config(1, True):
            pass


def test_unknown_key_raises_attribute_error():
    with pytest.raises(AttributeError):
        C.config.no_such_key


def test_config_does_not_leak_between_threads():
    seen = {}
    ready = threading.Event()
    done = threading.Event()

    def worker():
        with C.using_config("train", False):
            ready.set()
            done.wait(5)
            seen["worker"] = C.config.train

    thread = threading.Thread(target=worker)
    thread.start()
    ready.wait(5)
    seen["main"] = C.config.train
    done.set()
    thread.join()
    assert seen == {"main": True, "worker": False}


def test_thread_flags_are_each_threads_own_fast_flags():
    # The hot paths read configuration.thread_flags.flags instead of config._fast.
    seen = {}

    def worker():
        with C.no_backprop_mode():
            seen["same"] = configuration.thread_flags.flags is C.config._fast
            seen["flags"] = configuration.thread_flags.flags
            seen["enable_backprop"] = configuration.thread_flags.flags.enable_backprop

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert configuration.thread_flags.flags is C.config._fast
    assert seen["same"] is True
    assert seen["flags"] is not configuration.thread_flags.flags
    assert seen["enable_backprop"] is False
    assert configuration.thread_flags.flags.enable_backprop is True


def test_global_config_change_is_seen_by_every_thread():
    old = configuration.global_config.train
    try:
        configuration.global_config.train = False
        result = []
        thread = threading.Thread(target=lambda: result.append(C.config.train))
        thread.start()
        thread.join()
        assert result == [False] and C.config.train is False
    finally:
        configuration.global_config.train = old


def test_local_config_over_another_global():
    glob = configuration.GlobalConfig()
    glob.train = "g"
    local = configuration.LocalConfig(glob)
    assert local.train == "g"
    local.train = "l"
    assert local.train == "l" and glob.train == "g"


def test_backprop_modes():
    with C.no_backprop_mode():
        assert C.config.enable_backprop is False
        with C.force_backprop_mode():
            assert C.config.enable_backprop is True
    assert C.config.enable_backprop is True


def test_debug_helpers():
    assert C.is_debug() is False
    with C.DebugMode(True):
        assert C.is_debug() is True
    assert C.is_debug() is False
    C.set_debug(True)
    try:
        assert C.is_debug()
    finally:
        C.set_debug(False)


def test_show_lists_keys_sorted_with_thread_values():
    out = io.StringIO()
    with C.using_config("train", False):
        C.config.show(out)
    lines = out.getvalue().splitlines()
    keys = [line.split()[0] for line in lines]
    assert keys == sorted(keys)
    assert any(line.split() == ["train", "False"] for line in lines)


@pytest.mark.parametrize("env, key, expected", [
    ({"CHAINER_DEBUG": "1"}, "debug", "True"),
    ({"CHAINER_TYPE_CHECK": "0"}, "type_check", "False"),
    ({"CHAINER_DTYPE": "float16"}, "dtype", "float16"),
    ({"CHAINER_LAZY_GRAD_SUM": "1"}, "lazy_grad_sum", "True"),
    ({"CHAINER_USE_CUDNN": "never"}, "use_cudnn", "never"),
    ({"CHAINER_COMPAT_CHECK_SAVED_ARRAYS": "1"}, "check_saved_arrays", "True"),
    ({"CHAINER_COMPAT_CHECK_SAVED_ARRAYS": "never"}, "check_saved_arrays", "never"),
])
def test_environment_variables_set_global_defaults(env, key, expected):
    code = f"import chainer_compat as C; print(C.config.{key})"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, **env}, check=True)
    assert result.stdout.strip() == expected


@pytest.mark.parametrize("which", ["local", "global"])
def test_deleting_a_missing_key_raises_attribute_error(which):
    # compat: as for any attribute, and in Chainer; KeyError escaped before.
    target = C.config if which == "local" else C.global_config
    with pytest.raises(AttributeError, match="no_such_key"):
        del target.no_such_key
    assert not hasattr(target, "no_such_key")
