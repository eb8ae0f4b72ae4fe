"""slstm: values against a NumPy formula, gradients of first, second and third order, and type
errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import LabelRecorder

import chainer_compat
from chainer_compat import Variable, gradient_check
from chainer_compat.functions.rnn.slstm import SLSTM, SLSTMGrad, slstm
from chainer_compat.testing.array import assert_allclose
from chainer_compat.utils import type_check

FORWARD_TOLERANCE = {
    numpy.dtype(numpy.float16): {"atol": 5e-3, "rtol": 1e-2},
    numpy.dtype(numpy.float32): {"atol": 1e-6, "rtol": 1e-5},
    numpy.dtype(numpy.float64): {"atol": 1e-12, "rtol": 1e-12},
}
# (rows, units, trailing axes)
SHAPES = [(3, 2, ()), (1, 3, ()), (0, 2, ()), (2, 1, (3,))]


def _sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _slstm_reference(c_prev1, c_prev2, x1, x2):
    """``(c, h)`` with gate ``g`` of unit ``k`` at channel ``4k + g`` of each ``x``."""
    a1, i1, f1, o1 = (x1[:, gate::4] for gate in range(4))
    a2, i2, f2, o2 = (x2[:, gate::4] for gate in range(4))
    c = (numpy.tanh(a1) * _sigmoid(i1) + numpy.tanh(a2) * _sigmoid(i2)
         + _sigmoid(f1) * c_prev1 + _sigmoid(f2) * c_prev2)
    return c, _sigmoid(o1 + o2) * numpy.tanh(c)


def _inputs(shape, dtype, xp=numpy):
    batch, units, rest = shape
    c_shape, x_shape = (batch, units) + rest, (batch, 4 * units) + rest
    arrays = [numpy.random.uniform(-1, 1, c_shape), numpy.random.uniform(-1, 1, c_shape),
              numpy.random.uniform(-2, 2, x_shape), numpy.random.uniform(-2, 2, x_shape)]
    return tuple(xp.asarray(a.astype(dtype)) for a in arrays)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_values_match_numpy_formula(shape, dtype):
    inputs = _inputs(shape, dtype)
    c, h = slstm(*inputs)
    expected_c, expected_h = _slstm_reference(*(a.astype(numpy.float64) for a in inputs))
    assert c.dtype == dtype and h.dtype == dtype
    assert c.shape == h.shape == inputs[0].shape
    tolerance = FORWARD_TOLERANCE[numpy.dtype(dtype)]
    assert_allclose(c.array.astype(numpy.float64), expected_c, **tolerance)
    assert_allclose(h.array.astype(numpy.float64), expected_h, **tolerance)


@pytest.mark.parametrize("shape", SHAPES)
def test_first_and_second_order_gradients(shape, xp, check_gradients):
    inputs = _inputs(shape, numpy.float64, xp)
    check_gradients(slstm, inputs, slstm(*inputs))


@pytest.mark.parametrize("output", [0, 1])
def test_gradients_when_one_output_is_unused(output, check_gradients):
    inputs = _inputs((2, 2, ()), numpy.float64)

    def one_output(*inputs):
        return slstm(*inputs)[output]

    check_gradients(one_output, inputs, one_output(*inputs))


def test_nodeless_backward_matches_the_gradient_node():
    inputs = _inputs((3, 2, ()), numpy.float32)
    gc, gh = (numpy.random.uniform(-1, 1, (3, 2)).astype(numpy.float32) for _ in range(2))
    results = []
    for double in (False, True):
        variables = [Variable(a) for a in inputs]
        c, h = slstm(*variables)
        grads = chainer_compat.grad([c, h], variables, [Variable(gc), Variable(gh)],
                                    enable_double_backprop=double)
        assert (grads[2].creator is not None) == double
        if double:
            assert isinstance(grads[2].creator, SLSTMGrad)
        results.append([g.array for g in grads])
    for nodeless, with_node in zip(*results):
        numpy.testing.assert_allclose(nodeless, with_node, rtol=1e-6, atol=1e-7)


def test_third_order_gradients():
    inputs = _inputs((2, 2, ()), numpy.float64)
    gh = numpy.random.uniform(-1, 1, (2, 2))

    def input_grads(*variables):
        _, h = slstm(*variables)
        return tuple(chainer_compat.grad([h], list(variables), [Variable(gh)],
                                         enable_double_backprop=True))

    outputs = input_grads(*(Variable(a) for a in inputs))
    grad_outputs = tuple(numpy.random.uniform(-1, 1, y.shape) for y in outputs)
    grad_grads = tuple(numpy.random.uniform(-1, 1, a.shape) for a in inputs)
    gradient_check.check_double_backward(input_grads, inputs, grad_outputs, grad_grads,
                                         dtype=numpy.float64, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("shapes", [
    ((2, 3), (2, 3), (2, 12), (2, 11)),  # x2's channels are not 4 per unit
    ((2, 3), (3, 3), (2, 12), (2, 12)),  # batch sizes differ
    ((2, 3, 2), (2, 3, 2), (2, 12, 2), (2, 12, 1)),  # trailing axes differ
    ((2, 3), (2, 3), (2, 12), (2, 12, 1)),  # ranks differ
])
def test_mismatched_inputs_are_rejected(shapes):
    inputs = [numpy.zeros(shape, numpy.float32) for shape in shapes]
    with pytest.raises(type_check.InvalidType, match=r"SLSTM"):
        slstm(*inputs)


def test_dtype_mismatch_is_rejected():
    inputs = list(_inputs((2, 2, ()), numpy.float32))
    inputs[3] = inputs[3].astype(numpy.float64)
    with pytest.raises(type_check.InvalidType, match=r"x2\.dtype"):
        slstm(*inputs)


def test_class_lives_at_chainers_module_path():
    assert SLSTM.__module__ == "chainer_compat.functions.rnn.slstm"


def test_gradient_groups_its_products_as_chainer():
    # Chainer 7.8.1 multiplies each gate's derivative, computed on its own, into the rest:
    # (gc * tanh(a)) * (s * (1 - s)), which rounds differently from ((gc * tanh(a)) * s) * ...
    rng = numpy.random.default_rng(31)
    arrays = [rng.standard_normal(shape).astype(numpy.float32)
              for shape in ((3, 4), (3, 4), (3, 16), (3, 16))]
    inputs = [chainer_compat.Variable(a) for a in arrays]
    c, h = chainer_compat.functions.slstm(*inputs)
    gh = rng.standard_normal((3, 4)).astype(numpy.float32)
    h.grad = gh
    with LabelRecorder() as recorder:
        h.backward()
    assert recorder.labels == ["SLSTMGrad"]

    def gates(x):
        grouped = x.reshape(3, 4, 4)
        return [grouped[:, :, k] for k in range(4)]

    def logistic(x):
        return numpy.tanh(x * numpy.float32(0.5)) * numpy.float32(0.5) + numpy.float32(0.5)

    a1, i1, f1, o1 = gates(arrays[2])
    o2 = gates(arrays[3])[3]
    sig_o = logistic(o1 + o2)
    tanh_c = numpy.tanh(c.array)
    g_cell = gh * sig_o * (1 - tanh_c * tanh_c) + 0
    sig_i = logistic(i1)
    expected_gi = g_cell * numpy.tanh(a1) * (sig_i * (1 - sig_i))
    expected_go = gh * tanh_c * (sig_o * (1 - sig_o))
    numpy.testing.assert_array_equal(gates(inputs[2].grad)[1], expected_gi)
    numpy.testing.assert_array_equal(gates(inputs[2].grad)[3], expected_go)
