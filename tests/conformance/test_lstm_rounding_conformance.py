"""lstm rounds as Chainer's CPU code does, so seeded runs print Chainer's losses to the last
bit: sigmoid(t) is tanh(t / 2) / 2 + 1 / 2, and each gate's gradient is the incoming gradient
times the other factor, times the activation's derivative computed on its own (y (1 - y) for
a sigmoid, 1 - y * y for tanh). Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on
Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def _sigmoid(x):
    half = x.dtype.type(0.5)
    return numpy.tanh(x * half) * half + half


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
@pytest.mark.parametrize("double", [False, True])
def test_cell_output_and_gradients_round_as_chainer(dtype, double):
    rng = numpy.random.RandomState(0)
    c_prev = (rng.standard_normal((6, 5)) * 2).astype(dtype)
    x = (rng.standard_normal((6, 20)) * 2).astype(dtype)
    gc, gh = (rng.standard_normal((6, 5)).astype(dtype) for _ in range(2))
    c_variable, x_variable = chainer.Variable(c_prev), chainer.Variable(x)
    c, h = F.lstm(c_variable, x_variable)

    # Gate g of unit k is channel 4 k + g: a (cell input), i, f, o.
    gates = x.reshape(6, 5, 4)
    tanh_a = numpy.tanh(gates[:, :, 0])
    sig_i, sig_f, sig_o = (_sigmoid(gates[:, :, g]) for g in (1, 2, 3))
    expected_c = tanh_a * sig_i + sig_f * c_prev
    tanh_c = numpy.tanh(expected_c)
    numpy.testing.assert_array_equal(c.array, expected_c)
    numpy.testing.assert_array_equal(h.array, sig_o * tanh_c)

    c.grad, h.grad = gc, gh
    chainer.backward([c, h], enable_double_backprop=double)
    gc_total = gh * sig_o * (1 - tanh_c * tanh_c) + gc
    expected_gx = numpy.stack([
        gc_total * sig_i * (1 - tanh_a * tanh_a),
        gc_total * tanh_a * (sig_i * (1 - sig_i)),
        gc_total * c_prev * (sig_f * (1 - sig_f)),
        gh * tanh_c * (sig_o * (1 - sig_o)),
    ], axis=2).reshape(x.shape)
    numpy.testing.assert_array_equal(x_variable.grad, expected_gx)
    numpy.testing.assert_array_equal(c_variable.grad, gc_total * sig_f)
