"""layer_normalization: values against NumPy, gradients of first and second order, errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import assert_same_gradient, both_ways

from chainer_compat import Variable, gradient_check
from chainer_compat.functions.normalization.layer_normalization import layer_normalization
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _reference(x, gamma, beta, eps):
    x = x.astype(numpy.float64)
    normalized = (x - x.mean(axis=1, keepdims=True)) / numpy.sqrt(
        x.var(axis=1, keepdims=True) + eps)
    return normalized * gamma + beta


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("eps", [1e-5, 0.5])
def test_forward_matches_numpy(xp, dtype, eps):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((4, 6)).astype(dtype)
    gamma = rng.uniform(0.5, 1.5, 6).astype(dtype)
    beta = rng.standard_normal(6).astype(dtype)
    y = layer_normalization(xp.asarray(x), xp.asarray(gamma), xp.asarray(beta), eps=eps)
    assert y.dtype == dtype and y.shape == (4, 6)
    tolerance = {"atol": 3e-2, "rtol": 3e-2} if dtype == numpy.float16 else {"rtol": 1e-4}
    numpy.testing.assert_allclose(_host(y.array), _reference(x, gamma, beta, eps), **tolerance)


def test_backward_and_double_backward_match_numerical(xp):
    rng = numpy.random.default_rng(1)
    x = xp.asarray(rng.standard_normal((3, 5)))
    gamma = xp.asarray(rng.uniform(0.5, 1.5, 5))
    beta = xp.asarray(rng.standard_normal(5))
    gy = xp.asarray(rng.standard_normal((3, 5)))
    grad_grads = tuple(xp.asarray(rng.standard_normal(a.shape)) for a in (x, gamma, beta))
    gradient_check.check_backward(layer_normalization, (x, gamma, beta), gy)
    gradient_check.check_double_backward(layer_normalization, (x, gamma, beta), gy,
                                         grad_grads)


def test_a_hook_sees_chainers_gradient_nodes_and_the_same_gradients():
    rng = numpy.random.default_rng(3)
    arrays = [rng.standard_normal(shape).astype(numpy.float32) for shape in ((4, 8), (8,), (8,))]
    gy = rng.standard_normal((4, 8)).astype(numpy.float32)

    def run_backward(backward_context):
        inputs = [Variable(array.copy()) for array in arrays]
        y = layer_normalization(*inputs)
        y.grad = gy.copy()
        with backward_context:
            y.backward()
        return [v.grad_var for v in inputs]

    direct, through_nodes, labels = both_ways(run_backward)
    # Chainer 7.8.1's sequence: beta's and gamma's gradients first, ``var + eps`` twice.
    assert labels == [
        "Mean", "_ - _", "square", "Mean", "_ + 1e-05", "sqrt", "1.0 / _", "_ * _", "Sum",
        "_ * _", "Sum", "_ * _", "_ * _", "Sum", "_ * _", "_ + 1e-05", "(-1.0) / _", "_ * _",
        "_ * 0.5", "_ * _", "_ * 0.125", "_ * 2", "_ * _", "_ + _", "Sum", "_ * (-1.0)",
        "_ * 0.125", "_ + _"]
    for gradient, through_node in zip(direct, through_nodes):
        assert_same_gradient(gradient, through_node)


def test_three_dimensional_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"LayerNormalization[\s\S]*x\.ndim == 2"):
        layer_normalization(numpy.zeros((2, 3, 4), "f"), numpy.ones(3, "f"), numpy.ones(3, "f"))


@pytest.mark.parametrize("units", [2, 4])
def test_scale_of_wrong_length_raises_value_error(units):
    with pytest.raises(ValueError, match=r"gamma and beta must have shape \(x\.shape\[1\],\) = "
                                         r"\(3,\) or \(1,\), got \(\d,\): operands could not be "
                                         r"broadcast"):
        layer_normalization(numpy.zeros((2, 3), "f"), numpy.ones(units, "f"),
                            numpy.ones(units, "f"))


def test_one_scale_and_shift_serve_every_unit():
    # compat: Chainer broadcasts them (and then fails to shape gamma's gradient); ours sums it.
    rng = numpy.random.default_rng(2)
    x = rng.standard_normal((3, 4))
    gamma, beta = numpy.array([1.7]), numpy.array([-0.3])
    y = layer_normalization(x, gamma, beta)
    numpy.testing.assert_allclose(y.array, _reference(x, gamma, beta, 1e-5), rtol=1e-10)
    numpy.testing.assert_allclose(
        y.array, layer_normalization(x, numpy.full(4, 1.7), numpy.full(4, -0.3)).array)
    gy = rng.standard_normal((3, 4))
    grad_grads = tuple(rng.standard_normal(a.shape) for a in (x, gamma, beta))
    gradient_check.check_backward(layer_normalization, (x, gamma, beta), gy)
    gradient_check.check_double_backward(layer_normalization, (x, gamma, beta), gy, grad_grads)


def test_other_shape_errors_stay_invalid_type():
    # Checked before the unit count, as in Chainer.
    with pytest.raises(type_check.InvalidType, match=r"gamma\.shape == beta\.shape"):
        layer_normalization(numpy.zeros((2, 3), "f"), numpy.ones(3, "f"), numpy.ones(2, "f"))
    with pytest.raises(type_check.InvalidType, match=r"x\.ndim == 2"):
        layer_normalization(numpy.zeros((2, 3, 4), "f"), numpy.ones(2, "f"), numpy.ones(2, "f"))


def test_parameters_of_other_dtype_raise_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"gamma\.dtype == x\.dtype"):
        layer_normalization(numpy.zeros((2, 3), "f"), numpy.ones(3, "d"), numpy.ones(3, "f"))
