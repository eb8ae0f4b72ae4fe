"""``distribution_unittest``: a ``unittest.TestCase`` base that checks a ``Distribution`` against
its SciPy counterpart, target by target, on the CPU and (with ``attr.gpu``) on a CUDA device.

Layer 8: imports numpy, ``backends.cuda``, ``variable`` and the ``testing`` helpers; SciPy is
never imported here (the subclass hands over ``scipy_dist``).
"""

from __future__ import annotations

import functools
import unittest
from collections.abc import Callable, Iterator
from typing import Any

import numpy

from chainer_compat.backends import cuda
from chainer_compat.testing import array as testing_array
from chainer_compat.testing import attr
from chainer_compat.variable import Variable

_TARGETS = frozenset({
    "batch_shape", "cdf", "entropy", "event_shape", "icdf", "log_cdf", "log_prob",
    "log_survival", "mean", "prob", "sample", "stddev", "support", "survival", "variance",
})

# Draws per element for the moment-matching ``sample`` check.
_SAMPLE_COUNT = 100000


def _only_for(target: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Skips the decorated test unless ``target`` is in the case's ``test_targets``."""
    def decorate(test: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(test)
        def run(self: distribution_unittest) -> None:
            if target not in self.test_targets:
                # compat: Chainer's skip reason.
                self.skipTest(f"'{target}' does not exist in test_targets.")
            test(self)
        return run
    return decorate


def _size(shape: tuple[int, ...]) -> int:
    return int(numpy.prod(shape, dtype=numpy.int64))


class distribution_unittest(unittest.TestCase):  # noqa: N801 - Chainer's public name
    """Base class for tests comparing a ``chainer.Distribution`` with a SciPy distribution.

    A subclass (usually under ``testing.parameterize`` with ``shape``, ``is_variable`` and
    ``sample_shape``) defines ``setUp_configure``, which sets:

    - ``dist``: the distribution class under test;
    - ``scipy_dist``: the matching ``scipy.stats`` distribution;
    - ``test_targets``: the set of behaviours to check, among ``batch_shape``, ``cdf``,
      ``entropy``, ``event_shape``, ``icdf``, ``log_cdf``, ``log_prob``, ``log_survival``,
      ``mean``, ``prob``, ``sample``, ``stddev``, ``support``, ``survival``, ``variance``;
    - ``params`` and ``scipy_params``: the constructor arguments of each (arrays);
    - optionally ``options`` (extra constructor keywords), ``support``, ``event_shape``,
      ``continuous`` (False for a pmf) and ``scipy_onebyone`` (True when SciPy takes one
      parameter set at a time);

    and defines ``sample_for_test()``, returning a NumPy sample of shape
    ``sample_shape + shape + event_shape``. Each target gets ``test_<target>_cpu`` and
    ``test_<target>_gpu``; targets not listed are skipped.
    """

    scipy_onebyone = False

    # Set by setUp_configure (or parameterize) in the subclass.
    dist: Any
    scipy_dist: Any
    params: dict[str, Any]
    scipy_params: dict[str, Any]
    shape: tuple[int, ...]
    sample_shape: tuple[int, ...]
    is_variable: bool

    def setUp(self) -> None:
        self.support = "real"
        if not hasattr(self, "event_shape"):
            self.event_shape = ()
        self.continuous = True
        self.test_targets: set[str] = set()
        self.options: dict[str, Any] = {}
        self.setUp_configure()
        unknown = set(self.test_targets) - _TARGETS
        if unknown:
            # compat: Chainer's type and first words.
            raise ValueError(
                f"invalid target(s): {unknown} (test_targets must be among {sorted(_TARGETS)})")
        if self.is_variable:
            self.params = {name: Variable(value) for name, value in self.params.items()}

    def setUp_configure(self) -> None:  # noqa: N802 - Chainer's hook name
        """Sets ``dist``, ``scipy_dist``, ``test_targets``, ``params`` and ``scipy_params``."""
        raise NotImplementedError(
            f"{type(self).__name__} must define setUp_configure, which sets dist, scipy_dist, "
            "test_targets, params and scipy_params")

    def sample_for_test(self) -> Any:
        """Returns a NumPy sample of shape ``sample_shape + shape + event_shape``."""
        raise NotImplementedError(
            f"{type(self).__name__} must define sample_for_test to check densities and "
            "distribution functions")

    def scipy_onebyone_params_iter(self) -> Iterator[dict[str, Any]]:
        """Yields the SciPy parameters of each batch element, in C order."""
        for index in numpy.ndindex(*self.shape):
            yield {name: value[index] for name, value in self.scipy_params.items()}

    @property
    def cpu_dist(self) -> Any:
        """The distribution built from ``params`` (and ``options``) on the CPU."""
        # compat: Chainer merges the options into params itself.
        params = self.params
        params.update(self.options)
        return self.dist(**params)

    @property
    def gpu_dist(self) -> Any:
        """The distribution built from ``params`` copied to the current CUDA device."""
        if self.is_variable:
            params: dict[str, Any] = {
                name: Variable(cuda.to_gpu(value.array)) for name, value in self.params.items()}
        else:
            params = {name: cuda.to_gpu(value) for name, value in self.params.items()}
        params.update(self.options)
        return self.dist(**params)

    # ---- helpers -----------------------------------------------------------------------------

    def _dist(self, on_gpu: bool) -> Any:
        return self.gpu_dist if on_gpu else self.cpu_dist

    def _check_function(self, on_gpu: bool, method: str, scipy_method: str,
                        sample: Any = None) -> None:
        """Compares ``dist.<method>(sample)`` with ``scipy_dist.<scipy_method>(sample)``."""
        if sample is None:
            sample = self.sample_for_test()
        argument = cuda.to_gpu(sample) if on_gpu else sample
        ours = getattr(self._dist(on_gpu), method)(argument).array
        expected = getattr(self.scipy_dist, scipy_method)(sample, **self.scipy_params)
        testing_array.assert_allclose(ours, expected)

    def _scipy_moment(self, scipy_method: str, event_shape: tuple[int, ...]) -> Any:
        """A SciPy moment or entropy, computed one parameter set at a time when needed."""
        compute = getattr(self.scipy_dist, scipy_method)
        if not self.scipy_onebyone:
            return compute(**self.scipy_params)
        values = [compute(**params) for params in self.scipy_onebyone_params_iter()]
        return numpy.vstack(values).reshape(tuple(self.shape) + tuple(event_shape))

    def _check_moment(self, on_gpu: bool, attribute: str, scipy_method: str,
                      event_shape: tuple[int, ...]) -> None:
        ours = getattr(self._dist(on_gpu), attribute).array
        testing_array.assert_allclose(ours, self._scipy_moment(scipy_method, event_shape))

    def _scipy_log_density_one_by_one(self, density: Callable[..., Any], sample: Any) -> Any:
        """SciPy's log density of ``sample``, one batch element (and its parameters) at a time."""
        batch = _size(self.shape)
        grouped = sample.reshape(_size(self.sample_shape), batch, _size(self.event_shape))
        per_element = numpy.swapaxes(grouped, 0, 1).reshape(
            (batch,) + tuple(self.sample_shape) + tuple(self.event_shape))
        values = [density(element_sample, **params) for params, element_sample
                  in zip(self.scipy_onebyone_params_iter(), per_element, strict=True)]
        stacked = numpy.vstack(values).reshape(batch, -1).T
        return stacked.reshape(tuple(self.sample_shape) + tuple(self.shape))

    def _check_log_prob(self, on_gpu: bool) -> None:
        sample = self.sample_for_test()
        argument = cuda.to_gpu(sample) if on_gpu else sample
        ours = self._dist(on_gpu).log_prob(argument).array
        density = self.scipy_dist.logpdf if self.continuous else self.scipy_dist.logpmf
        if self.scipy_onebyone:
            expected = self._scipy_log_density_one_by_one(density, sample)
        else:
            expected = density(sample, **self.scipy_params)
        testing_array.assert_allclose(ours, expected)

    def _check_prob(self, on_gpu: bool) -> None:
        sample = self.sample_for_test()
        argument = cuda.to_gpu(sample) if on_gpu else sample
        ours = self._dist(on_gpu).prob(argument).array
        density = self.scipy_dist.pdf if self.continuous else self.scipy_dist.pmf
        testing_array.assert_allclose(ours, density(sample, **self.scipy_params))

    def _check_icdf(self, on_gpu: bool) -> None:
        # Probabilities strictly inside (0, 1), where the quantile function is finite.
        levels = numpy.random.uniform(
            1e-5, 1 - 1e-5, tuple(self.sample_shape) + tuple(self.shape)).astype(numpy.float32)
        self._check_function(on_gpu, "icdf", "ppf", levels)

    def _check_sample(self, on_gpu: bool) -> None:
        draws = (_SAMPLE_COUNT,) + tuple(self.sample_shape)
        dist = self._dist(on_gpu)
        ours = cuda.to_cpu(dist.sample(sample_shape=draws).array)
        event_shape = tuple(dist.event_shape)
        if self.scipy_onebyone:
            per_element = [self.scipy_dist.rvs(size=draws, **params)
                           for params in self.scipy_onebyone_params_iter()]
            expected = numpy.vstack(per_element).reshape(
                (_size(self.shape),) + draws + event_shape)
            # Move the batch axis from the front to just before the event axes.
            expected = numpy.moveaxis(expected, 0, expected.ndim - len(event_shape) - 1)
            expected = expected.reshape(draws + tuple(self.shape) + event_shape)
        else:
            expected = self.scipy_dist.rvs(size=draws + tuple(self.shape), **self.scipy_params)
        testing_array.assert_allclose(ours.mean(axis=0), expected.mean(axis=0),
                                      atol=3e-2, rtol=3e-2)
        testing_array.assert_allclose(ours.std(axis=0), expected.std(axis=0),
                                      atol=3e-2, rtol=3e-2)

    # ---- the tests ---------------------------------------------------------------------------

    @_only_for("batch_shape")
    def test_batch_shape_cpu(self) -> None:
        self.assertEqual(self.cpu_dist.batch_shape, self.shape)

    @attr.gpu
    @_only_for("batch_shape")
    def test_batch_shape_gpu(self) -> None:
        self.assertEqual(self.gpu_dist.batch_shape, self.shape)

    @_only_for("cdf")
    def test_cdf_cpu(self) -> None:
        self._check_function(False, "cdf", "cdf")

    @attr.gpu
    @_only_for("cdf")
    def test_cdf_gpu(self) -> None:
        self._check_function(True, "cdf", "cdf")

    @_only_for("entropy")
    def test_entropy_cpu(self) -> None:
        self._check_moment(False, "entropy", "entropy", ())

    @attr.gpu
    @_only_for("entropy")
    def test_entropy_gpu(self) -> None:
        self._check_moment(True, "entropy", "entropy", ())

    @_only_for("event_shape")
    def test_event_shape_cpu(self) -> None:
        self.assertEqual(self.cpu_dist.event_shape, self.event_shape)

    @attr.gpu
    @_only_for("event_shape")
    def test_event_shape_gpu(self) -> None:
        self.assertEqual(self.gpu_dist.event_shape, self.event_shape)

    @_only_for("icdf")
    def test_icdf_cpu(self) -> None:
        self._check_icdf(False)

    @attr.gpu
    @_only_for("icdf")
    def test_icdf_gpu(self) -> None:
        self._check_icdf(True)

    @_only_for("log_cdf")
    def test_log_cdf_cpu(self) -> None:
        self._check_function(False, "log_cdf", "logcdf")

    @attr.gpu
    @_only_for("log_cdf")
    def test_log_cdf_gpu(self) -> None:
        self._check_function(True, "log_cdf", "logcdf")

    @_only_for("log_prob")
    def test_log_prob_cpu(self) -> None:
        self._check_log_prob(False)

    @attr.gpu
    @_only_for("log_prob")
    def test_log_prob_gpu(self) -> None:
        self._check_log_prob(True)

    @_only_for("log_survival")
    def test_log_survival_cpu(self) -> None:
        self._check_function(False, "log_survival_function", "logsf")

    @attr.gpu
    @_only_for("log_survival")
    def test_log_survival_gpu(self) -> None:
        self._check_function(True, "log_survival_function", "logsf")

    @_only_for("mean")
    def test_mean_cpu(self) -> None:
        self._check_moment(False, "mean", "mean", tuple(self.cpu_dist.event_shape))

    @attr.gpu
    @_only_for("mean")
    def test_mean_gpu(self) -> None:
        self._check_moment(True, "mean", "mean", tuple(self.cpu_dist.event_shape))

    @_only_for("prob")
    def test_prob_cpu(self) -> None:
        self._check_prob(False)

    @attr.gpu
    @_only_for("prob")
    def test_prob_gpu(self) -> None:
        self._check_prob(True)

    @_only_for("sample")
    def test_sample_cpu(self) -> None:
        self._check_sample(False)

    @attr.gpu
    @_only_for("sample")
    def test_sample_gpu(self) -> None:
        self._check_sample(True)

    @_only_for("stddev")
    def test_stddev_cpu(self) -> None:
        testing_array.assert_allclose(self.cpu_dist.stddev.array,
                                      self.scipy_dist.std(**self.scipy_params))

    @attr.gpu
    @_only_for("stddev")
    def test_stddev_gpu(self) -> None:
        testing_array.assert_allclose(self.gpu_dist.stddev.array,
                                      self.scipy_dist.std(**self.scipy_params))

    @_only_for("support")
    def test_support_cpu(self) -> None:
        self.assertEqual(self.cpu_dist.support, self.support)

    @attr.gpu
    @_only_for("support")
    def test_support_gpu(self) -> None:
        self.assertEqual(self.gpu_dist.support, self.support)

    @_only_for("survival")
    def test_survival_cpu(self) -> None:
        self._check_function(False, "survival_function", "sf")

    @attr.gpu
    @_only_for("survival")
    def test_survival_gpu(self) -> None:
        self._check_function(True, "survival_function", "sf")

    @_only_for("variance")
    def test_variance_cpu(self) -> None:
        self._check_moment(False, "variance", "var", tuple(self.cpu_dist.event_shape))

    @attr.gpu
    @_only_for("variance")
    def test_variance_gpu(self) -> None:
        self._check_moment(True, "variance", "var", tuple(self.cpu_dist.event_shape))
