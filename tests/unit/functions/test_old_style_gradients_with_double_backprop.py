"""Functions that are old-style in Chainer give the same first-order gradients with double
backprop on as without it, and those gradients can still be differentiated (NOTE [old-style
gradients] in functions/_old_style.py)."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
import chainer_compat.functions as F

_RNG = numpy.random.RandomState(0)


def _uniform(*shape, dtype=numpy.float32):
    return numpy.asarray(_RNG.uniform(-2, 2, shape), dtype)


CASES = {
    "decov": (F.decov, lambda: [_uniform(4, 3)]),
    "hinge": (lambda x: F.hinge(x, numpy.array([0, 1, 2, 0], numpy.int32)),
              lambda: [_uniform(4, 3)]),
    "squared_hinge": (lambda x: F.hinge(x, numpy.array([2, 1, 0, 0], numpy.int32), "L2"),
                      lambda: [_uniform(4, 3)]),
    "tree_lstm": (lambda c1, c2, x: F.tree_lstm(c1, c2, x)[1],
                  lambda: [_uniform(2, 3), _uniform(2, 3), _uniform(2, 15)]),
    "spatial_transformer_sampler": (
        F.spatial_transformer_sampler,
        lambda: [_uniform(1, 2, 4, 4), numpy.asarray(_RNG.uniform(-0.9, 0.9, (1, 2, 3, 3)),
                                                     numpy.float32)]),
    "batch_renormalization_float16": (
        lambda x, gamma, beta: F.batch_renormalization(
            x, gamma, beta, 2.0, 1.0, running_mean=numpy.zeros(3, numpy.float16),
            running_var=numpy.ones(3, numpy.float16)),
        lambda: [_uniform(8, 3, dtype=numpy.float16), _uniform(3, dtype=numpy.float16),
                 _uniform(3, dtype=numpy.float16)]),
}


def _gradients(function, arrays, gy, double):
    inputs = [chainer.Variable(array.copy()) for array in arrays]
    y = function(*inputs)
    y.grad = gy
    y.backward(enable_double_backprop=double)
    return inputs


@pytest.mark.parametrize("name", sorted(CASES))
def test_double_backprop_keeps_the_old_style_first_order_gradients(name):
    function, make = CASES[name]
    arrays = make()
    y = function(*[chainer.Variable(array) for array in arrays])
    gy = numpy.asarray(_RNG.uniform(-1, 1, y.shape), y.dtype)
    plain = _gradients(function, arrays, gy, False)
    double = _gradients(function, arrays, gy, True)
    for a, b in zip(plain, double):
        assert (a.grad is None) == (b.grad is None)
        if a.grad is not None:
            assert a.grad.tobytes() == b.grad.tobytes()
            assert a.grad_var.creator is None and b.grad_var.creator is not None
    # ... and the double-backprop gradients are differentiable: a second order flows back
    # (hinge's L1 gradient is piecewise constant: nothing flows there).
    grads = [x.grad_var for x in double if x.grad is not None]
    for x in double:
        x.cleargrad()
    sum(F.sum(g * g) for g in grads).backward()
    reached = [x.grad is not None for x in double]
    assert any(reached) == (name != "hinge")
