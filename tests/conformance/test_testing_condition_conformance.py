"""Chainer-visible behaviour of ``chainer.testing.condition``: what legacy test suites that use
``repeat_with_success_at_least`` see. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on
Chainer 7.8.1 itself.
"""

from __future__ import annotations

import importlib
import os
import unittest

import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
condition = importlib.import_module(chainer.__name__ + ".testing.condition")


def test_more_successes_than_trials_is_rejected_with_assertion_error() -> None:
    with pytest.raises(AssertionError):
        condition.repeat_with_success_at_least(10, 11)


class _Alternating(unittest.TestCase):
    """Fails on odd-numbered trials and passes on even-numbered ones."""

    __test__ = False  # a fixture for the decorators, not a test of its own
    calls = 0

    def alternate(self) -> None:
        type(self).calls += 1
        self.assertEqual(type(self).calls % 2, 0)

    def runTest(self) -> None:  # noqa: N802 - unittest's name
        pass


def test_half_successful_trials_pass_when_half_are_required() -> None:
    _Alternating.calls = 0
    decorated = condition.repeat_with_success_at_least(10, 5)(_Alternating.alternate)
    decorated(_Alternating())
    assert 5 <= _Alternating.calls <= 10


def test_half_successful_trials_fail_when_more_are_required() -> None:
    _Alternating.calls = 0
    decorated = condition.repeat_with_success_at_least(10, 6)(_Alternating.alternate)
    with pytest.raises(AssertionError):
        decorated(_Alternating())


class _SkipsWithPytest(unittest.TestCase):
    """Skips through pytest's API from inside a unittest.TestCase trial."""

    __test__ = False  # a fixture for the decorators, not a test of its own

    def skip_with_pytest(self) -> None:
        pytest.skip("skipped by pytest.skip")

    def runTest(self) -> None:  # noqa: N802 - unittest's name
        pass


@pytest.mark.parametrize("times_needed", ["repeat", "retry"])
def test_pytest_skip_in_a_test_case_trial_becomes_unittest_skip_test(times_needed: str) -> None:
    decorated = getattr(condition, times_needed)(3)(_SkipsWithPytest.skip_with_pytest)
    raised: BaseException | None = None
    try:
        decorated(_SkipsWithPytest())
    except (unittest.SkipTest, pytest.skip.Exception) as error:
        raised = error
    assert isinstance(raised, unittest.SkipTest)
    assert "skipped by pytest.skip" in str(raised)
