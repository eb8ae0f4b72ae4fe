"""Tests for chainer_compat.functions.connection.deformable_convolution_2d_sampler: zero offsets
give a convolution, integer offsets shift the taps, samples outside read zeros, gradients of
first and second order, errors and devices."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable, gradient_check
from chainer_compat.functions.connection.convolution_2d import convolution_2d
from chainer_compat.functions.connection.deformable_convolution_2d_sampler import (
    deformable_convolution_2d_sampler,
)


@pytest.fixture(autouse=True)
def _seeded():
    numpy.random.seed(5)


def _rand(*shape, low=-1.0, high=1.0):
    return numpy.random.uniform(low, high, shape)


def _host(array):
    return array.get() if hasattr(array, "get") else array


@pytest.mark.parametrize("stride, pad", [(1, 0), ((2, 1), (1, 2))])
def test_zero_offsets_give_the_plain_convolution(xp, stride, pad):
    x, W, b = _rand(2, 3, 5, 6), _rand(4, 3, 3, 2), _rand(4)
    expected = convolution_2d(x, W, b, stride, pad).array
    offset = numpy.zeros((2, 12) + expected.shape[2:])
    y = deformable_convolution_2d_sampler(
        xp.asarray(x), xp.asarray(offset), xp.asarray(W), xp.asarray(b), stride, pad)
    numpy.testing.assert_allclose(_host(y.array), expected, rtol=1e-10, atol=1e-12)


def test_integer_offsets_move_every_tap():
    # Shifting every tap one pixel right and down equals convolving the shifted image.
    x, W = _rand(1, 2, 6, 6), _rand(3, 2, 2, 2)
    offset = numpy.ones((1, 8, 4, 4))
    y = deformable_convolution_2d_sampler(x, offset, W)
    expected = convolution_2d(x[:, :, 1:, 1:], W).array
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-10, atol=1e-12)


def test_samples_far_outside_read_zero():
    x, W, b = _rand(1, 2, 4, 4), _rand(3, 2, 2, 2), _rand(3)
    offset = numpy.full((1, 8, 3, 3), 50.0)
    y = deformable_convolution_2d_sampler(x, offset, W, b)
    numpy.testing.assert_allclose(y.array, numpy.broadcast_to(b[None, :, None, None], y.shape))


def test_gradients_of_first_and_second_order():
    # Offsets stay clear of integers, where bilinear sampling has kinks.
    x, W, b = _rand(2, 2, 4, 4), _rand(3, 2, 2, 2), _rand(3)
    offset = numpy.floor(_rand(2, 8, 4, 4, low=-2, high=2)) + _rand(2, 8, 4, 4, low=0.2, high=0.8)

    def function(x, offset, W, b):
        return deformable_convolution_2d_sampler(x, offset, W, b, stride=1, pad=1)

    gy = _rand(2, 3, 4, 4)
    gradient_check.check_backward(function, (x, offset, W, b), gy, dtype=numpy.float64,
                                  eps=1e-4, atol=1e-6, rtol=1e-5)
    grad_grads = tuple(_rand(*v.shape) for v in (x, offset, W, b))
    gradient_check.check_double_backward(function, (x, offset, W, b), gy, grad_grads,
                                         dtype=numpy.float64, eps=1e-4, atol=1e-6, rtol=1e-5)


def test_offset_gradient_is_zero_far_outside():
    x, W = _rand(1, 2, 4, 4), _rand(3, 2, 2, 2)
    offset = Variable(numpy.full((1, 8, 3, 3), -40.0))
    y = deformable_convolution_2d_sampler(x, offset, W)
    y.grad = numpy.ones(y.shape)
    y.backward()
    assert not offset.grad.any()


def test_float32_inputs_give_float32():
    x, W = _rand(1, 2, 4, 4).astype(numpy.float32), _rand(3, 2, 2, 2).astype(numpy.float32)
    offset = _rand(1, 8, 3, 3).astype(numpy.float32)
    assert deformable_convolution_2d_sampler(x, offset, W).dtype == numpy.float32


def test_offset_for_another_kernel_raises_value_error():
    with pytest.raises(ValueError, match="does not match the kernel size"):
        deformable_convolution_2d_sampler(_rand(1, 2, 4, 4), _rand(1, 18, 2, 2),
                                          _rand(3, 2, 2, 2))
