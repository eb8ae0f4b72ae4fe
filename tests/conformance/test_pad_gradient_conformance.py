"""pad's gradient is the central part of the output's gradient in every mode, copying modes
included, so that models padded with 'reflect' (CycleGAN's generators) train as on Chainer.
Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad_gradient_is_the_central_part(mode):
    rng = numpy.random.RandomState(0)
    x = chainer.Variable(rng.standard_normal((2, 3, 4, 5)).astype(numpy.float32))
    y = F.pad(x, ((0, 0), (0, 0), (2, 1), (1, 3)), mode)
    gy = rng.standard_normal(y.shape).astype(numpy.float32)
    y.grad = gy
    y.backward()
    numpy.testing.assert_array_equal(x.grad, gy[:, :, 2:6, 1:6])
