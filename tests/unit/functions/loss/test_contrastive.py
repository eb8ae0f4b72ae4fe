"""contrastive: values against a loop reference, gradients, argument errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat import gradient_check
from chainer_compat.functions.loss.contrastive import contrastive
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _reference(x0, x1, y, margin, reduce):
    losses = []
    for a, b, label in zip(x0.astype(numpy.float64), x1.astype(numpy.float64), y):
        distance = numpy.sqrt(((a - b) ** 2).sum())
        losses.append(0.5 * (distance ** 2 if label else max(margin - distance, 0) ** 2))
    losses = numpy.array(losses)
    return losses.mean() if reduce == "mean" else losses


def _problem(rng, dtype):
    x0 = rng.uniform(-1, 1, (4, 3))
    x1 = rng.uniform(-1, 1, (4, 3))
    return x0.astype(dtype), x1.astype(dtype), numpy.array([1, 0, 0, 1], numpy.int32)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("margin", [1.0, 2.5])
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_forward_matches_reference(xp, dtype, margin, reduce):
    x0, x1, y = _problem(numpy.random.default_rng(0), dtype)
    loss = contrastive(xp.asarray(x0), xp.asarray(x1), xp.asarray(y), margin=margin,
                       reduce=reduce)
    expected = _reference(x0, x1, y, margin, reduce)
    assert loss.dtype == dtype and loss.shape == numpy.shape(expected)
    tolerance = {"atol": 2e-2, "rtol": 2e-2} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(_host(loss.array), expected, **tolerance)


@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_backward_and_double_backward_match_numerical(xp, reduce):
    rng = numpy.random.default_rng(1)
    x0, x1, y = (xp.asarray(a) for a in _problem(rng, numpy.float64))
    gy = xp.asarray(rng.standard_normal(() if reduce == "mean" else (4,)))
    grad_grads = tuple(xp.asarray(rng.standard_normal((4, 3))) for _ in range(2))

    def f(x0, x1):
        return contrastive(x0, x1, y, margin=2.5, reduce=reduce)

    gradient_check.check_backward(f, (x0, x1), gy)
    gradient_check.check_double_backward(f, (x0, x1), gy, grad_grads)


@pytest.mark.parametrize("reduce, first", [("mean", "_ * 0.25"), ("no", "GetItem")])
def test_a_hook_sees_chainers_gradient_nodes(reduce, first):
    rng = numpy.random.default_rng(12)
    x0, x1 = (rng.standard_normal((4, 3)).astype(numpy.float32) for _ in range(2))
    x1[0] = x0[0]  # a zero distance: clamped before the division
    labels = numpy.array([1, 0, 0, 1], numpy.int32)
    gy = rng.standard_normal(() if reduce == "mean" else (4,)).astype(numpy.float32)
    plain, hooked, seen = gradients_under_a_hook(
        lambda x0, x1: contrastive(x0, x1, labels, margin=2, reduce=reduce), (x0, x1), gy)
    # Chainer 7.8.1's sequence: per-pair factors are repeated over the units, the distance
    # clamped by Maximum, the similar and the dissimilar terms added.
    assert seen == [
        "_ - _", "_ ** 2", "Sum", "sqrt", "2 - _", first, "BroadcastTo", "GetItem", "Repeat",
        "Maximum", "_ * _", "_ * _", "GetItem", "Repeat", "Maximum", "_ * _", "_ * _", "_ / _",
        "__neg__", "_ * _", "_ + _", "__neg__"]
    for gradient, under_hook in zip(plain, hooked):
        numpy.testing.assert_array_equal(gradient, under_hook)
    assert numpy.isfinite(plain[0]).all()
    numpy.testing.assert_array_equal(plain[1], -plain[0])


@pytest.mark.parametrize("margin", [0, -1.0])
def test_non_positive_margin_raises_value_error(margin):
    with pytest.raises(
            ValueError,
            match=r"^margin should be positive value\.\nmargin of contrastive must be positive"):
        contrastive(*_problem(numpy.random.default_rng(2), numpy.float32), margin=margin)


def test_invalid_reduce_raises_value_error():
    with pytest.raises(ValueError, match="^only 'mean' and 'no' are valid for 'reduce', but "
                                         "'sum' is given\nFunction: contrastive"):
        contrastive(*_problem(numpy.random.default_rng(3), numpy.float32), reduce="sum")


def test_label_count_mismatch_raises_invalid_type():
    x0, x1, _ = _problem(numpy.random.default_rng(4), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"Contrastive[\s\S]*y\.shape\[0\]"):
        contrastive(x0, x1, numpy.zeros(3, numpy.int32))
