"""``fix_random``: seed NumPy's, Python's and (when loaded) CuPy's global RNGs for each test and
restore them afterwards.

Layer 8: imports only numpy and `testing.parameterized`; cupy only if the user imported it.
"""

from __future__ import annotations

import functools
import inspect
import os
import random
import sys
import unittest
from collections.abc import Callable
from typing import Any

import numpy

from chainer_compat.testing.parameterized import _CaseBundle, _for_each_class

_DEFAULT_SEED = 100  # compat: the seed Chainer's fix_random uses.

# Setups nest (condition.repeat/retry run setUp inside a running test); only the outermost pair
# seeds and restores.
_depth = 0
_saved_python_state: Any = None
_saved_numpy_state: Any = None


def _deterministic() -> bool:
    # compat: CHAINER_TEST_RANDOM_NONDETERMINISTIC=1 seeds from entropy instead, to shake out
    # tests that only pass for one seed.
    return not int(os.environ.get("CHAINER_TEST_RANDOM_NONDETERMINISTIC", "0"))


def do_setup(deterministic: bool = True, seed: int = _DEFAULT_SEED) -> None:
    """Saves the global RNG states and seeds them (from entropy if not ``deterministic``)."""
    global _saved_python_state, _saved_numpy_state
    _saved_python_state = random.getstate()
    _saved_numpy_state = numpy.random.get_state()
    chosen = seed if deterministic else None
    random.seed(chosen)
    numpy.random.seed(chosen)
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        cupy.random.seed(chosen)


def do_teardown() -> None:
    """Restores the RNG states saved by :func:`do_setup`; CuPy's generator is reset instead."""
    global _saved_python_state, _saved_numpy_state
    random.setstate(_saved_python_state)
    numpy.random.set_state(_saved_numpy_state)
    _saved_python_state = None
    _saved_numpy_state = None
    cupy = sys.modules.get("cupy")
    reset = getattr(getattr(cupy, "random", None), "reset_states", None)
    if reset is not None:
        # CuPy's generator state cannot be saved; dropping it makes the next use start afresh.
        reset()


def _setup_random(seed: int) -> None:
    global _depth
    if _depth == 0:
        do_setup(_deterministic(), seed)
    _depth += 1


def _teardown_random() -> None:
    global _depth
    if _depth == 0:
        raise RuntimeError(
            "fix_random teardown must follow its setup, got a teardown with no setup running")
    _depth -= 1
    if _depth == 0:
        do_teardown()


def generate_seed() -> int:
    """Returns a seed drawn from NumPy's fixed global RNG, for code that takes explicit seeds.

    Raises:
        RuntimeError: If called outside a test decorated with :func:`fix_random`.
    """
    if _depth == 0:
        raise RuntimeError(
            "generate_seed must be called inside a test decorated with fix_random, got a call"
            " with no fixed random state")
    return int(numpy.random.randint(0xFFFFFFFF))


def _takes_method_argument(hook: Callable[..., Any]) -> bool:
    """Whether a setup/teardown hook takes an argument after ``self`` (pytest's ``method``)."""
    parameters = list(inspect.signature(hook).parameters.values())
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in parameters)


def _with_method_argument(
        previous: Callable[..., Any] | None, body: Callable[[Any, tuple[Any, ...]], None],
) -> Callable[..., Any]:
    # pytest passes `method` to setup_method/teardown_method only if the hook's code declares a
    # parameter for it, so the wrapper declares exactly what the wrapped hook does.
    def hook_with_method(self: Any, method: Any = None) -> None:
        body(self, () if previous is None else (method,))

    def hook_without_method(self: Any) -> None:
        body(self, ())

    hook: Callable[..., None] = hook_with_method
    if previous is not None and not _takes_method_argument(previous):
        hook = hook_without_method
    if previous is not None:
        hook.__name__ = previous.__name__
        hook.__qualname__ = previous.__qualname__
        hook.__doc__ = previous.__doc__
    return hook


def _seeding_setup(previous: Callable[..., Any] | None, seed: int) -> Callable[..., Any]:
    def body(self: Any, args: tuple[Any, ...]) -> None:
        _setup_random(seed)
        if previous is None:
            return
        try:
            previous(self, *args)
        except BaseException:
            # A failed setup is not followed by a teardown, so undo the seeding here.
            _teardown_random()
            raise

    return _with_method_argument(previous, body)


def _restoring_teardown(previous: Callable[..., Any] | None) -> Callable[..., Any]:
    def body(self: Any, args: tuple[Any, ...]) -> None:
        try:
            if previous is not None:
                previous(self, *args)
        finally:
            _teardown_random()

    return _with_method_argument(previous, body)


def fix_random(*, setup_method: str | None = None, teardown_method: str | None = None,
               seed: int = _DEFAULT_SEED) -> Callable[[Any], Any]:
    """Decorator that fixes the global random states for each test.

    On a test function or method, the states are seeded before it runs and restored after. On a
    test class (generated classes included), the class's setup and teardown hooks are wrapped so
    every test method runs from the same seed. Python's ``random``, ``numpy.random`` and, if
    cupy is already imported, ``cupy.random`` are seeded; the NumPy and Python states are restored
    afterwards. With ``CHAINER_TEST_RANDOM_NONDETERMINISTIC=1`` the seed comes from entropy.

    Do not apply it inside ``condition.repeat`` or ``condition.retry``: every trial would see the
    same random numbers.

    Args:
        setup_method: Name of the class's setup hook; defaults to ``'setUp'`` for
            ``unittest.TestCase`` subclasses and ``'setup_method'`` for plain pytest classes.
        teardown_method: Name of the teardown hook; defaults to ``'tearDown'`` or
            ``'teardown_method'`` likewise.
        seed: The seed. Compat: an extension; Chainer always uses 100, the default.

    Returns:
        The decorator.
    """

    def decorate_class(cls: type) -> type:
        is_unittest = issubclass(cls, unittest.TestCase)
        setup_name = setup_method or ("setUp" if is_unittest else "setup_method")
        teardown_name = teardown_method or ("tearDown" if is_unittest else "teardown_method")
        setattr(cls, setup_name, _seeding_setup(getattr(cls, setup_name, None), seed))
        setattr(cls, teardown_name, _restoring_teardown(getattr(cls, teardown_name, None)))
        return cls

    def decorate(target: Any) -> Any:
        if inspect.isfunction(target):
            @functools.wraps(target)
            def test(*args: Any, **kwargs: Any) -> Any:
                _setup_random(seed)
                try:
                    return target(*args, **kwargs)
                finally:
                    _teardown_random()

            return test
        if not isinstance(target, (type, _CaseBundle)):
            raise TypeError(
                f"fix_random must decorate a test function or class, got {type(target).__name__}")
        return _for_each_class(target, decorate_class)

    return decorate
