"""Tests for chainer_compat.testing.backend: BackendConfig and inject_backend_tests, in-process and
on legacy-style test files run by pytest in a subprocess."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import textwrap
import types
import unittest
from collections.abc import Iterator
from pathlib import Path

import numpy
import pytest

from chainer_compat import configuration, testing
from chainer_compat.testing import attr
from chainer_compat.testing import backend as testing_backend

CPU_STR = (
    "use_chainerx_false__chainerx_device_None__use_cuda_false__cuda_device_None__"
    "use_cudnn_never__cudnn_deterministic_false__autotune_false__"
    "cudnn_fast_batch_normalization_false__use_ideep_never")
GPU_STR = (
    "use_chainerx_false__chainerx_device_None__use_cuda_true__cuda_device_0__"
    "use_cudnn_never__cudnn_deterministic_false__autotune_false__"
    "cudnn_fast_batch_normalization_false__use_ideep_never")
CUDNN_STR = GPU_STR.replace("use_cudnn_never", "use_cudnn_always")

FIXTURES = Path(__file__).parent / "legacy_fixtures"
REPO_ROOT = Path(__file__).resolve().parents[3]


def mark_names(obj: object) -> list[str]:
    return [mark.name for mark in getattr(obj, "pytestmark", [])]


@pytest.fixture
def sandbox() -> Iterator[types.ModuleType]:
    """A throwaway module to define decorated test classes in, as a real test module would."""
    module = types.ModuleType("chainer_compat_backend_sandbox")
    sys.modules[module.__name__] = module
    yield module
    del sys.modules[module.__name__]


def define(module: types.ModuleType, source: str) -> None:
    exec(textwrap.dedent(source), module.__dict__)  # noqa: S102 - test code we write


def generated_classes(module: types.ModuleType) -> dict[str, type]:
    return {name: value for name, value in vars(module).items()
            if isinstance(value, type) and name.startswith("Test")}


# ---------------------------------------------------------------------------------------------
# BackendConfig

def test_backend_config_defaults():
    config = testing.BackendConfig({})
    assert config.use_cuda is False
    assert config.cuda_device is None
    assert config.use_cudnn == "never"
    assert config.use_chainerx is False
    assert config.chainerx_device is None
    assert config.use_ideep == "never"
    assert config.autotune is False
    assert config.cudnn_deterministic is False
    assert config.use_cudnn_tensor_core == "auto"
    assert config.xp is numpy


def test_backend_config_fills_cuda_device_zero_for_cuda():
    assert testing.BackendConfig({"use_cuda": True}).cuda_device == 0
    assert testing.BackendConfig({"use_cuda": True, "cuda_device": 1}).cuda_device == 1


def test_backend_config_func_str_is_chainers():
    assert testing.BackendConfig({}).get_func_str() == CPU_STR
    assert testing.BackendConfig({"use_cuda": True}).get_func_str() == GPU_STR
    assert (testing.BackendConfig({"use_cuda": True, "use_cudnn": "always"}).get_func_str()
            == CUDNN_STR)


def test_backend_config_tensor_core_extension_shows_only_when_set():
    assert testing.BackendConfig({"use_cudnn_tensor_core": "auto"}).get_func_str() == CPU_STR
    config = testing.BackendConfig({"use_cudnn_tensor_core": "never"})
    assert config.get_func_str() == CPU_STR + "__use_cudnn_tensor_core_never"
    assert "use_cudnn_tensor_core='never'" in repr(config)


def test_backend_config_repr_lists_every_prop():
    text = repr(testing.BackendConfig({"use_cuda": True, "autotune": True}))
    assert text.startswith("<BackendConfig use_chainerx=False chainerx_device=None use_cuda=True")
    assert "cuda_device=0" in text and "autotune=True" in text
    assert text.endswith("use_ideep='never'>")


def test_backend_config_rejects_unknown_key_and_non_dict():
    with pytest.raises(ValueError, match="use_gpu"):
        testing.BackendConfig({"use_gpu": True})
    with pytest.raises(TypeError, match="params must be a dict"):
        testing.BackendConfig([("use_cuda", True)])  # type: ignore[arg-type]


def test_backend_config_chainerx_needs_device_string_and_refuses_use():
    with pytest.raises(TypeError, match="chainerx_device"):
        testing.BackendConfig({"use_chainerx": True})
    config = testing.BackendConfig({"use_chainerx": True, "chainerx_device": "native:0"})
    with pytest.raises(RuntimeError, match="ChainerX is not supported"):
        _ = config.xp
    with pytest.raises(RuntimeError, match="ChainerX is not supported"):
        _ = config.device


def test_backend_config_marks():
    assert testing.BackendConfig({}).get_pytest_marks() == []
    assert testing.BackendConfig({"use_cuda": True}).get_pytest_marks() == [attr.gpu]
    assert testing.BackendConfig(
        {"use_cuda": True, "use_cudnn": "always"}).get_pytest_marks() == [attr.gpu, attr.cudnn]
    assert testing.BackendConfig({"use_ideep": "always"}).get_pytest_marks() == [attr.ideep]
    chainerx_cuda = testing.BackendConfig({"use_chainerx": True, "chainerx_device": "cuda:1"})
    marks = chainerx_cuda.get_pytest_marks()
    assert marks[:2] == [attr.chainerx, attr.gpu] and len(marks) == 3


def test_backend_config_second_gpu_carries_multi_gpu_mark():
    marks = testing.BackendConfig({"use_cuda": True, "cuda_device": 1}).get_pytest_marks()

    def test_it():
        pass

    for mark in marks:
        test_it = mark(test_it)
    assert sorted(mark_names(test_it)) == ["gpu", "gpu", "multi_gpu", "skipif", "skipif"]


def test_backend_config_enter_applies_config_and_exit_restores():
    config = testing.BackendConfig(
        {"use_cudnn": "always", "autotune": True, "cudnn_deterministic": True})
    before = (configuration.config.use_cudnn, configuration.config.autotune,
              configuration.config.cudnn_deterministic)
    with config as entered:
        assert entered is config
        assert configuration.config.use_cudnn == "always"
        assert configuration.config.autotune is True
        assert configuration.config.cudnn_deterministic is True
        with config:  # re-entrant, as tests nest it
            assert configuration.config.autotune is True
        assert configuration.config.use_cudnn == "always"
    after = (configuration.config.use_cudnn, configuration.config.autotune,
             configuration.config.cudnn_deterministic)
    assert after == before


def test_backend_config_enter_applies_tensor_core_only_when_given():
    with testing.BackendConfig({"use_cudnn_tensor_core": "never"}):
        assert configuration.config.use_cudnn_tensor_core == "never"
    assert configuration.config.use_cudnn_tensor_core == "auto"


def test_cpu_backend_config_device_and_get_array():
    config = testing.BackendConfig({})
    assert config.device.name == "@numpy"
    source = numpy.arange(6.0).reshape(2, 3)
    result = config.get_array(source)
    assert isinstance(result, numpy.ndarray)
    numpy.testing.assert_array_equal(result, source)


@pytest.mark.gpu
def test_cuda_backend_config_uses_cupy_on_its_device():
    cupy = pytest.importorskip("cupy")
    if attr._cuda_device_count() < 1:
        pytest.skip("no CUDA device")
    config = testing.BackendConfig({"use_cuda": True, "use_cudnn": "always"})
    assert config.xp is cupy
    assert config.device.name == "@cupy:0"
    array = config.get_array(numpy.arange(4.0))
    assert isinstance(array, cupy.ndarray) and array.device.id == 0
    with config:
        assert cupy.cuda.Device().id == 0
        assert configuration.config.use_cudnn == "always"


# ---------------------------------------------------------------------------------------------
# inject_backend_tests, in-process

def test_inject_backend_tests_is_one_object():
    assert testing.inject_backend_tests is testing_backend.inject_backend_tests


def test_inject_all_methods_generates_one_class_per_config(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
        class TestFoo(unittest.TestCase):
            def test_a(self, backend_config):
                self.seen = backend_config

            def test_b(self, backend_config):
                pass
    """)
    assert sorted(generated_classes(sandbox)) == [f"TestFoo_{CPU_STR}", f"TestFoo_{GPU_STR}"]
    assert not isinstance(sandbox.TestFoo, type)
    cpu = getattr(sandbox, f"TestFoo_{CPU_STR}")
    case = cpu("test_a")
    case.test_a()
    assert isinstance(case.seen, testing.BackendConfig) and case.seen.use_cuda is False


def test_inject_marks_only_gpu_variants(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.inject_backend_tests(None, [{}, {"use_cuda": True, "use_cudnn": "always"}])
        class TestFoo(unittest.TestCase):
            def test_a(self, backend_config):
                pass
    """)
    cpu = getattr(sandbox, f"TestFoo_{CPU_STR}")
    gpu = getattr(sandbox, f"TestFoo_{CUDNN_STR}")
    assert mark_names(cpu.test_a) == []
    assert sorted(mark_names(gpu.test_a)) == ["cudnn", "gpu", "skipif", "skipif"]


def test_inject_listed_methods_keeps_the_others_under_the_original_name(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.inject_backend_tests(["test_a"], [{}, {"use_cuda": True}])
        class TestFoo(unittest.TestCase):
            def test_a(self, backend_config):
                pass

            def test_b(self):
                pass
    """)
    classes = generated_classes(sandbox)
    assert sorted(classes) == ["TestFoo", f"TestFoo_{CPU_STR}", f"TestFoo_{GPU_STR}"]
    loader = unittest.defaultTestLoader
    assert loader.getTestCaseNames(classes["TestFoo"]) == ["test_b"]
    assert loader.getTestCaseNames(classes[f"TestFoo_{CPU_STR}"]) == ["test_a"]
    suite = loader.loadTestsFromModule(sandbox)
    assert suite.countTestCases() == 3


def test_parameterize_over_inject_names_and_counts(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.parameterize({"a": 1}, {"a": 2})
        @testing.inject_backend_tests(["test_a"], [{}, {"use_cuda": True}])
        class TestFoo(unittest.TestCase):
            def test_a(self, backend_config):
                pass

            def test_b(self):
                pass
    """)
    assert sorted(generated_classes(sandbox)) == sorted([
        "TestFoo_param_0_{a=1}",
        "TestFoo_param_1_{a=2}",
        f"TestFoo_{CPU_STR}_param_0_{{a=1}}",
        f"TestFoo_{CPU_STR}_param_1_{{a=2}}",
        f"TestFoo_{GPU_STR}_param_0_{{a=1}}",
        f"TestFoo_{GPU_STR}_param_1_{{a=2}}",
    ])
    assert not isinstance(sandbox.TestFoo, type)


def test_inject_over_parameterize_names_and_counts(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
        @testing.parameterize({"a": 1}, {"a": 2})
        class TestFoo(unittest.TestCase):
            def test_a(self, backend_config):
                assert self.a in (1, 2)
    """)
    names = sorted(generated_classes(sandbox))
    assert names == sorted([
        f"TestFoo_param_0_{{a=1}}_{CPU_STR}",
        f"TestFoo_param_0_{{a=1}}_{GPU_STR}",
        f"TestFoo_param_1_{{a=2}}_{CPU_STR}",
        f"TestFoo_param_1_{{a=2}}_{GPU_STR}",
    ])


def test_inject_generates_a_repeated_config_once(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.inject_backend_tests(None, [{}, {"use_cudnn": "never"}, {}])
        class TestFoo(unittest.TestCase):
            def test_a(self, backend_config):
                pass
    """)
    assert list(generated_classes(sandbox)) == [f"TestFoo_{CPU_STR}"]


def test_inject_hides_backend_config_from_pytest_signature(sandbox):
    define(sandbox, """
        from chainer_compat import testing

        @testing.inject_backend_tests(None, [{}])
        class TestFoo:
            def test_a(self, backend_config, tmp_path):
                return backend_config, tmp_path
    """)
    cls = getattr(sandbox, f"TestFoo_{CPU_STR}")
    assert list(inspect.signature(cls.test_a).parameters) == ["self", "tmp_path"]
    config, path = cls().test_a(tmp_path="p")
    assert isinstance(config, testing.BackendConfig) and path == "p"


@pytest.mark.parametrize("method_names, params, message", [
    ("test_a", [{}], "method_names must be None or a list"),
    (None, {}, "params must be a list of dicts"),
    (None, [{}, ("use_cuda", True)], "params must be a list of dicts"),
])
def test_inject_rejects_bad_arguments(method_names, params, message):
    with pytest.raises(TypeError, match=message):
        testing.inject_backend_tests(method_names, params)


def test_inject_rejects_unknown_param_at_decoration():
    with pytest.raises(ValueError, match="use_gpu"):
        testing.inject_backend_tests(None, [{"use_gpu": True}])


# ---------------------------------------------------------------------------------------------
# Legacy-style files run by pytest

def run_pytest(path: Path, *options: str) -> dict[str, int]:
    """Runs pytest on ``path`` in a subprocess; returns the counts of its summary line."""
    environment = dict(os.environ)
    environment.pop("CHAINER_TEST_GPU_LIMIT", None)
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", str(path), "-p", "no:cacheprovider", "-q", *options],
        cwd=REPO_ROOT, capture_output=True, text=True, env=environment, timeout=120, check=False)
    summary = completed.stdout.strip().splitlines()[-1]
    counts = {word: int(number) for number, word in re.findall(r"(\d+) (\w+)", summary)}
    assert counts, completed.stdout + completed.stderr
    assert "failed" not in counts and "error" not in counts and "errors" not in counts, (
        completed.stdout)
    return counts


def test_legacy_unittest_module_not_gpu_deselects_exactly_gpu_variants():
    counts = run_pytest(FIXTURES / "legacy_backend_case.py", "-m", "not gpu")
    # 2 params x (test_plain + the CPU test_forward) run; 2 params x (the GPU test_forward +
    # the attr.gpu test) are deselected.
    assert counts == {"passed": 4, "deselected": 4}


def test_legacy_unittest_module_gpu_selects_exactly_gpu_variants():
    counts = run_pytest(FIXTURES / "legacy_backend_case.py", "-m", "gpu")
    assert counts["deselected"] == 4
    assert counts.get("passed", 0) + counts.get("skipped", 0) == 4
    if attr._cuda_device_count() == 0:
        assert counts.get("skipped") == 4


def test_legacy_unittest_module_collects_chainer_names():
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", str(FIXTURES / "legacy_backend_case.py"),
         "-p", "no:cacheprovider", "-q", "--collect-only", "-m", "not gpu"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False)
    selected = sorted(line.split("::", 1)[1] for line in completed.stdout.splitlines()
                      if "::" in line)
    assert selected == sorted([
        "TestLegacy_param_0_{scale=1}::test_plain",
        "TestLegacy_param_1_{scale=2}::test_plain",
        f"TestLegacy_{CPU_STR}_param_0_{{scale=1}}::test_forward",
        f"TestLegacy_{CPU_STR}_param_1_{{scale=2}}::test_forward",
    ])


def test_pytest_style_module_with_fixtures_and_parametrize():
    counts = run_pytest(FIXTURES / "pytest_style_case.py", "-m", "not gpu")
    # 2 params x 2 powers on the CPU config; the cuDNN config's 4 tests are deselected.
    assert counts == {"passed": 4, "deselected": 4}
    counts = run_pytest(FIXTURES / "pytest_style_case.py", "-m", "not cudnn")
    assert counts == {"passed": 4, "deselected": 4}
