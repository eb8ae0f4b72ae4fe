"""triplet: values against a loop reference, gradients, argument errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat import gradient_check, variable
from chainer_compat.functions.loss.triplet import triplet
from chainer_compat.functions.math.sum import sum as sum_all
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _reference(anchor, positive, negative, margin, reduce):
    losses = numpy.array([
        max(((a - p) ** 2).sum() - ((a - n) ** 2).sum() + margin, 0.0)
        for a, p, n in zip(*(v.astype(numpy.float64) for v in (anchor, positive, negative)))])
    return losses.mean() if reduce == "mean" else losses


def _problem(rng, dtype):
    anchor = rng.uniform(-1, 1, (5, 3))
    positive = anchor + rng.uniform(-0.3, 0.3, (5, 3))
    negative = anchor + rng.uniform(-1, 1, (5, 3))
    return tuple(v.astype(dtype) for v in (anchor, positive, negative))


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("margin", [0.2, 1.0])
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_forward_matches_reference(xp, dtype, margin, reduce):
    arrays = _problem(numpy.random.default_rng(0), dtype)
    loss = triplet(*[xp.asarray(a) for a in arrays], margin=margin, reduce=reduce)
    expected = _reference(*arrays, margin, reduce)
    assert loss.dtype == dtype and loss.shape == numpy.shape(expected)
    tolerance = {"atol": 2e-2, "rtol": 2e-2} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(_host(loss.array), expected, **tolerance)


@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_backward_and_double_backward_match_numerical(xp, reduce):
    rng = numpy.random.default_rng(0)
    arrays = _problem(rng, numpy.float64)
    anchor, positive, negative = arrays
    before_hinge = (((anchor - positive) ** 2).sum(axis=1)
                    - ((anchor - negative) ** 2).sum(axis=1) + 0.5)
    # Precondition: no sample sits at the kink, and both sides of it are exercised.
    assert (abs(before_hinge) > 1e-2).all()
    assert (before_hinge > 0).any() and (before_hinge < 0).any()
    arrays = tuple(xp.asarray(a) for a in arrays)
    gy = xp.asarray(rng.standard_normal(() if reduce == "mean" else (5,)))
    grad_grads = tuple(xp.asarray(rng.standard_normal((5, 3))) for _ in range(3))

    def f(*args):
        return triplet(*args, margin=0.5, reduce=reduce)

    gradient_check.check_backward(f, arrays, gy)
    gradient_check.check_double_backward(f, arrays, gy, grad_grads)


@pytest.mark.parametrize("reduce, first", [("mean", "_ * 0.25"), ("no", "GetItem")])
def test_a_hook_sees_chainers_gradient_nodes(reduce, first):
    rng = numpy.random.default_rng(11)
    arrays = [rng.standard_normal((4, 3)).astype(numpy.float32) for _ in range(3)]
    gy = rng.standard_normal(() if reduce == "mean" else (4,)).astype(numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(
        lambda *xs: triplet(*xs, margin=2.0, reduce=reduce), arrays, gy)
    # Chainer 7.8.1's sequence: the scale 2 * gy (per sample) * mask, then one gradient each.
    assert labels == [first, "BroadcastTo", "_ * 2", "_ * _"] + ["_ - _", "_ * _"] * 3
    for gradient, under_hook in zip(plain, hooked):
        numpy.testing.assert_array_equal(gradient, under_hook)
    numpy.testing.assert_allclose(plain[0] + plain[1] + plain[2], 0, atol=1e-6)


def test_non_positive_margin_raises_value_error():
    with pytest.raises(
            ValueError,
            match=r"^margin should be positive value\.\nmargin of triplet must be positive, got 0"):
        triplet(*_problem(numpy.random.default_rng(2), numpy.float32), margin=0)


def test_invalid_reduce_raises_value_error():
    with pytest.raises(ValueError, match="^only 'mean' and 'no' are valid for 'reduce'"):
        triplet(*_problem(numpy.random.default_rng(3), numpy.float32), reduce="sum")


def test_shape_mismatch_raises_invalid_type():
    anchor, positive, _ = _problem(numpy.random.default_rng(4), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"Triplet[\s\S]*negative\.shape"):
        triplet(anchor, positive, numpy.zeros((5, 2), numpy.float32))


HIGHER_RANK_SHAPES = [(4, 3, 2), (3, 4, 2, 2)]


def _fiber_reference(anchor, positive, negative, margin, reduce):
    """Loss and anchor gradient (for an all-ones upstream gradient) fiber by fiber along axis 1.

    Every index of the loss names one fiber ``x[i, :, j, ...]`` of the inputs.
    """
    anchor, positive, negative = (v.astype(numpy.float64) for v in (anchor, positive, negative))
    loss_shape = anchor.shape[:1] + anchor.shape[2:]
    losses = numpy.zeros(loss_shape)
    anchor_grad = numpy.zeros(anchor.shape)
    scale = 1.0 / len(anchor) if reduce == "mean" else 1.0
    for index in numpy.ndindex(*loss_shape):
        fiber = (index[0], slice(None)) + index[1:]
        a, p, n = anchor[fiber], positive[fiber], negative[fiber]
        losses[index] = max(((a - p) ** 2).sum() - ((a - n) ** 2).sum() + margin, 0.0)
        if losses[index] > 0:
            anchor_grad[fiber] = 2 * (n - p) * scale
    loss = losses.sum() / len(anchor) if reduce == "mean" else losses
    return loss, anchor_grad


def _higher_rank_problem(rng, shape, margin):
    anchor = rng.uniform(-1, 1, shape)
    positive = anchor + rng.uniform(-0.5, 0.5, shape)
    negative = anchor + rng.uniform(-0.8, 0.8, shape)
    before_hinge = (((anchor - positive) ** 2).sum(axis=1)
                    - ((anchor - negative) ** 2).sum(axis=1) + margin)
    # Precondition: no loss sits at the kink, and both sides of it are exercised.
    assert (abs(before_hinge) > 1e-2).all()
    assert (before_hinge > 0).any() and (before_hinge < 0).any()
    return anchor, positive, negative


@pytest.mark.parametrize("shape", HIGHER_RANK_SHAPES)
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_higher_rank_forward_and_backward_sum_over_axis_one_only(xp, shape, reduce):
    arrays = _higher_rank_problem(numpy.random.default_rng(5), shape, 0.2)
    expected_loss, expected_grad = _fiber_reference(*arrays, 0.2, reduce)
    anchor = variable.Variable(xp.asarray(arrays[0]))
    loss = triplet(anchor, *[xp.asarray(a) for a in arrays[1:]], margin=0.2, reduce=reduce)
    # 'no' keeps one loss per fiber: the batch axis and the axes after axis 1.
    assert loss.shape == numpy.shape(expected_loss)
    numpy.testing.assert_allclose(_host(loss.array), expected_loss, rtol=1e-12)
    sum_all(loss).backward()
    assert anchor.grad.shape == shape
    numpy.testing.assert_allclose(_host(anchor.grad), expected_grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", HIGHER_RANK_SHAPES)
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_higher_rank_backward_and_double_backward_match_numerical(xp, shape, reduce):
    rng = numpy.random.default_rng(6)
    arrays = tuple(xp.asarray(a) for a in _higher_rank_problem(rng, shape, 0.5))
    loss_shape = () if reduce == "mean" else shape[:1] + shape[2:]
    gy = xp.asarray(rng.standard_normal(loss_shape))
    grad_grads = tuple(xp.asarray(rng.standard_normal(shape)) for _ in range(3))

    def f(*args):
        return triplet(*args, margin=0.5, reduce=reduce)

    gradient_check.check_backward(f, arrays, gy, dtype=numpy.float64)
    gradient_check.check_double_backward(f, arrays, gy, grad_grads, dtype=numpy.float64)
