"""black_out against a NumPy reference with fixed samples, and its gradients."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.loss.black_out import black_out

SAMPLES = numpy.array([[0, 2], [4, 1], [0, 3]], numpy.int32)
TARGETS = numpy.array([1, 2, 5], numpy.int32)


def _problem(dtype=numpy.float64):
    rng = numpy.random.RandomState(0)
    return rng.normal(size=(3, 4)).astype(dtype), rng.normal(size=(6, 4)).astype(dtype)


def _reference(x, W):  # noqa: N803
    losses = []
    for i, target in enumerate(TARGETS):
        positive = W[target] @ x[i]
        negatives = W[SAMPLES[i]] @ x[i]
        log_z = numpy.logaddexp.reduce(numpy.concatenate([[positive], negatives]))
        losses.append(-(positive - log_z + numpy.log(1 - numpy.exp(negatives - log_z)).sum()))
    return numpy.array(losses)


@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_loss_matches_reference(reduce):
    x, W = _problem()  # noqa: N806
    expected = _reference(x, W)
    loss = black_out(x, TARGETS, W, SAMPLES, reduce=reduce)
    numpy.testing.assert_allclose(loss.array, expected.mean() if reduce == "mean" else expected,
                                  rtol=1e-12)


def test_float32_keeps_its_dtype():
    x, W = _problem(numpy.float32)  # noqa: N806
    assert black_out(x, TARGETS, W, SAMPLES).dtype == numpy.float32


def test_gradients_match_numerical_ones():
    x, W = _problem()  # noqa: N806
    rng = numpy.random.RandomState(1)

    def loss(x, W):  # noqa: N803
        return black_out(x, TARGETS, W, SAMPLES, reduce="no")

    gradient_check.check_backward(loss, (x, W), rng.normal(size=3), dtype=numpy.float64)
    gradient_check.check_double_backward(loss, (x, W), rng.normal(size=3),
                                         (rng.normal(size=x.shape), rng.normal(size=W.shape)),
                                         dtype=numpy.float64, atol=1e-3, rtol=1e-3)
