"""Decorators that run a test several times: ``repeat``, ``retry``,
``repeat_with_success_at_least``; and ``QuietTestRunner``, which runs a suite without output.

Layer 8: imports the standard library, ``utils._assertions`` (and pytest's outcome types when
pytest is loaded).
"""

from __future__ import annotations

import functools
import sys
import traceback
import unittest
from collections.abc import Callable
from typing import Any, Literal

from chainer_compat.utils._assertions import AssertValueError

_Outcome = Literal["success", "failure"]


def _skip_types() -> tuple[type[BaseException], ...]:
    skips: list[type[BaseException]] = [unittest.SkipTest]
    pytest = sys.modules.get("pytest")
    if pytest is not None:
        skips.append(pytest.skip.Exception)
    return tuple(skips)


def _failure_types() -> tuple[type[BaseException], ...]:
    # pytest.fail() raises a BaseException; it is a failed trial like any assertion.
    failures: list[type[BaseException]] = [Exception]
    pytest = sys.modules.get("pytest")
    if pytest is not None:
        failures.append(pytest.fail.Exception)
    return tuple(failures)


def _run_trial(test: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
               ) -> tuple[_Outcome, str | None]:
    """Runs one trial; returns its outcome and, for a failure, the formatted traceback.

    A ``unittest.TestCase`` method runs on a fresh instance with its own ``setUp``, ``tearDown``
    and cleanups, as Chainer does; anything else is called again with the same arguments.
    """
    instance = args[0] if args and isinstance(args[0], unittest.TestCase) else None
    try:
        if instance is None:
            test(*args, **kwargs)
        else:
            fresh = type(instance)(instance._testMethodName)
            fresh.setUp()
            try:
                test(fresh, *args[1:], **kwargs)
            finally:
                try:
                    fresh.tearDown()
                finally:
                    fresh.doCleanups()
    except _skip_types() as skip:
        if instance is not None and not isinstance(skip, unittest.SkipTest):
            # compat: Chainer turns pytest.skip() in a TestCase trial into unittest.SkipTest, so
            # a plain unittest runner reports a skip rather than an error.
            raise unittest.SkipTest(str(getattr(skip, "msg", skip))) from skip
        raise
    except _failure_types():
        return "failure", traceback.format_exc()
    return "success", None


class QuietTestRunner:
    """A ``unittest`` runner that prints nothing and returns the ``unittest.TestResult``."""

    def run(self, suite: Callable[[unittest.TestResult], Any]) -> unittest.TestResult:
        """Runs ``suite`` (a test case or suite) and returns its result, without any output.

        Args:
            suite: A ``unittest.TestSuite`` or ``unittest.TestCase`` (anything called with a
                result object).

        Returns:
            The ``unittest.TestResult`` holding the failures, errors and skips.
        """
        result = unittest.TestResult()
        suite(result)
        return result


def repeat_with_success_at_least(times: int, min_success: int) -> Callable[[Any], Any]:
    """Decorator that runs a test up to ``times`` times and passes if ``min_success`` trials pass.

    Trials stop as soon as the outcome is decided. A skipped trial skips the whole test. Works on
    ``unittest.TestCase`` methods (each trial gets a fresh instance with ``setUp``/``tearDown``)
    and on pytest test functions and methods (each trial reuses the same fixtures and arguments).

    Args:
        times: Maximum number of trials.
        min_success: Number of successful trials needed to pass.

    Returns:
        The decorator.

    Raises:
        ValueError: If ``min_success`` is larger than ``times`` (also an ``AssertionError``, which
            is what Chainer raises).
    """
    if min_success > times:
        # compat: a bare assert in Chainer (NOTE [bare asserts]).
        raise AssertValueError(
            f"min_success must be at most times, got min_success={min_success}, times={times}")

    def decorator(test: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(test)
        def repeated(*args: Any, **kwargs: Any) -> None:
            successes = 0
            failures = 0
            first_failure: str | None = None
            for _ in range(times):
                outcome, detail = _run_trial(test, args, kwargs)
                if outcome == "success":
                    successes += 1
                else:
                    failures += 1
                    if first_failure is None:
                        first_failure = detail
                if successes >= min_success:
                    return
                if failures > times - min_success:
                    break
            message = f"\nFail: {failures}, Success: {successes}"
            if first_failure is not None:
                message += "\n\nThe first error message:\n" + first_failure
            instance = args[0] if args and isinstance(args[0], unittest.TestCase) else None
            failure_type = instance.failureException if instance is not None else AssertionError
            raise failure_type(message)

        return repeated

    return decorator


def repeat(times: int) -> Callable[[Any], Any]:
    """Decorator that requires a test to pass ``times`` times in a row.

    Args:
        times: Number of trials.
    """
    return repeat_with_success_at_least(times, times)


def retry(times: int) -> Callable[[Any], Any]:
    """Decorator that requires a test to pass at least once in ``times`` trials.

    Args:
        times: Maximum number of trials.
    """
    return repeat_with_success_at_least(times, 1)
