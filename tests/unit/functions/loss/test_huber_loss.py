"""huber_loss: both zones against NumPy, the reduction over axis 1, gradients, errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat import gradient_check
from chainer_compat.functions.loss.huber_loss import huber_loss
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _reference(x, t, delta):
    a = abs(x.astype(numpy.float64) - t)
    return numpy.where(a <= delta, 0.5 * a * a, delta * (a - 0.5 * delta))


def _inputs(rng, dtype, delta, shape=(3, 4)):
    x = rng.uniform(-1, 1, shape)
    # Half the differences in each zone, none close to the boundary |x - t| = delta.
    gap = numpy.where(rng.random(shape) < 0.5, rng.uniform(0.1, 0.7, shape),
                      rng.uniform(1.3, 2.5, shape)) * delta
    t = x + rng.choice([-1, 1], shape) * gap
    return x.astype(dtype), t.astype(dtype)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("reduce", ["sum_along_second_axis", "no"])
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 2)])
def test_forward_matches_numpy(xp, dtype, reduce, shape):
    x, t = _inputs(numpy.random.default_rng(0), dtype, 1.5, shape)
    y = huber_loss(xp.asarray(x), xp.asarray(t), 1.5, reduce=reduce)
    expected = _reference(x, t, 1.5)
    if reduce == "sum_along_second_axis":
        expected = expected.sum(axis=1)
    assert y.dtype == dtype and y.shape == expected.shape
    tolerance = {"atol": 2e-2, "rtol": 2e-2} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(_host(y.array), expected, **tolerance)


@pytest.mark.parametrize("reduce", ["sum_along_second_axis", "no"])
def test_backward_and_double_backward_match_numerical(xp, reduce):
    rng = numpy.random.default_rng(1)
    x, t = (xp.asarray(a) for a in _inputs(rng, numpy.float64, 1.0, (3, 4, 2)))
    out_shape = (3, 2) if reduce == "sum_along_second_axis" else (3, 4, 2)
    gy = xp.asarray(rng.standard_normal(out_shape))
    grad_grads = tuple(xp.asarray(rng.standard_normal(x.shape)) for _ in range(2))

    def f(x, t):
        return huber_loss(x, t, 1.0, reduce=reduce)

    gradient_check.check_backward(f, (x, t), gy)
    gradient_check.check_double_backward(f, (x, t), gy, grad_grads)


@pytest.mark.parametrize("reduce, labels", [
    # Chainer 7.8.1's sequences: the clipped difference is the slope.
    ("sum_along_second_axis", ["_ - _", "Clip", "ExpandDims", "BroadcastTo", "_ * _", "__neg__"]),
    ("no", ["_ - _", "Clip", "_ * _", "__neg__"]),
])
def test_a_hook_sees_chainers_gradient_nodes(reduce, labels):
    rng = numpy.random.default_rng(4)
    x, t = (rng.standard_normal((4, 3, 2)).astype(numpy.float32) * 2 for _ in range(2))
    gy = rng.standard_normal((4, 2) if reduce != "no" else (4, 3, 2)).astype(numpy.float32)
    plain, hooked, seen = gradients_under_a_hook(
        lambda x, t: huber_loss(x, t, 1.0, reduce=reduce), (x, t), gy)
    assert seen == labels
    for gradient, under_hook in zip(plain, hooked):
        numpy.testing.assert_array_equal(gradient, under_hook)
    numpy.testing.assert_array_equal(plain[1], -plain[0])


def test_invalid_reduce_raises_value_error():
    with pytest.raises(
            ValueError,
            match="^Only 'sum_along_second_axis' and 'no' are valid for 'reduce'"):
        huber_loss(numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "f"), 1.0, reduce="mean")


def test_shape_mismatch_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"HuberLoss[\s\S]*x\.shape == t\.shape"):
        huber_loss(numpy.zeros((2, 3), "f"), numpy.zeros((2, 2), "f"), 1.0)
