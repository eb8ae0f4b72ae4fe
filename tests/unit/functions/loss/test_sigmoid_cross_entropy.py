"""sigmoid_cross_entropy: values against a NumPy reference, gradients, argument errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import LabelRecorder

import chainer_compat
from chainer_compat import Variable, gradient_check
from chainer_compat.functions.loss.sigmoid_cross_entropy import sigmoid_cross_entropy
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _reference(x, t, normalize=True, reduce="mean"):
    x = x.astype(numpy.float64)
    p = 1 / (1 + numpy.exp(-x))
    losses = numpy.where(t == -1, 0.0, -(t * numpy.log(p) + (1 - t) * numpy.log(1 - p)))
    if reduce == "no":
        return losses
    count = max((t != -1).sum(), 1) if normalize else max(len(x), 1)
    return losses.sum() / count


def _problem(rng, dtype, shape=(3, 4)):
    x = rng.uniform(-3, 3, shape).astype(dtype)
    t = rng.integers(0, 2, shape).astype(numpy.int32)
    t.reshape(-1)[1] = -1
    return x, t


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_forward_matches_reference(xp, dtype, normalize, reduce):
    x, t = _problem(numpy.random.default_rng(0), dtype)
    loss = sigmoid_cross_entropy(xp.asarray(x), xp.asarray(t), normalize=normalize,
                                 reduce=reduce)
    expected = _reference(x, t, normalize, reduce)
    assert loss.dtype == dtype and loss.shape == expected.shape
    tolerance = {"atol": 1e-2, "rtol": 1e-2} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(_host(loss.array), expected, **tolerance)


def test_extreme_logits_stay_finite():
    x = numpy.array([[-200.0, 200.0]], numpy.float32)
    loss = sigmoid_cross_entropy(x, numpy.array([[1, 0]], numpy.int32), reduce="no")
    numpy.testing.assert_allclose(loss.array, [[200.0, 200.0]], rtol=1e-6)


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_backward_and_double_backward_match_numerical(xp, normalize, reduce):
    rng = numpy.random.default_rng(1)
    x, t = _problem(rng, numpy.float64)
    t = xp.asarray(t)
    gy = xp.asarray(rng.standard_normal(() if reduce == "mean" else x.shape))
    ggx = xp.asarray(rng.standard_normal(x.shape))

    def f(x):
        return sigmoid_cross_entropy(x, t, normalize=normalize, reduce=reduce)

    gradient_check.check_backward(f, xp.asarray(x), gy)
    gradient_check.check_double_backward(f, xp.asarray(x), gy, ggx)


def test_invalid_reduce_raises_value_error():
    with pytest.raises(ValueError, match="^only 'mean' and 'no' are valid for 'reduce', "):
        sigmoid_cross_entropy(numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), numpy.int32),
                              reduce="sum")


def test_shape_mismatch_raises_invalid_type():
    with pytest.raises(type_check.InvalidType,
                       match=r"SigmoidCrossEntropy[\s\S]*x\.shape == t\.shape"):
        sigmoid_cross_entropy(numpy.zeros((2, 3), "f"), numpy.zeros((2, 4), numpy.int32))


def test_float_labels_raise_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"t\.dtype\.kind == i"):
        sigmoid_cross_entropy(numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "f"))


@pytest.mark.parametrize("normalize", [True, False])
def test_double_backward_applies_chainers_nodes_in_its_order(normalize):
    rng = numpy.random.default_rng(5)
    x, t = _problem(rng, numpy.float32)
    x = Variable(x)
    gx, = chainer_compat.grad([sigmoid_cross_entropy(x, t, normalize=normalize)], [x],
                              enable_double_backprop=True)
    count = (t != -1).sum() if normalize else len(t)
    with chainer_compat.no_backprop_mode(), LabelRecorder() as recorder:
        gx.creator.backward((0, 1), (Variable(rng.standard_normal(x.shape, numpy.float32)),))
    # Chainer 7.8.1: y = sigmoid(x), the x gradient y (1 - y) broadcast_to(gy), the gy one
    # y - t, each times a fresh (mask ggx), then each divided by the count (a product with its
    # reciprocal), the gy one after its Sum.
    divide = "_ * " + str(1.0 / count)
    assert recorder.labels == ["Sigmoid", "1 - _", "_ * _", "BroadcastTo", "_ * _", "_ - _",
                               "_ * _", "_ * _", "_ * _", "_ * _", divide, "Sum", divide]
