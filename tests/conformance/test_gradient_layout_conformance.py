"""The gradients of relu and batch normalization are laid out in memory as Chainer's are (as
their gy, C-contiguous here) even when their input is not, so a later reduction over them (a
convolution's weight gradient) adds in Chainer's order and rounds as Chainer's does. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def _channels_last(shape, seed):
    """A C-order (n, h, w, c) array seen as (n, c, h, w), as a CPU convolution outputs it."""
    n, c, h, w = shape
    rng = numpy.random.RandomState(seed)
    return rng.standard_normal((n, h, w, c)).astype(numpy.float32).transpose(0, 3, 1, 2)


def test_relu_gradient_is_laid_out_as_its_output_gradient():
    x = chainer.Variable(_channels_last((2, 3, 4, 5), 0))
    y = F.relu(x)
    gy = numpy.random.RandomState(1).standard_normal(y.shape).astype(numpy.float32)
    y.grad = gy
    y.backward()
    assert x.grad.flags.c_contiguous
    numpy.testing.assert_array_equal(x.grad, gy * (x.array > 0))


def test_batch_normalization_input_gradient_is_laid_out_as_its_output_gradient():
    x = chainer.Variable(_channels_last((4, 3, 5, 5), 2))
    gamma = chainer.Variable(numpy.ones(3, numpy.float32))
    beta = chainer.Variable(numpy.zeros(3, numpy.float32))
    y = F.batch_normalization(x, gamma, beta)
    y.grad = numpy.random.RandomState(3).standard_normal(y.shape).astype(numpy.float32)
    y.backward()
    assert x.grad.flags.c_contiguous


def test_leaky_relu_elu_and_prelu_outputs_are_in_c_order():
    x = _channels_last((2, 3, 4, 5), 4)
    assert F.leaky_relu(x).array.flags.c_contiguous
    assert F.elu(x).array.flags.c_contiguous
    assert F.prelu(x, numpy.full(3, 0.25, numpy.float32)).array.flags.c_contiguous


def test_relu_gradient_of_a_channels_last_gy_is_laid_out_as_numpy_multiplies():
    # gy * (y > 0) with y C-ordered and gy channels-last (a convolution's gradient): NumPy
    # picks the layout; a later reduction over it then adds in that order.
    rng = numpy.random.RandomState(0)
    x = chainer.Variable(rng.standard_normal((8, 16, 4, 4)).astype(numpy.float32))
    gy = rng.standard_normal((8, 4, 4, 16)).astype(numpy.float32).transpose(0, 3, 1, 2)
    y = F.relu(x)
    y.grad = gy
    y.backward()
    expected = gy * (x.array > 0)
    assert x.grad.strides == expected.strides
    numpy.testing.assert_array_equal(x.grad, expected)
