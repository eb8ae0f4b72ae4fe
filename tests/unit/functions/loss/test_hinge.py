"""hinge: L1 and L2 norms against a loop reference, gradients, argument errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

import chainer_compat
from chainer_compat import Variable, gradient_check
from chainer_compat.functions.loss.hinge import hinge
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _reference(x, t, norm, reduce):
    losses = numpy.zeros(x.shape)
    for n, k in numpy.ndindex(*x.shape):
        sign = 1.0 if t[n] == k else -1.0
        losses[n, k] = max(0.0, 1 - sign * float(x[n, k])) ** (1 if norm == "L1" else 2)
    return losses.sum() / len(x) if reduce == "mean" else losses


def _problem(rng, dtype):
    # Scores away from +-1, where the hinge has its kink.
    x = rng.choice([-1, 1], (4, 3)) * rng.uniform(0, 2, (4, 3))
    x = numpy.where(abs(abs(x) - 1) < 0.1, 0.5, x)
    return x.astype(dtype), numpy.array([0, 2, 1, 2], numpy.int32)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("norm", ["L1", "L2"])
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_forward_matches_reference(xp, dtype, norm, reduce):
    x, t = _problem(numpy.random.default_rng(0), dtype)
    y = hinge(xp.asarray(x), xp.asarray(t), norm=norm, reduce=reduce)
    expected = _reference(x, t, norm, reduce)
    assert y.dtype == dtype and y.shape == numpy.shape(expected)
    tolerance = {"atol": 2e-2, "rtol": 2e-2} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(_host(y.array), expected, **tolerance)


@pytest.mark.parametrize("norm", ["L1", "L2"])
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_backward_and_double_backward_match_numerical(xp, norm, reduce):
    rng = numpy.random.default_rng(1)
    x, t = _problem(rng, numpy.float64)
    t = xp.asarray(t)
    gy = xp.asarray(rng.standard_normal(() if reduce == "mean" else x.shape))

    def f(x):
        return hinge(x, t, norm=norm, reduce=reduce)

    gradient_check.check_backward(f, xp.asarray(x), gy)
    gradient_check.check_double_backward(f, xp.asarray(x), gy,
                                         xp.asarray(rng.standard_normal(x.shape)))


def test_unknown_norm_raises_not_implemented_error():
    with pytest.raises(
            NotImplementedError,
            match="^norm should be either 'L1' or 'L2'\nnorm of hinge got 'L3'"):
        hinge(numpy.zeros((2, 3), "f"), numpy.zeros(2, numpy.int32), norm="L3")


def test_invalid_reduce_raises_value_error():
    with pytest.raises(ValueError, match="^only 'mean' and 'no' are valid for 'reduce'"):
        hinge(numpy.zeros((2, 3), "f"), numpy.zeros(2, numpy.int32), reduce="sum")


def test_label_count_mismatch_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"Hinge[\s\S]*x\.shape\[0\] == t\.shape"):
        hinge(numpy.zeros((2, 3), "f"), numpy.zeros(3, numpy.int32))


@pytest.mark.parametrize("norm", ["L1", "L2"])
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_backward_applies_no_function_as_chainers_old_style_function(norm, reduce):
    rng = numpy.random.default_rng(19)
    x = rng.standard_normal((6, 5)).astype(numpy.float32)
    t = numpy.array([0, 3, 1, 4, 2, 2], numpy.int32)
    gy = rng.standard_normal(() if reduce == "mean" else (6, 5)).astype(numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(
        lambda x: hinge(x, t, norm=norm, reduce=reduce), (x,), gy)
    assert labels == []  # Chainer 7.8.1's Hinge computes its gradient on arrays
    numpy.testing.assert_array_equal(plain[0], hooked[0])
    # Recorded for double backprop (which Chainer cannot do), the same gradient as functions.
    v = Variable(x)
    recorded, = chainer_compat.grad([hinge(v, t, norm=norm, reduce=reduce)], [v],
                                    [Variable(gy)], enable_double_backprop=True)
    assert recorded.creator is not None
    numpy.testing.assert_allclose(recorded.array, plain[0], rtol=1e-6, atol=1e-7)
