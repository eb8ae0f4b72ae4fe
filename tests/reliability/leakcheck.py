"""Leak detection by census: run a scenario with the cyclic collector off, count what survives.

A scenario builds and differentiates a graph, keeping every reference local, and returns. After
a warm-up run (first-use caches), repeated runs must leave the census of live graph objects,
and the number of gc-tracked objects in total, exactly as they were.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable
from typing import Any

from chainer_compat import FunctionHook, FunctionNode, Variable, VariableNode
from chainer_compat.autograd import FunctionCtx
from chainer_compat.function import Function

GRAPH_TYPES = (Variable, VariableNode, FunctionNode, Function, FunctionCtx, FunctionHook)


def census() -> dict[str, int]:
    """Live graph objects by class name, plus the total of gc-tracked objects.

    The result is a plain dict of str to int, which CPython does not track, so taking a census
    does not change the next one.
    """
    objects = gc.get_objects()
    counts = Counter(type(obj).__qualname__ for obj in objects if isinstance(obj, GRAPH_TYPES))
    result = {name: count for name, count in counts.items()}
    result["<all gc-tracked objects>"] = len(objects)
    del objects, counts
    return result


def survivors(scenario: Callable[[], Any], repeats: int = 3) -> dict[str, int]:
    """Runs ``scenario`` with the cyclic collector off; returns what its runs left alive.

    The first run is a warm-up; the census is taken before and after ``repeats`` more runs, and
    the positive differences are returned (an empty dict means nothing leaked).
    """
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        census()  # its own first-use allocations must not count
        scenario()
        before = census()
        for _ in range(repeats):
            scenario()
        after = census()
    finally:
        if was_enabled:
            gc.enable()
    return {name: after[name] - before.get(name, 0) for name in after
            if after[name] > before.get(name, 0)}


def assert_no_leak(scenario: Callable[[], Any], repeats: int = 3) -> None:
    """Fails with the census difference if repeated runs of ``scenario`` leave objects alive."""
    leaked = survivors(scenario, repeats)
    assert not leaked, f"objects left alive after {repeats} runs: {leaked}"
