"""decov and cross_covariance against NumPy covariance references, gradients, errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

import chainer_compat
from chainer_compat import Variable, gradient_check
from chainer_compat.functions.loss.cross_covariance import cross_covariance
from chainer_compat.functions.loss.decov import DeCov, decov
from chainer_compat.utils import type_check


def _covariance(y, z):
    yc = y - y.mean(axis=0)
    zc = z - z.mean(axis=0)
    return numpy.einsum("ni,nj->ij", yc, zc) / len(y)


def _data(shape, seed=0):
    return numpy.random.RandomState(seed).normal(size=shape)


def test_decov_is_half_the_squared_off_diagonal_covariance():
    h = _data((6, 4))
    covariance = _covariance(h, h)
    off_diagonal = covariance - numpy.diag(numpy.diag(covariance))
    numpy.testing.assert_allclose(decov(h).array, 0.5 * (off_diagonal ** 2).sum(), rtol=1e-12)
    numpy.testing.assert_allclose(decov(h, reduce="no").array, off_diagonal, rtol=1e-12,
                                  atol=1e-15)


def test_cross_covariance_is_half_the_squared_covariance():
    y, z = _data((6, 3)), _data((6, 2), seed=1)
    covariance = _covariance(y, z)
    numpy.testing.assert_allclose(cross_covariance(y, z).array, 0.5 * (covariance ** 2).sum(),
                                  rtol=1e-12)
    numpy.testing.assert_allclose(cross_covariance(y, z, reduce="no").array, covariance,
                                  rtol=1e-12)


def test_float32_keeps_its_dtype():
    h = _data((5, 3)).astype(numpy.float32)
    assert decov(h).dtype == numpy.float32
    assert cross_covariance(h, h).dtype == numpy.float32


@pytest.mark.parametrize("reduce", ["half_squared_sum", "no"])
def test_gradients_match_numerical_ones(reduce):
    rng = numpy.random.RandomState(2)
    h = _data((5, 3))
    out_shape = () if reduce != "no" else (3, 3)
    gradient_check.check_backward(lambda h: decov(h, reduce), h, rng.normal(size=out_shape),
                                  dtype=numpy.float64)
    gradient_check.check_double_backward(lambda h: decov(h, reduce), h,
                                         rng.normal(size=out_shape), rng.normal(size=h.shape),
                                         dtype=numpy.float64)
    y, z = _data((5, 3), seed=3), _data((5, 2), seed=4)
    out_shape = () if reduce != "no" else (3, 2)
    gradient_check.check_backward(lambda y, z: cross_covariance(y, z, reduce), (y, z),
                                  rng.normal(size=out_shape), dtype=numpy.float64)
    gradient_check.check_double_backward(
        lambda y, z: cross_covariance(y, z, reduce), (y, z), rng.normal(size=out_shape),
        (rng.normal(size=y.shape), rng.normal(size=z.shape)), dtype=numpy.float64)


def test_errors():
    with pytest.raises(
            ValueError,
            match="^only 'half_squared_sum' and 'no' are valid for 'reduce'"):
        decov(_data((3, 2)), reduce="mean")
    with pytest.raises(
            ValueError,
            match="^Only 'half_squared_sum' and 'no' are valid for 'reduce'"):
        cross_covariance(_data((3, 2)), _data((3, 2)), reduce="sum")
    with pytest.raises(type_check.InvalidType):
        decov(_data((3, 2, 1)))
    with pytest.raises(type_check.InvalidType):
        decov(numpy.ones((3, 2), numpy.int32))
    with pytest.raises(type_check.InvalidType):
        cross_covariance(_data((3, 2)), _data((4, 2)))


@pytest.mark.parametrize("reduce", ["half_squared_sum", "no"])
def test_decov_node_called_old_style_keeps_double_backprop(reduce):
    rng = numpy.random.default_rng(5)
    h = rng.normal(size=(5, 3))
    out_shape = () if reduce == "half_squared_sum" else (3, 3)
    gradient_check.check_double_backward(
        lambda h: DeCov(reduce)(h), h, rng.normal(size=out_shape), rng.normal(size=h.shape),
        atol=1e-5, rtol=1e-4)


_CENTERED = ["Mean", "Mean", "BroadcastTo", "_ - _", "BroadcastTo", "_ - _",
             "_ * 0.16666666666666666"]


@pytest.mark.parametrize("reduce, labels", [
    # Chainer 7.8.1's sequences: both inputs centered, gy / N, then for half_squared_sum the
    # covariance recomputed and one product per input, scaled after it.
    ("half_squared_sum", _CENTERED + [
        "Transpose", "MatMul", "_ * 0.16666666666666666", "Transpose", "MatMul", "BroadcastTo",
        "_ * _", "MatMul", "BroadcastTo", "_ * _"]),
    ("no", _CENTERED + ["Transpose", "MatMul", "MatMul"]),
])
def test_cross_covariance_hook_sees_chainers_gradient_nodes(reduce, labels):
    rng = numpy.random.default_rng(20)
    arrays = (rng.standard_normal((6, 4)).astype(numpy.float32),
              rng.standard_normal((6, 3)).astype(numpy.float32))
    gy = rng.standard_normal(() if reduce != "no" else (4, 3)).astype(numpy.float32)
    plain, hooked, seen = gradients_under_a_hook(
        lambda y, z: cross_covariance(y, z, reduce=reduce), arrays, gy)
    assert seen == labels
    for gradient, under_hook in zip(plain, hooked):
        numpy.testing.assert_array_equal(gradient, under_hook)


@pytest.mark.parametrize("reduce", ["half_squared_sum", "no"])
def test_decov_backward_applies_no_function_as_chainers_old_style_function(reduce):
    rng = numpy.random.default_rng(21)
    h = rng.standard_normal((6, 4)).astype(numpy.float32)
    gy = rng.standard_normal(() if reduce != "no" else (4, 4)).astype(numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(lambda h: decov(h, reduce=reduce), (h,), gy)
    assert labels == []  # Chainer 7.8.1's DeCov computes its gradient on arrays
    numpy.testing.assert_array_equal(plain[0], hooked[0])
    v = Variable(h)
    recorded, = chainer_compat.grad([decov(v, reduce=reduce)], [v], [Variable(gy)],
                                    enable_double_backprop=True)
    assert recorded.creator is not None
    numpy.testing.assert_allclose(recorded.array, plain[0], rtol=1e-5, atol=1e-6)
