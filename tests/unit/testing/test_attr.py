"""Tests for chainer_compat.testing.attr: the marks and their run-time skip conditions."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import unittest

import pytest

from chainer_compat import testing
from chainer_compat.testing import attr


def mark_names(obj: object) -> list[str]:
    return sorted(mark.name for mark in getattr(obj, "pytestmark", []))


def marks_named(obj: object, name: str) -> list[pytest.Mark]:
    return [mark for mark in getattr(obj, "pytestmark", []) if mark.name == name]


def test_gpu_adds_gpu_mark_and_a_device_skip():
    @attr.gpu
    def test_it():
        pass

    assert mark_names(test_it) == ["gpu", "skipif"]
    (skip,) = marks_named(test_it, "skipif")
    assert skip.kwargs["reason"] == "1 GPUs required"
    assert bool(skip.args[0]) == (attr._cuda_device_count() < 1)


def test_multi_gpu_adds_multi_gpu_mark_with_count():
    @attr.multi_gpu(2)
    def test_it():
        pass

    assert mark_names(test_it) == ["gpu", "multi_gpu", "skipif"]
    assert marks_named(test_it, "multi_gpu")[0].args == (2,)
    (skip,) = marks_named(test_it, "skipif")
    assert bool(skip.args[0]) == (attr._cuda_device_count() < 2)


def test_gpu_limit_environment_variable_forces_the_skip(monkeypatch):
    @attr.gpu
    def test_it():
        pass

    (skip,) = marks_named(test_it, "skipif")
    monkeypatch.setenv("CHAINER_TEST_GPU_LIMIT", "0")
    assert bool(skip.args[0]) is True


def test_device_count_is_zero_without_cupy_and_does_not_import_it(monkeypatch):
    attr._cuda_device_count.cache_clear()
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None)
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    try:
        assert attr._cuda_device_count() == 0
        assert "cupy" not in sys.modules
    finally:
        attr._cuda_device_count.cache_clear()


def test_collecting_gpu_tests_does_not_import_cupy():
    code = (
        "import sys\n"
        "from chainer_compat.testing import attr\n"
        "@attr.multi_gpu(2)\n"
        "def test_it():\n"
        "    pass\n"
        "print('cupy' in sys.modules)\n")
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               check=True, timeout=60)
    assert completed.stdout.strip() == "False"


def test_chainerx_tests_always_skip():
    @attr.chainerx
    def test_it():
        pass

    assert mark_names(test_it) == ["chainerx", "skip"]
    assert "not supported by chainer_compat" in marks_named(test_it, "skip")[0].kwargs["reason"]


def test_ideep_is_a_plain_mark_so_its_tests_run_on_numpy():
    # As in Chainer without iDeep: an iDeep config runs as the CPU one, so it is not skipped.
    @attr.ideep
    def test_it():
        pass

    assert mark_names(test_it) == ["ideep"]


def test_slow_and_cudnn_marks():
    @attr.slow
    def test_slow():
        pass

    @attr.cudnn
    def test_cudnn():
        pass

    assert mark_names(test_slow) == ["slow"]
    assert mark_names(test_cudnn) == ["cudnn", "skipif"]


def test_marks_can_be_called_with_arguments():
    @attr.slow(reason="big")
    def test_it():
        pass

    (slow,) = marks_named(test_it, "slow")
    assert slow.kwargs == {"reason": "big"}


def test_gpu_on_a_class_marks_the_class():
    @attr.gpu
    class TestFoo(unittest.TestCase):
        def test_it(self):
            pass

    assert mark_names(TestFoo) == ["gpu", "skipif"]


def test_gpu_above_parameterize_marks_every_generated_class():
    module = sys.modules[__name__]

    @attr.gpu
    @testing.parameterize({"a": 1}, {"a": 2})
    class TestMarkedBundle(unittest.TestCase):
        def test_it(self):
            pass

    try:
        generated = [getattr(module, "TestMarkedBundle_param_0_{a=1}"),
                     getattr(module, "TestMarkedBundle_param_1_{a=2}")]
        assert all(mark_names(cls) == ["gpu", "skipif"] for cls in generated)
    finally:
        delattr(module, "TestMarkedBundle_param_0_{a=1}")
        delattr(module, "TestMarkedBundle_param_1_{a=2}")


def test_multi_gpu_rejects_non_positive_count():
    with pytest.raises(ValueError, match="gpu_num must be a positive int"):
        attr.multi_gpu(0)
