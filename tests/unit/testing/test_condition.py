"""Tests for chainer_compat.testing.condition: repeat, retry, repeat_with_success_at_least."""

from __future__ import annotations

import unittest
from typing import ClassVar

import pytest

from chainer_compat.testing import condition


def run_case(case_class: type[unittest.TestCase], name: str) -> unittest.TestResult:
    result = unittest.TestResult()
    case_class(name).run(result)
    return result


def test_retry_passes_a_flaky_function_and_counts_attempts():
    attempts = []

    @condition.retry(5)
    def flaky():
        attempts.append(1)
        assert len(attempts) >= 3, "not yet"

    flaky()
    assert len(attempts) == 3


def test_retry_fails_when_every_attempt_fails():
    attempts = []

    @condition.retry(3)
    def broken():
        attempts.append(1)
        raise ValueError("always broken")

    with pytest.raises(AssertionError) as info:
        broken()
    assert len(attempts) == 3
    message = str(info.value)
    assert "Fail: 3, Success: 0" in message
    assert "The first error message:" in message and "ValueError: always broken" in message


def test_repeat_runs_n_times_when_all_pass():
    attempts = []

    @condition.repeat(4)
    def steady():
        attempts.append(1)

    steady()
    assert len(attempts) == 4


def test_repeat_stops_at_first_failure():
    attempts = []

    @condition.repeat(4)
    def fails_second_time():
        attempts.append(1)
        assert len(attempts) != 2

    with pytest.raises(AssertionError, match="Fail: 1, Success: 1"):
        fails_second_time()
    assert len(attempts) == 2


def test_repeat_with_success_at_least_fails_with_too_few_successes():
    outcomes = iter([True, False, False, False, True])
    attempts = []

    @condition.repeat_with_success_at_least(5, 3)
    def mostly_failing():
        attempts.append(1)
        assert next(outcomes)

    with pytest.raises(AssertionError, match="Fail: 3, Success: 1"):
        mostly_failing()
    # Decided after 4 trials: 3 failures leave at most 2 successes.
    assert len(attempts) == 4


def test_repeat_with_success_at_least_passes_early():
    outcomes = iter([True, False, True, False, False])
    attempts = []

    @condition.repeat_with_success_at_least(5, 2)
    def half_passing():
        attempts.append(1)
        assert next(outcomes)

    half_passing()
    assert len(attempts) == 3


def test_repeat_with_success_at_least_rejects_impossible_threshold():
    with pytest.raises(ValueError, match="min_success must be at most times"):
        condition.repeat_with_success_at_least(2, 3)


def test_pytest_fail_counts_as_a_failed_trial():
    attempts = []

    @condition.retry(2)
    def fails_via_pytest():
        attempts.append(1)
        if len(attempts) == 1:
            pytest.fail("first time")

    fails_via_pytest()
    assert len(attempts) == 2


@pytest.mark.parametrize("skip", [
    lambda: pytest.skip("not here"),
    lambda: (_ for _ in ()).throw(unittest.SkipTest("not here")),
])
def test_a_skipped_trial_skips_the_test(skip):
    attempts = []

    @condition.repeat(3)
    def skipping():
        attempts.append(1)
        skip()

    with pytest.raises((unittest.SkipTest, pytest.skip.Exception)):
        skipping()
    assert len(attempts) == 1


_fixture_attempts: list[int] = []


@condition.retry(3)
@pytest.mark.parametrize("base", [10])
def test_retry_passes_fixtures_and_parametrize_args_to_each_trial(base, tmp_path):
    _fixture_attempts.append(base)
    assert tmp_path.is_dir()
    assert len(_fixture_attempts) >= 2


class TestPytestMethod:
    attempts: ClassVar[list[int]] = []

    @condition.retry(3)
    def test_retry_on_a_method_with_a_fixture(self, tmp_path):
        self.attempts.append(1)
        assert tmp_path.is_dir()
        assert len(self.attempts) >= 2


class _Flaky(unittest.TestCase):
    __test__ = False  # run by the tests below, not collected on its own
    log: ClassVar[list[str]] = []

    def setUp(self):
        self.log.append("setUp")

    def tearDown(self):
        self.log.append("tearDown")

    @condition.retry(4)
    def test_flaky(self):
        self.log.append("trial")
        assert self.log.count("trial") >= 2

    @condition.repeat(3)
    def test_steady(self):
        self.log.append("trial")

    @condition.repeat_with_success_at_least(4, 3)
    def test_unlucky(self):
        self.log.append("trial")
        raise ValueError("unlucky")


def test_unittest_retry_runs_each_trial_with_its_own_setup_and_teardown():
    _Flaky.log = []
    result = run_case(_Flaky, "test_flaky")
    assert result.wasSuccessful()
    # The runner's own setUp/tearDown wrap two trials, each with its own pair.
    assert _Flaky.log == ["setUp", "setUp", "trial", "tearDown", "setUp", "trial", "tearDown",
                          "tearDown"]


def test_unittest_repeat_runs_n_times():
    _Flaky.log = []
    result = run_case(_Flaky, "test_steady")
    assert result.wasSuccessful()
    assert _Flaky.log.count("trial") == 3


def test_unittest_repeat_with_success_at_least_reports_failure():
    _Flaky.log = []
    result = run_case(_Flaky, "test_unlucky")
    assert len(result.failures) == 1
    assert "Fail: 2, Success: 0" in result.failures[0][1]
    assert "ValueError: unlucky" in result.failures[0][1]
    assert _Flaky.log.count("trial") == 2
