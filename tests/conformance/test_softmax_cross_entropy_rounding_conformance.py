"""softmax_cross_entropy rounds as Chainer's CPU code does, so seeded runs print Chainer's
losses to the last bit: log_softmax is x - (max + log(sum(exp(x - max)))), the softmax of the
gradient is exp of that, and the mean's scale gloss / count is rounded once. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def _log_softmax(x):
    peak = x.max(axis=1, keepdims=True)
    total = numpy.exp(x - peak).sum(axis=1, keepdims=True)
    return x - (peak + numpy.log(total))


def _batch(dtype, count=37, classes=9, seed=0):
    rng = numpy.random.RandomState(seed)
    x = (rng.standard_normal((count, classes)) * 4).astype(dtype)
    t = rng.randint(0, classes, count).astype(numpy.int32)
    return x, t


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_per_sample_losses_are_the_negated_log_softmax_at_the_labels(dtype):
    x, t = _batch(dtype)
    loss = F.softmax_cross_entropy(x, t, reduce="no")
    expected = -_log_softmax(x)[numpy.arange(len(t)), t]
    assert loss.dtype == dtype
    numpy.testing.assert_array_equal(loss.array, expected)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
@pytest.mark.parametrize("cache_score", [True, False])
def test_mean_loss_and_its_gradient_round_as_chainer(dtype, cache_score):
    x, t = _batch(dtype, seed=1)
    variable = chainer.Variable(x)
    loss = F.softmax_cross_entropy(variable, t, cache_score=cache_score)
    picked = _log_softmax(x)[numpy.arange(len(t)), t]
    sum_dtype = numpy.float32  # float16 losses are summed in float32
    expected_loss = (picked.sum(dtype=sum_dtype) * sum_dtype(-1.0 / len(t))).astype(dtype)
    numpy.testing.assert_array_equal(loss.array, expected_loss)

    loss.grad = numpy.asarray(1.7, dtype)
    loss.backward()
    expected_grad = numpy.exp(_log_softmax(x))
    expected_grad[numpy.arange(len(t)), t] -= 1
    expected_grad *= dtype(float(dtype(1.7)) / len(t))  # the scale, rounded once
    numpy.testing.assert_array_equal(variable.grad, expected_grad)
