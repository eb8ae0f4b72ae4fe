"""Unit tests for chainer_compat.function_hooks.cupy_memory_profile.CupyMemoryProfileHook."""

from __future__ import annotations

import importlib.util
import io
import subprocess
import sys

import pytest

from chainer_compat import FunctionNode, Variable
from chainer_compat.function_hooks import CupyMemoryProfileHook


def _cuda_device_count():
    if importlib.util.find_spec("cupy") is None:
        return 0
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 - a CuPy without a usable driver raises CUDA errors
        return 0


def _unconstructed_hook(call_history):
    """A hook for formatting tests, which need no CUDA device."""
    hook = CupyMemoryProfileHook.__new__(CupyMemoryProfileHook)
    hook.call_history = call_history
    return hook


def test_importing_the_hooks_does_not_import_cupy():
    code = ("import sys, chainer_compat.function_hooks.cupy_memory_profile; "
            "print('cupy' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "False"


def test_construction_needs_cuda():
    if _cuda_device_count() == 0:
        with pytest.raises(RuntimeError, match="CUDA environment is not correctly set up"):
            CupyMemoryProfileHook()
    else:
        assert CupyMemoryProfileHook().call_history == []


def test_summary_adds_up_bytes_and_occurrence_per_name():
    hook = _unconstructed_hook([("Linear", 1024, 512, 0), ("ReLU", 10, 0, 0),
                                ("Linear", 2048, 0, 1)])
    summary = hook.summary()
    assert list(summary) == ["Linear", "ReLU"]
    assert summary["Linear"] == {"used_bytes": 3072, "acquired_bytes": 512, "occurrence": 2}


def test_print_report_picks_a_unit_per_column():
    hook = _unconstructed_hook([("Linear", 3 * 1024 ** 2, 1536, 0), ("ReLU", 1024, 0, 0)])
    out = io.StringIO()
    hook.print_report(file=out)
    assert out.getvalue().splitlines() == [
        "FunctionName  UsedBytes  AcquiredBytes  Occurrence",
        "      Linear     3.00MB         1.50KB           1",
        "        ReLU     0.00MB         0.00KB           1",
    ]


def test_print_report_fixed_and_per_value_units():
    hook = _unconstructed_hook([("Linear", 2 * 1024 ** 3, 0, 0)])
    out = io.StringIO()
    hook.print_report(unit="MB", file=out)
    assert out.getvalue().splitlines()[1].split() == ["Linear", "2048.00MB", "0.00MB", "1"]
    out = io.StringIO()
    hook.print_report(unit="auto_foreach", file=out)
    assert out.getvalue().splitlines()[1].split() == ["Linear", "2.00GB", "0.00B", "1"]
    with pytest.raises(KeyError, match="unit must be one of"):
        hook.print_report(unit="bits", file=io.StringIO())


class Grow(FunctionNode):
    """Returns a new array four times the size of its input."""

    def forward(self, inputs):
        x, = inputs
        xp = type(x).__module__.split(".")[0]
        return (sys.modules[xp].concatenate([x, x, x, x]),)


@pytest.mark.gpu
def test_gpu_allocations_are_counted_per_function():
    if _cuda_device_count() == 0:
        pytest.skip("needs CuPy and a CUDA device")
    import cupy

    x = Variable(cupy.ones(1024, cupy.float32))
    hook = CupyMemoryProfileHook()
    memory_hooks = cupy.cuda.memory_hook.get_memory_hooks
    with hook:
        assert "CupyMemoryCumulativeHook" in memory_hooks()
        Grow().apply((x,))
    name, used_bytes, acquired_bytes, depth = hook.call_history[0]
    assert (name, depth) == ("Grow", 0)
    assert used_bytes >= 4 * 1024 * 4
    assert hook.total_used_bytes() == used_bytes
    assert hook.total_acquired_bytes() == acquired_bytes
    assert "CupyMemoryCumulativeHook" not in memory_hooks()


@pytest.mark.gpu
def test_one_cupy_memory_hook_serves_several_registrations():
    if _cuda_device_count() == 0:
        pytest.skip("needs CuPy and a CUDA device")
    import cupy

    hook = CupyMemoryProfileHook()
    first, second = Grow(), Grow()
    first.add_hook(hook)
    second.add_hook(hook)
    first.delete_hook(hook.name)
    assert "CupyMemoryCumulativeHook" in cupy.cuda.memory_hook.get_memory_hooks()
    second.delete_hook(hook.name)
    assert "CupyMemoryCumulativeHook" not in cupy.cuda.memory_hook.get_memory_hooks()
