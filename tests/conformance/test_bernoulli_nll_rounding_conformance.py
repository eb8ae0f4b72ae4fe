"""The losses of variational auto-encoders round as Chainer's CPU code does, so seeded runs
print Chainer's losses to the last bit: bernoulli_nll is softplus(y) - x y with softplus's
gradient (1 - 1 / (1 + exp(y))) gy, and reduce='mean' is NumPy's mean (the sum divided by the
count) with gradient gloss * (1 / count). Set CHAINER_CONFORMANCE_TARGET=chainer to run this
file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def _reduced(elementwise, reduce, rng):
    """The reduced loss, the gradient fed to it, and the elementwise gradient it passes on."""
    dtype = elementwise.dtype.type
    if reduce == "no":
        gloss = rng.standard_normal(elementwise.shape).astype(dtype)
        return elementwise, gloss, gloss
    gloss = numpy.asarray(1.7, dtype)
    if reduce == "sum":
        return elementwise.sum(), gloss, numpy.full(elementwise.shape, gloss)
    scale = dtype(1.0 / elementwise.size)
    return elementwise.mean(), gloss, numpy.full(elementwise.shape, gloss * scale)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
@pytest.mark.parametrize("reduce", ["sum", "mean", "no"])
def test_bernoulli_nll_and_its_gradient_round_as_chainer(dtype, reduce):
    rng = numpy.random.RandomState(1)
    y = (rng.standard_normal((16, 10)) * 3).astype(dtype)
    x = (rng.standard_normal((16, 10)) > 0).astype(dtype)
    variable = chainer.Variable(y)
    loss = F.bernoulli_nll(x, variable, reduce=reduce)
    softplus = numpy.fmax(y, 0) + numpy.log1p(numpy.exp(-numpy.fabs(y)))
    expected, gloss, g = _reduced(softplus - x * y, reduce, rng)
    numpy.testing.assert_array_equal(loss.array, expected)

    loss.grad = gloss
    loss.backward()
    numpy.testing.assert_array_equal(variable.grad, (1 - 1 / (1 + numpy.exp(y))) * g + -g * x)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_mean_gaussian_losses_divide_the_sum_by_the_count(dtype):
    rng = numpy.random.RandomState(2)
    x, mean, ln_var = (rng.standard_normal((16, 10)).astype(dtype) for _ in range(3))
    kl = F.gaussian_kl_divergence(mean, ln_var, reduce="mean")
    expected_kl = (mean * mean + numpy.exp(ln_var) - ln_var - 1) * dtype(0.5)
    numpy.testing.assert_array_equal(kl.array, expected_kl.mean())
    nll = F.gaussian_nll(x, mean, ln_var, reduce="mean")
    power = (x - mean) * (x - mean) * numpy.exp(-ln_var) * dtype(-0.5)
    expected_nll = (ln_var + dtype(numpy.log(2 * numpy.pi))) / dtype(2) - power
    numpy.testing.assert_array_equal(nll.array, expected_nll.mean())
