"""The autograd core's public behaviour, the same on NumPy and on CuPy.

Each test takes the ``xp`` fixture, so it runs on NumPy everywhere and again on CuPy where there
is a CUDA device: Variable's gradient methods and device moves, the initial gradient of
backward, double backprop, debug mode's NaN check, forward_cpu/forward_gpu dispatch for both
kinds of function, the ctx API and the saved-array version checks.
"""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
import chainer_compat.functions as F
from chainer_compat import FunctionNode, Variable, backend
from chainer_compat.autograd import Function as CtxFunction
from chainer_compat.autograd import VersionMismatch, graph
from chainer_compat.function import Function


def _host(array):
    return backend.CpuDevice().send(array)


def test_a_variable_keeps_its_gradient_on_its_device(xp):
    x = Variable(xp.arange(3, dtype=numpy.float32))
    assert x.xp is xp
    assert str(x.device) == ("@numpy" if xp is numpy else "@cupy:0")
    with pytest.warns(DeprecationWarning, match="zerograd is deprecated"):
        x.zerograd()  # zeros on x's device
    assert isinstance(x.grad, xp.ndarray) and not _host(x.grad).any()
    x.addgrad(Variable(xp.ones(3, numpy.float32), grad=xp.full(3, 2, numpy.float32)))
    numpy.testing.assert_array_equal(_host(x.grad), [2, 2, 2])
    x.cleargrad()
    assert x.grad is None
    assert repr(x).startswith("variable(") and "2." in repr(x)


def test_moving_a_variable_moves_its_gradient_too(xp):
    x = Variable(xp.arange(3, dtype=numpy.float32))
    F.sum(x * x).backward()
    x.to_cpu()
    assert type(x.array) is numpy.ndarray and type(x.grad) is numpy.ndarray
    numpy.testing.assert_array_equal(x.grad, [0, 2, 4])
    x.to_device(backend.get_device_from_array(xp.zeros(1)))
    assert isinstance(x.array, xp.ndarray) and isinstance(x.grad, xp.ndarray)


def test_backward_of_a_scalar_starts_from_ones_on_its_device(xp):
    x = Variable(xp.asarray([1.0, -2.0, 3.0]))
    y = F.sum(x * x)
    assert y.grad is None
    y.backward()
    assert isinstance(x.grad, xp.ndarray)
    numpy.testing.assert_allclose(_host(x.grad), [2.0, -4.0, 6.0])


def test_double_backprop_gives_the_second_derivative(xp):
    x = Variable(xp.asarray([0.5, -1.0, 2.0]))
    y = F.sum(x * x * x)
    gx, = chainer.grad([y], [x], enable_double_backprop=True)
    numpy.testing.assert_allclose(_host(gx.array), 3 * numpy.array([0.5, -1.0, 2.0]) ** 2)
    ggx, = chainer.grad([F.sum(gx)], [x])
    assert isinstance(ggx.array, xp.ndarray)
    numpy.testing.assert_allclose(_host(ggx.array), [3.0, -6.0, 12.0])


def test_debug_mode_finds_a_nan_in_forward(xp):
    x = Variable(xp.asarray([-1.0, 1.0]))
    with (chainer.using_config("debug", True), numpy.errstate(invalid="ignore"),
          pytest.raises(RuntimeError, match="NaN")):
        F.log(x)


class _Dispatches(FunctionNode):
    """y = 3x, recording which of forward_cpu and forward_gpu ran."""

    def __init__(self):
        self.ran = []

    def forward_cpu(self, inputs):
        self.ran.append("cpu")
        return inputs[0] * 3,

    def forward_gpu(self, inputs):
        self.ran.append("gpu")
        return inputs[0] * 3,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 3,


class _OldStyleDispatches(Function):
    """An old-style y = x * x, recording which forward and backward ran."""

    def __init__(self):
        self.ran = []

    def forward_cpu(self, inputs):
        self.ran.append("forward_cpu")
        return inputs[0] * inputs[0],

    def forward_gpu(self, inputs):
        self.ran.append("forward_gpu")
        return inputs[0] * inputs[0],

    def backward_cpu(self, inputs, grad_outputs):
        self.ran.append("backward_cpu")
        return 2 * inputs[0] * grad_outputs[0],

    def backward_gpu(self, inputs, grad_outputs):
        self.ran.append("backward_gpu")
        return 2 * inputs[0] * grad_outputs[0],


def test_forward_dispatch_follows_the_array_type(xp):
    side = "cpu" if xp is numpy else "gpu"
    node = _Dispatches()
    x = Variable(xp.asarray([1.0, 2.0]))
    y, = node.apply((x,))
    F.sum(y).backward()
    assert node.ran == [side]
    numpy.testing.assert_allclose(_host(x.grad), [3.0, 3.0])

    function = _OldStyleDispatches()
    z = Variable(xp.asarray([1.0, 2.0]))
    F.sum(function(z)).backward()
    assert function.ran == [f"forward_{side}", f"backward_{side}"]
    numpy.testing.assert_allclose(_host(z.grad), [2.0, 4.0])


class _Scale(CtxFunction):
    """A ctx Function: y = a * b, with an integer index output that is not differentiable."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        index = (a > 0).astype(numpy.int32)
        ctx.mark_non_differentiable(index)
        assert ctx.needs_input_grad == (True, False)  # b was given as an array
        return a * b, index

    @staticmethod
    def backward(ctx, grad, grad_index):
        a, b = ctx.saved_tensors
        return grad * b, grad * a


def test_the_ctx_api_saves_and_differentiates_on_either_device(xp):
    a = Variable(xp.asarray([1.0, -2.0]))
    b = xp.asarray([3.0, 4.0])
    y, index = _Scale.apply(a, b)
    assert isinstance(y.array, xp.ndarray) and index.dtype == numpy.int32
    assert not index.requires_grad
    numpy.testing.assert_array_equal(_host(index.array), [1, 0])
    F.sum(y).backward()
    numpy.testing.assert_allclose(_host(a.grad), [3.0, 4.0])


def test_a_saved_array_changed_in_place_is_reported(xp):
    x = Variable(xp.asarray([1.0, 2.0, 3.0]))
    y = x * x  # keeps x's array for backward
    with chainer.using_config("check_saved_arrays", True):  # CuPy arrays: a device copy
        z = F.exp(y)  # keeps its output
    z.array[0] = 7.0
    with pytest.raises(VersionMismatch):
        F.sum(z).backward()


def test_an_announced_write_is_reported_on_either_device(xp):
    x = Variable(xp.asarray([1.0, 2.0, 3.0]))
    y = x * x
    graph.increment_version(x)
    with pytest.raises(VersionMismatch):
        F.sum(y).backward()


def test_retained_arrays_come_back_on_their_device(xp):
    x = Variable(xp.asarray([0.5, 1.5]))
    y = F.tanh(x)  # retains its output
    y.grad = xp.ones(2)
    y.backward()
    expected = 1 - numpy.tanh([0.5, 1.5]) ** 2
    assert isinstance(x.grad, xp.ndarray)
    numpy.testing.assert_allclose(_host(x.grad), expected)


def test_copy_between_the_host_and_the_device_carries_the_gradient_back(xp):
    x = Variable(xp.asarray([1.0, 2.0]))
    on_host = F.copy(x, -1)
    assert type(on_host.array) is numpy.ndarray
    F.sum(on_host * on_host).backward()
    assert isinstance(x.grad, xp.ndarray)
    numpy.testing.assert_allclose(_host(x.grad), [2.0, 4.0])
