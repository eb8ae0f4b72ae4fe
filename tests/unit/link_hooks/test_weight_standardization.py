"""WeightStandardization: gradients of the standardized weight, restored weight, errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check, links
from chainer_compat.link_hooks import WeightStandardization
from chainer_compat.link_hooks.weight_standardization import _standardize_rows


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 2, 2)])
def test_standardized_weight_gradients_match_numerical_ones(shape):
    rng = numpy.random.RandomState(0)
    weight = rng.normal(size=shape)

    def standardize(w):
        return _standardize_rows(w, 1e-5)

    gradient_check.check_backward(standardize, weight, rng.normal(size=shape),
                                  dtype=numpy.float64)
    gradient_check.check_double_backward(standardize, weight, rng.normal(size=shape),
                                         rng.normal(size=shape), dtype=numpy.float64)


def test_rows_have_zero_mean_and_unit_variance():
    weight = numpy.random.RandomState(1).normal(3, 2, size=(4, 6))
    standardized = _standardize_rows(weight, 0.0).array
    numpy.testing.assert_allclose(standardized.mean(axis=1), 0, atol=1e-12)
    numpy.testing.assert_allclose(standardized.var(axis=1), 1, rtol=1e-12)


def test_weight_gradient_reaches_the_parameter():
    link = links.Linear(3, 2, initialW=numpy.arange(6.0).reshape(2, 3) ** 2, nobias=True)
    link.add_hook(WeightStandardization())
    link.cleargrads()
    y = link(numpy.array([[1.0, -2.0, 0.5]]))
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert link.W.grad is not None
    # Standardization removes each row's mean, so the gradient of every row sums to zero.
    numpy.testing.assert_allclose(link.W.grad.sum(axis=1), 0, atol=1e-10)


def test_lazy_link_without_input_is_rejected():
    link = links.Linear(None, 2)
    link.add_hook(WeightStandardization())
    with pytest.raises(ValueError, match="Input variable does not exist!"):
        link(None)


def test_name_is_configurable():
    link = links.Linear(3, 2)
    link.add_hook(WeightStandardization(name="ws"))
    assert "ws" in link.local_link_hooks
