"""Shape-() parameters update as on Chainer's NumPy 1, where a 0-d float32 array met Python
numbers in float64 (NOTE [0-d arrays in updates] in utils/_numpy_scalars.py)."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import optimizer_hooks, optimizers

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
