"""Unit tests for chainer_compat.function_hooks.timer.TimerHook."""

from __future__ import annotations

import copy
import gc
import io
import itertools
import threading
import weakref

import numpy
import pytest

import chainer_compat
from chainer_compat import FunctionNode, Variable
from chainer_compat.function_hooks import TimerHook
from chainer_compat.function_hooks import timer as timer_module


class Double(FunctionNode):
    """y = 2x; its backward builds no new function, so it is one hooked call."""

    def forward(self, inputs):
        return (inputs[0] * 2,)

    def backward(self, target_input_indexes, grad_outputs):
        return (Variable(grad_outputs[0].array * 2),)


class Square(FunctionNode):
    """y = x ** 2; its backward applies one Double, nested inside the hooked backward."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        return (inputs[0] ** 2,)

    def backward(self, target_input_indexes, grad_outputs):
        x, = self.get_retained_inputs()
        # Variable(x * gy) has no graph, so Double is the only function applied here.
        return Double().apply((Variable(x.array * grad_outputs[0].array),))


def _input(xp=numpy):
    return Variable(xp.arange(6, dtype=numpy.float32).reshape(2, 3))


@pytest.fixture
def ticking_clock(monkeypatch):
    """Replaces the host clock with one that advances one second per reading."""
    readings = itertools.count()
    monkeypatch.setattr(timer_module, "_clock", lambda: float(next(readings)))


def test_with_statement_records_every_forward_in_the_thread():
    x = _input()
    with TimerHook() as hook:
        Double().apply((x,))
        Square().apply((x,))
    assert [name for name, _ in hook.call_history] == ["Double", "Square"]
    assert all(elapsed >= 0 for _, elapsed in hook.call_history)


def test_functions_after_the_with_block_are_not_recorded():
    x = _input()
    with TimerHook() as hook:
        Double().apply((x,))
    Double().apply((x,))
    assert len(hook.call_history) == 1
    assert "TimerHook" not in chainer_compat.get_function_hooks()


def test_forward_and_backward_are_each_one_call():
    x = _input()
    with TimerHook() as hook:
        y, = Double().apply((x,))
        y.grad = numpy.ones_like(y.array)
        y.backward()
    assert hook.summary()["Double"]["occurrence"] == 2
    numpy.testing.assert_array_equal(x.grad, numpy.full((2, 3), 2, numpy.float32))


def test_local_hook_sees_only_its_function_forward_and_backward():
    x = _input()
    hooked = Double()
    hook = TimerHook()
    hooked.add_hook(hook)
    y, = hooked.apply((x,))
    z, = Double().apply((y,))
    z.grad = numpy.ones_like(z.array)
    z.backward()
    # Only ``hooked`` (forward then backward) is timed, not the second Double.
    assert len(hook.call_history) == 2
    assert "TimerHook" not in chainer_compat.get_function_hooks()


def test_nested_calls_are_in_the_history_but_counted_once_in_total_time(ticking_clock):
    x = _input()
    with TimerHook() as hook:
        y, = Square().apply((x,))  # one clock tick long
        y.grad = numpy.ones_like(y.array)
        # Square's backward reads the clock at its start and end, and Double's two readings
        # fall in between: Double takes one tick and the backward three.
        y.backward()
    assert hook.call_history == [("Square", 1.0), ("Double", 1.0), ("Square", 3.0)]
    assert hook.total_time() == 4.0
    assert hook.total_time() < sum(elapsed for _, elapsed in hook.call_history)


def test_summary_adds_up_time_and_occurrence_per_name_in_first_seen_order():
    hook = TimerHook()
    hook.call_history = [("Linear", 0.5), ("ReLU", 0.25), ("Linear", 1.0)]
    summary = hook.summary()
    assert list(summary) == ["Linear", "ReLU"]
    assert summary["Linear"] == {"elapsed_time": 1.5, "occurrence": 2}
    assert summary["ReLU"] == {"elapsed_time": 0.25, "occurrence": 1}


def _report(hook, **kwargs):
    out = io.StringIO()
    hook.print_report(file=out, **kwargs)
    return out.getvalue().splitlines()


def test_print_report_right_aligns_columns_in_one_auto_unit():
    hook = TimerHook()
    hook.call_history = [("LinearFunction", 1.24), ("ReLU", 0.59), ("LinearFunction", 0.5)]
    lines = _report(hook)
    assert lines == [
        "  FunctionName  ElapsedTime  Occurrence",
        "LinearFunction      1.74sec           2",
        "          ReLU      0.59sec           1",
    ]
    assert len({len(line) for line in lines}) == 1


@pytest.mark.parametrize("unit, factor", [("sec", 1), ("ms", 1e3), ("us", 1e6), ("ns", 1e9)])
def test_print_report_in_a_fixed_unit(unit, factor):
    hook = TimerHook()
    hook.call_history = [("Exp", 0.002)]
    name, elapsed, occurrence = _report(hook, unit=unit)[1].split()
    assert (name, occurrence) == ("Exp", "1")
    assert elapsed == f"{0.002 * factor:3.2f}{unit}"


def test_print_report_auto_uses_the_unit_of_the_largest_time():
    hook = TimerHook()
    hook.call_history = [("Slow", 0.25), ("Fast", 0.000003)]
    rows = [line.split() for line in _report(hook)[1:]]
    assert [row[1] for row in rows] == ["250.00ms", "0.00ms"]


def test_print_report_auto_foreach_picks_a_unit_per_row():
    hook = TimerHook()
    hook.call_history = [("Slow", 2.5), ("Fast", 0.000003), ("Tiny", 4e-10)]
    rows = [line.split() for line in _report(hook, unit="auto_foreach")[1:]]
    assert [row[1] for row in rows] == ["2.50sec", "3.00us", "0.40ns"]


def test_print_report_rejects_an_unknown_unit():
    hook = TimerHook()
    hook.call_history = [("Exp", 1.0)]
    with pytest.raises(KeyError, match="unit must be one of"):
        hook.print_report(unit="minutes", file=io.StringIO())


def test_print_report_of_an_empty_history_prints_the_header():
    assert _report(TimerHook()) == ["FunctionName  ElapsedTime  Occurrence"]


def test_hook_keeps_no_graph_node_alive(no_gc):
    x = _input()
    with TimerHook() as hook:
        y, = Square().apply((x,))
        y.grad = numpy.ones_like(y.array)
        y.backward()
        node_ref = weakref.ref(y.node)
        function_ref = weakref.ref(y.creator_node)
        del y
    assert gc.isenabled() is False
    assert node_ref() is None
    assert function_ref() is None
    assert len(hook.call_history) == 3


def test_local_hook_keeps_no_graph_node_alive(no_gc):
    hook = TimerHook()
    function = Double()
    function.add_hook(hook)
    y, = function.apply((_input(),))
    function_ref = weakref.ref(function)
    del function, y
    assert function_ref() is None
    assert len(hook.call_history) == 1


def test_hook_does_not_see_functions_of_another_thread():
    x = _input()
    seen_in_thread = []

    def work():
        seen_in_thread.append(dict(chainer_compat.get_function_hooks()))
        Double().apply((x,))

    with TimerHook() as hook:
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
        Square().apply((x,))
    assert seen_in_thread == [{}]
    assert [name for name, _ in hook.call_history] == ["Square"]


class Rendezvous(FunctionNode):
    """Identity whose forward waits until every thread is inside its own forward."""

    def __init__(self, barrier):
        self.barrier = barrier

    def forward(self, inputs):
        self.barrier.wait(timeout=10)
        return (inputs[0].copy(),)


def test_same_hook_in_two_threads_keeps_each_thread_nesting_apart(ticking_clock):
    hook = TimerHook()
    barrier = threading.Barrier(2)
    errors = []

    def work():
        try:
            with hook:  # a name may be registered once per thread, so both threads can
                Rendezvous(barrier).apply((_input(),))
        except Exception as error:  # noqa: BLE001 - surfaced by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert [name for name, _ in hook.call_history] == ["Rendezvous", "Rendezvous"]
    # Both calls overlapped in time, yet each is outermost in its own thread.
    assert hook.total_time() == sum(elapsed for _, elapsed in hook.call_history)


def test_duplicate_name_raises_key_error():
    with TimerHook(), pytest.raises(KeyError), TimerHook():
        pass
    function = Double()
    function.add_hook(TimerHook())
    with pytest.raises(KeyError):
        function.add_hook(TimerHook())


def test_copy_starts_a_hook_with_the_same_history():
    hook = TimerHook()
    hook.call_history = [("Exp", 1.0)]
    clone = copy.deepcopy(hook)
    assert clone.call_history == hook.call_history
    with clone:
        Double().apply((_input(),))
    assert len(clone.call_history) == 2
    assert len(hook.call_history) == 1


def _cupy_or_skip():
    cupy = pytest.importorskip("cupy")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - a CuPy without a usable driver raises CUDA errors
        count = 0
    if count < 1:
        pytest.skip("needs a CUDA device")
    return cupy


@pytest.mark.gpu
def test_gpu_functions_are_timed_with_cuda_events():
    cupy = _cupy_or_skip()
    x = _input(cupy)
    with TimerHook() as hook:
        y, = Square().apply((x,))
        y.grad = cupy.ones_like(y.array)
        y.backward()
    assert [name for name, _ in hook.call_history] == ["Square", "Double", "Square"]
    assert all(elapsed > 0 for _, elapsed in hook.call_history)
    # The nested Double is inside the backward's events, so the total is below the sum.
    assert 0 < hook.total_time() < sum(elapsed for _, elapsed in hook.call_history)
