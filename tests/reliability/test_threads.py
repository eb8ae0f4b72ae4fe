"""Threads: graphs built and differentiated in 8 threads at once match a serial run.

The switch interval is cut to a few microseconds while the threads run, so the interpreter
interleaves them inside apply and inside the engine loop. Configuration and global function
hooks are per thread, as in Chainer: a thread's ``using_config`` or ``with hook:`` is invisible
to the others, while a change of ``global_config`` reaches every thread that did not set its own.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy
import pytest
import strategies

import chainer_compat as C
import chainer_compat.functions as F
from chainer_compat import FunctionHook, Variable
from chainer_compat.functions.activation.tanh import tanh

THREADS = 8


@contextlib.contextmanager
def frequent_switches(interval: float = 5e-6) -> Iterator[None]:
    previous = sys.getswitchinterval()
    sys.setswitchinterval(interval)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


def run_threads(target: Callable[[int, threading.Barrier], Any], count: int = THREADS,
                timeout: float = 60.0) -> list[Any]:
    """Runs ``target(index, barrier)`` in ``count`` threads; re-raises the first failure."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count
    errors: list[BaseException] = []

    def body(index: int) -> None:
        try:
            results[index] = target(index, barrier)
        except BaseException as error:  # noqa: BLE001 - re-raised in the main thread below
            errors.append(error)
            barrier.abort()

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    with frequent_switches():
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    if errors:
        raise errors[0]
    return results


def gradients(recipe: strategies.GraphRecipe, front_door: str) -> list[Any]:
    arrays = strategies.leaf_arrays(recipe)
    leaves = [Variable(a) for a in arrays]
    loss = strategies.build(recipe, leaves).loss
    if front_door == "backward":
        loss.backward()
        return [None if x.grad is None else x.grad.copy() for x in leaves]
    return [None if g is None else g.array for g in C.grad([loss], leaves)]


def assert_identical(actual: list[Any], expected: list[Any], what: str) -> None:
    for index, (a, e) in enumerate(zip(actual, expected)):
        assert (a is None) == (e is None), f"{what}: leaf {index}"
        if e is not None:
            numpy.testing.assert_array_equal(a, e, err_msg=f"{what}: leaf {index}")


RECIPES = [strategies.recipe_from_seed(seed, max_steps=14) for seed in range(100, 100 + THREADS)]


@pytest.mark.parametrize("front_door", ["backward", "grad"])
def test_random_graphs_in_eight_threads_match_a_serial_run(front_door):
    serial = [gradients(recipe, front_door) for recipe in RECIPES]

    def work(index: int, barrier: threading.Barrier) -> None:
        barrier.wait()
        for round_ in range(12):
            # Each thread walks through every recipe, so threads run the same graph shapes
            # (and the same Function classes) at the same moment.
            which = (index + round_) % len(RECIPES)
            assert_identical(gradients(RECIPES[which], front_door), serial[which],
                             f"thread {index}, recipe {which}")

    run_threads(work)


def test_failing_backwards_in_some_threads_leave_the_others_exact():
    recipe = RECIPES[0]
    expected = gradients(recipe, "backward")

    class Boom(Exception):
        pass

    class Failing(C.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 1.0,

        def backward(self, indexes, grad_outputs):
            raise Boom

    def work(index: int, barrier: threading.Barrier) -> None:
        barrier.wait()
        for _ in range(15):
            if index % 2:
                x = Variable(numpy.ones(3))
                y, = Failing().apply((tanh(x),))
                with pytest.raises(Boom):
                    F.sum(y).backward()
                assert x.grad is None
            else:
                assert_identical(gradients(recipe, "backward"), expected, f"thread {index}")

    run_threads(work)


def test_config_set_in_one_thread_is_invisible_to_the_others():
    def work(index: int, barrier: threading.Barrier) -> dict[str, Any]:
        x = Variable(numpy.ones(2))
        if index % 2 == 0:
            with C.no_backprop_mode(), C.using_config("train", False), \
                    C.using_config("type_check", False):
                barrier.wait()  # every thread is now inside (or outside) its own block
                seen = {"train": C.config.train, "enable_backprop": C.config.enable_backprop,
                        "records": (x * 2.0).creator is not None,
                        "type_check": C.config.type_check}
                barrier.wait()
        else:
            C.config.debug = True  # set on the thread's own config, never restored
            barrier.wait()
            seen = {"train": C.config.train, "enable_backprop": C.config.enable_backprop,
                    "records": (x * 2.0).creator is not None,
                    "type_check": C.config.type_check, "debug": C.config.debug}
            barrier.wait()
        return seen

    results = run_threads(work)
    for index, seen in enumerate(results):
        if index % 2 == 0:
            assert seen == {"train": False, "enable_backprop": False, "records": False,
                            "type_check": False}
        else:
            assert seen == {"train": True, "enable_backprop": True, "records": True,
                            "type_check": True, "debug": True}
    # The threads' own settings died with them.
    assert C.config.debug is False
    assert C.config.train is True


def test_global_config_reaches_every_thread_that_did_not_set_its_own():
    started = threading.Barrier(3)
    changed = threading.Event()
    results: dict[str, Any] = {}

    def follower() -> None:
        started.wait()
        changed.wait(10)
        results["follower"] = (C.config.enable_backprop,
                               (Variable(numpy.ones(1)) * 2.0).creator is not None)

    def own_setting() -> None:
        C.config.enable_backprop = True
        started.wait()
        changed.wait(10)
        results["own"] = (C.config.enable_backprop,
                          (Variable(numpy.ones(1)) * 2.0).creator is not None)

    threads = [threading.Thread(target=follower), threading.Thread(target=own_setting)]
    for thread in threads:
        thread.start()
    started.wait()
    C.global_config.enable_backprop = False
    try:
        changed.set()
        for thread in threads:
            thread.join(10)
    finally:
        C.global_config.enable_backprop = True
    assert results == {"follower": (False, False), "own": (True, True)}


class CountingHook(FunctionHook):
    name = "thread_counter"  # the same name in every thread: registries are per thread

    def __init__(self) -> None:
        self.labels: list[str] = []

    def forward_preprocess(self, function: Any, in_data: Any) -> None:
        self.labels.append(function.label)

    def backward_preprocess(self, function: Any, in_data: Any, out_grad: Any) -> None:
        self.labels.append("backward " + function.label)


class OtherThreadsOnly(C.FunctionNode):
    def forward(self, inputs):
        return inputs[0] * 3.0,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 3.0,


def test_global_hooks_are_per_thread():
    def work(index: int, barrier: threading.Barrier) -> tuple[list[str], int]:
        x = Variable(numpy.ones(3))
        if index % 2 == 0:
            hook = CountingHook()
            with hook:
                barrier.wait()
                for _ in range(20):
                    F.sum(tanh(x)).backward()
                registered = len(C.get_function_hooks())
                barrier.wait()
            return hook.labels, registered
        barrier.wait()
        for _ in range(20):
            y, = OtherThreadsOnly().apply((x,))
            F.sum(y).backward()  # never seen by the hooks of the other threads
        registered = len(C.get_function_hooks())
        barrier.wait()
        return [], registered

    results = run_threads(work)
    for index, (labels, registered) in enumerate(results):
        if index % 2 == 0:
            assert registered == 1
            assert labels.count("Tanh") == 20
            assert labels.count("backward Tanh") == 20
            assert not [label for label in labels if "OtherThreadsOnly" in label]
        else:
            assert registered == 0
    assert C.get_function_hooks() == {}


def test_same_hook_name_in_two_threads_at_once_is_not_a_clash():
    def work(index: int, barrier: threading.Barrier) -> bool:
        with CountingHook():
            barrier.wait()
            return "thread_counter" in C.get_function_hooks()

    assert run_threads(work) == [True] * THREADS
