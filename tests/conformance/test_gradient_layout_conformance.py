"""The gradients of relu, batch normalization and the elementwise operators are laid out in
memory as Chainer's are, so a later reduction over them (a convolution's weight or bias
gradient) adds in Chainer's order and rounds as Chainer's does; and a broadcast gradient is
summed in Chainer's order too. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on
Chainer itself.
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


# NumPy reuses a temporary's buffer for ``temporary * b`` once it holds 256 KiB or more, so a
# gradient node that multiplies a fresh array by gy returns the fresh array's layout at those
# sizes, and the layout NumPy picks for the pair below them.
_LARGE = (2, 4, 96, 96)  # 288 KiB of float32
_SMALL = (2, 4, 16, 16)


def _gradient_of(function, shape, *, positive=False):
    x = chainer.Variable(_channels_last(shape, 5))
    if positive:
        x = chainer.Variable(numpy.abs(x.array) + numpy.float32(0.5))
    y = function(x)
    y.grad = numpy.random.RandomState(6).standard_normal(shape).astype(numpy.float32)
    y.backward()
    return x


# name: (function, positive input only, whose layout the large gradient takes)
_ELEMENTWISE = {
    "abs": (lambda x: abs(x), False, "x"),
    "square": (lambda x: x ** 2, False, "x"),
    "cube": (lambda x: x ** 3, False, "x"),
    "two_to_the_x": (lambda x: 2.0 ** x, False, "x"),
    "x_to_the_x": (lambda x: x ** x, True, "x"),
    "softplus": (lambda x: F.softplus(x), False, "x"),
    # -c * gy is the temporary here
    "reciprocal": (lambda x: 1.0 / x, True, "gy"),
}


def test_large_elementwise_gradients_keep_their_temporarys_layout():
    for name, (function, positive, layout) in _ELEMENTWISE.items():
        x = _gradient_of(function, _LARGE, positive=positive)
        if layout == "x":
            assert x.grad.strides == x.array.strides, name
        else:
            assert x.grad.flags.c_contiguous, name


def test_small_elementwise_gradients_are_laid_out_as_numpy_multiplies():
    for name, (function, positive, _) in _ELEMENTWISE.items():
        x = _gradient_of(function, _SMALL, positive=positive)
        assert x.grad.flags.c_contiguous, name


def test_bias_gradient_under_a_mean_adds_the_broadcast_gradient_in_index_order():
    # F.mean's gradient reaches the convolution as a broadcast (zero-stride) array; NumPy 1
    # walks such an array in index order, which here is 2 runs of 9,216 per channel.
    from numpy_sum_reference import numpy1_sum_of_runs

    rng = numpy.random.RandomState(7)
    x = rng.standard_normal((2, 3, 96, 96)).astype(numpy.float32)
    w = rng.standard_normal((4, 3, 1, 1)).astype(numpy.float32)
    b = chainer.Variable(numpy.zeros(4, numpy.float32))
    y = F.convolution_2d(x, w, b)
    F.mean(y).backward(retain_grad=True)
    gy = numpy.ascontiguousarray(y.grad)
    expected = numpy1_sum_of_runs(gy.transpose(1, 0, 2, 3).reshape(4, 2, -1))
    numpy.testing.assert_array_equal(b.grad, expected)
    assert b.grad.dtype == expected.dtype


def test_permutate_lays_out_its_result_as_a_fancy_index_does():
    x = numpy.random.RandomState(8).standard_normal((2, 3, 5)).astype(numpy.float32)
    indices = numpy.array([2, 0, 1], numpy.int32)
    y = F.permutate(x, indices, axis=1)
    expected = x[:, indices]
    assert y.array.strides == expected.strides and not y.array.flags.c_contiguous
    numpy.testing.assert_array_equal(y.array, expected)
