"""testing.distribution_unittest and condition.QuietTestRunner: a correct distribution passes
every selected target, a wrong one fails them, unselected targets skip, bad targets raise."""

from __future__ import annotations

import unittest

import numpy
import pytest

from chainer_compat import distributions
from chainer_compat.testing import distribution_test
from chainer_compat.testing.condition import QuietTestRunner

stats = pytest.importorskip("scipy.stats")

ALL_TARGETS = {"batch_shape", "cdf", "entropy", "event_shape", "icdf", "log_cdf", "log_prob",
               "log_survival", "mean", "prob", "sample", "stddev", "support", "survival",
               "variance"}


def _normal_case(scipy_dist, targets, is_variable=False, onebyone=False):
    class NormalCase(distribution_test.distribution_unittest):
        shape = (2, 3)
        sample_shape = (4,)
        scipy_onebyone = onebyone

        def setUp_configure(self):
            self.dist = distributions.Normal
            self.scipy_dist = scipy_dist
            self.test_targets = set(targets)
            loc = numpy.random.uniform(-1, 1, self.shape).astype(numpy.float32)
            scale = numpy.exp(numpy.random.uniform(-1, 1, self.shape)).astype(numpy.float32)
            self.params = {"loc": loc, "scale": scale}
            self.scipy_params = {"loc": loc, "scale": scale}

        def sample_for_test(self):
            return numpy.random.normal(size=self.sample_shape + self.shape).astype(
                numpy.float32)

    NormalCase.is_variable = is_variable
    return NormalCase


def _run(case, names):
    suite = unittest.TestSuite(case(name) for name in names)
    return QuietTestRunner().run(suite)


CPU_TESTS = sorted(f"test_{target}_cpu" for target in ALL_TARGETS)


@pytest.mark.parametrize("is_variable", [False, True])
@pytest.mark.parametrize("onebyone", [False, True])
def test_matching_distribution_passes_every_target(is_variable, onebyone):
    numpy.random.seed(0)
    result = _run(_normal_case(stats.norm, ALL_TARGETS, is_variable, onebyone), CPU_TESTS)
    assert result.wasSuccessful(), result.failures + result.errors
    assert result.testsRun == len(ALL_TARGETS) and not result.skipped


def test_wrong_distribution_fails_value_targets():
    numpy.random.seed(0)
    value_targets = ["cdf", "log_prob", "prob", "mean", "variance", "entropy", "icdf"]
    result = _run(_normal_case(stats.laplace, value_targets),
                  [f"test_{target}_cpu" for target in value_targets])
    # Laplace and Normal agree on the mean and the median, nowhere else tested here.
    failed = {test._testMethodName for test, _ in result.failures}
    assert failed == {f"test_{t}_cpu" for t in value_targets if t != "mean"}


def test_unselected_targets_are_skipped_with_reason():
    result = _run(_normal_case(stats.norm, {"mean"}), ["test_cdf_cpu", "test_mean_cpu"])
    assert result.wasSuccessful()
    assert [(test._testMethodName, reason) for test, reason in result.skipped] == [
        ("test_cdf_cpu", "'cdf' does not exist in test_targets.")]


def test_unknown_target_raises_value_error_in_set_up():
    result = _run(_normal_case(stats.norm, {"median"}), ["test_mean_cpu"])
    assert len(result.errors) == 1
    assert "ValueError: invalid target(s): {'median'}" in result.errors[0][1]


def test_gpu_tests_carry_the_gpu_mark():
    marks = getattr(distribution_test.distribution_unittest.test_cdf_gpu, "pytestmark", [])
    assert "gpu" in [mark.name for mark in marks]


def test_quiet_runner_collects_failures_without_output(capsys):
    class Case(unittest.TestCase):
        def test_fails(self):
            self.fail("expected")

        def test_passes(self):
            pass

    result = QuietTestRunner().run(unittest.TestLoader().loadTestsFromTestCase(Case))
    assert result.testsRun == 2 and len(result.failures) == 1
    assert isinstance(result, unittest.TestResult)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
