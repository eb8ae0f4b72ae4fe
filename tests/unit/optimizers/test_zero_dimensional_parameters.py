"""Shape-() parameters update as on Chainer's NumPy 1, where a 0-d float32 array met Python
numbers in float64 (NOTE [0-d arrays in updates] in utils/_numpy_scalars.py)."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
import chainer_compat.functions as F
from chainer_compat import optimizer, optimizer_hooks, optimizers

GRADS = [-0.124826, 0.783546, 0.927326]  # both dtypes round differently in float32 here


def _link(dtype):
    link = chainer.Link()
    with link.init_scope():
        link.w = chainer.Parameter(numpy.array(0.3, dtype))
    return link


def _train(optimizer, dtype, hook=None):
    link = _link(dtype)
    optimizer.setup(link)
    if hook is not None:
        optimizer.add_hook(hook)
    for g in GRADS:
        link.w.grad = numpy.array(g, dtype)
        optimizer.update()
    return link.w


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_momentum_sgd_takes_its_hyperparameters_in_double_precision(dtype):
    w = _train(optimizers.MomentumSGD(lr=0.01, momentum=0.9), dtype)
    # NumPy 1: v * 0.9 and 0.01 * g ran in float64, rounded back to the state's dtype once.
    data, v = dtype(0.3), dtype(0)
    for g in GRADS:
        v = dtype(numpy.float64(v) * 0.9)
        v = dtype(numpy.float64(v) - 0.01 * numpy.float64(dtype(g)))
        data = dtype(data + v)  # two 0-d arrays of one dtype: in that dtype
    assert w.array.dtype == dtype and w.array.shape == ()
    assert w.array.tobytes() == data.tobytes()
    assert w.update_rule.state["v"].tobytes() == v.tobytes()


def test_arrays_stay_plain_ndarrays_after_an_update():
    w = _train(optimizers.Adam(), numpy.float32, optimizer_hooks.Lasso(0.01))
    assert type(w.array) is numpy.ndarray and type(w.grad) is numpy.ndarray
    for value in w.update_rule.state.values():
        assert type(value) is numpy.ndarray and value.dtype == numpy.float32


@pytest.mark.parametrize("hook", [optimizer_hooks.GradientClipping(0.0338),
                                  optimizer_hooks.Lasso(0.0304)], ids=["clipping", "lasso"])
def test_hooks_on_a_zero_dimensional_gradient_compute_as_numpy_1(hook):
    # SGD with lr 1 applies the hooked gradient as it is: compare it with NumPy 1's float64.
    link = _link(numpy.float16)
    opt = optimizers.SGD(lr=1.0)
    opt.setup(link)
    opt.add_hook(hook)
    g = numpy.float16(0.37841796875)  # where float16 arithmetic rounds otherwise
    link.w.grad = numpy.array(g)
    opt.update()
    if isinstance(hook, optimizer_hooks.GradientClipping):
        hooked = numpy.float16(numpy.float64(g) * (0.0338 / numpy.sqrt(numpy.float64(g) ** 2)))
    else:
        hooked = numpy.float16(numpy.float64(g) + 0.0304 * 1.0)
    expected = numpy.float16(numpy.float64(numpy.float16(0.3)) - 1.0 * numpy.float64(hooked))
    assert link.w.array.tobytes() == expected.tobytes()


def test_a_numpy_float32_hyperparameter_stays_float32_for_a_0_d_parameter():
    # NumPy 1: numpy.float32(lr) times a 0-d float32 gradient stays float32, where a Python
    # float (or a float64 lr) took float64. The scalar set is remembered for such updates.
    rng = numpy.random.RandomState(1)
    differs = 0
    for _ in range(200):
        w0, lr, g = (numpy.float32(v) for v in (rng.randn(), rng.rand(), rng.randn()))
        link = _link(numpy.float32)
        link.w.array[...] = w0
        opt = optimizers.SGD(lr=lr)
        opt.setup(link)
        assert type(opt.lr) is float  # read back as a Python number, as before
        link.w.grad = numpy.array(g)
        opt.update()
        expected = numpy.float32(w0 - lr * g)
        assert link.w.array.tobytes() == expected.tobytes()
        differs += expected != numpy.float32(numpy.float64(w0) - float(lr) * numpy.float64(g))
    assert differs  # float32 and float64 products differ for some draws


def test_an_update_leaves_the_same_plain_arrays_everywhere():
    class AssigningRule(optimizer.UpdateRule):  # Chainer's own SGD writes param.data so
        def update_core_cpu(self, param):
            param.data -= 0.1 * param.grad

    class Assigning(optimizer.GradientMethod):
        def create_update_rule(self):
            return AssigningRule(self.hyperparam)

    link = _link(numpy.float32)
    original = link.w.array
    shared = link.copy()  # shares w's array
    y = F.exp(link.w) * link.w  # exp keeps its output, * its inputs: w's node keeps the array
    opt = Assigning()
    opt.setup(link)
    link.w.grad = numpy.array(0.5, numpy.float32)
    opt.update()
    assert link.w.array is original and shared.w.array is original
    assert type(link.w.node.data) is numpy.ndarray and type(link.w.grad) is numpy.ndarray
    assert link.w.array == numpy.float32(numpy.float64(numpy.float32(0.3)) - 0.1 * 0.5)
    momentum = optimizers.MomentumSGD()
    momentum.setup(link)
    link.w.grad = numpy.array(0.5, numpy.float32)
    momentum.update()
    velocity = link.w.update_rule.state["v"]
    link.w.grad = numpy.array(0.25, numpy.float32)
    momentum.update()
    assert link.w.update_rule.state["v"] is velocity and type(velocity) is numpy.ndarray
    assert y.creator is not None


def test_a_numpy_float32_weight_decay_rate_stays_float32_for_a_0_d_parameter():
    # As a hyperparameter: NumPy 1 added numpy.float32(rate) * w to a 0-d float32 gradient
    # in float32 (SGD with lr 1 then subtracts the hooked gradient as it is). (Lasso's rate
    # times a sign is exact in either dtype.)
    rng = numpy.random.RandomState(3)
    differs = 0
    for _ in range(200):
        w0, g, rate = (numpy.float32(v) for v in (rng.randn(), rng.randn(), rng.rand() * 0.1))
        link = _link(numpy.float32)
        link.w.array[...] = w0
        opt = optimizers.SGD(lr=1.0)
        opt.setup(link)
        opt.add_hook(optimizer_hooks.WeightDecay(rate))
        link.w.grad = numpy.array(g)
        opt.update()
        hooked = numpy.float32(g + rate * w0)
        expected = numpy.float32(numpy.float64(w0) - 1.0 * numpy.float64(hooked))
        assert link.w.array.tobytes() == expected.tobytes()
        differs += hooked != numpy.float32(numpy.float64(g) + float(rate) * numpy.float64(w0))
    assert differs
