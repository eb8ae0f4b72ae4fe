"""copy: CPU copies, gradients, device specifiers; transfers to and from a GPU."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable, gradient_check
from chainer_compat.backend import CpuDevice
from chainer_compat.backends import cuda
from chainer_compat.functions.array.copy import copy


@pytest.mark.parametrize("dst", [-1, "@numpy", CpuDevice(), cuda.DummyDevice])
def test_a_copy_to_the_arrays_own_device_holds_the_input_array(dst):
    # Chainer documents that no copy takes place then: the output holds the input's memory.
    x = Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    y = copy(x, dst)
    assert y.array is x.array
    gy = numpy.ones((2, 3), numpy.float32)
    y.grad = gy
    y.backward()
    assert x.grad is gy


def test_gradient_flows_back_unchanged():
    x = numpy.random.uniform(-1, 1, (2, 3))
    gradient_check.check_backward(lambda x: copy(x, -1), x, numpy.random.uniform(-1, 1, (2, 3)))


@pytest.mark.gpu
def test_copy_to_gpu_and_back_carries_the_gradient(cupy):
    x = Variable(numpy.arange(3, dtype=numpy.float32))
    y = copy(x, 0)
    assert isinstance(y.array, cupy.ndarray)
    y.grad = cupy.ones(3, numpy.float32)
    y.backward()
    assert isinstance(x.grad, numpy.ndarray)
    numpy.testing.assert_array_equal(x.grad, numpy.ones(3))
    z = copy(y, "@numpy")
    assert isinstance(z.array, numpy.ndarray)
    numpy.testing.assert_array_equal(z.array, numpy.arange(3))
