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


def _grad_of_grads_in_chainers_order(c_prev1, c_prev2, x1, x2, c, gc, gh, ggc_prev1,
                                     ggc_prev2, ggx1, ggx2):
    """SLSTMGrad's gradients for its seven inputs, one NumPy step for each of Chainer 7.8.1's
    (in slstm_grad_grad), with its derivatives taken at the activations' outputs."""
    dtype = x1.dtype.type
    one, two, half = dtype(1), dtype(2), dtype(0.5)

    def gates(x):
        return [x[:, k::4] for k in range(4)]

    def logistic(v):
        return numpy.tanh(v * half) * half + half

    def d_sigmoid(s):
        return s * (one - s)

    def dd_sigmoid(s):
        return s * (one - s) * (one - two * s)

    def d_tanh(t):
        return one - t * t

    def dd_tanh(t, d_t):
        return dtype(-2) * t * d_t

    o = gates(x1)[3] + gates(x2)[3]
    sig_o = logistic(o)
    tanh_c = numpy.tanh(c)
    gc_total = gh * sig_o * d_tanh(tanh_c) + gc
    per_cell, g_total = [], None
    for c_prev, x, ggc_prev, ggx in ((c_prev1, x1, ggc_prev1, ggx1),
                                     (c_prev2, x2, ggc_prev2, ggx2)):
        a, i, f, _ = gates(x)
        gga, ggi, ggf, _ = gates(ggx)
        sig_i, sig_f, tanh_a = logistic(i), logistic(f), numpy.tanh(a)
        g_c_prev = ggf * gc_total * d_sigmoid(sig_f)
        g_a = (gga * sig_i * dd_tanh(tanh_a, d_tanh(tanh_a))
               + ggi * d_tanh(tanh_a) * d_sigmoid(sig_i)) * gc_total
        g_i = (gga * d_tanh(tanh_a) * d_sigmoid(sig_i)
               + ggi * tanh_a * dd_sigmoid(sig_i)) * gc_total
        g_f = (ggc_prev * (gh * sig_o * d_tanh(tanh_c) + gc) * d_sigmoid(sig_f)
               + ggf * gc_total * c_prev * dd_sigmoid(sig_f))
        per_cell.append((g_c_prev, [g_a, g_i, g_f]))
        for term in (ggc_prev * sig_f, gga * sig_i * d_tanh(tanh_a),
                     ggi * tanh_a * d_sigmoid(sig_i), ggf * c_prev * d_sigmoid(sig_f)):
            g_total = term if g_total is None else g_total + term
    ggo = gates(ggx1)[3] + gates(ggx2)[3]
    g_o = (g_total * (gh * d_sigmoid(sig_o) * d_tanh(tanh_c))
           + ggo * gh * tanh_c * dd_sigmoid(sig_o))
    g_xs = []
    for x, (_, cell_grads) in zip((x1, x2), per_cell):
        g_x = numpy.empty_like(x)
        for k, grad in enumerate(cell_grads + [g_o]):
            g_x[:, k::4] = grad
        g_xs.append(g_x)
    g_c = (g_total * (gh * sig_o * dd_tanh(tanh_c, d_tanh(tanh_c)))
           + ggo * gh * d_tanh(tanh_c) * d_sigmoid(sig_o))
    g_gh = g_total * sig_o * d_tanh(tanh_c) + ggo * tanh_c * d_sigmoid(sig_o)
    return per_cell[0][0], per_cell[1][0], g_xs[0], g_xs[1], g_c, g_total, g_gh


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
@pytest.mark.parametrize("record_graph", [False, True])
def test_second_order_gradients_round_as_chainers(dtype, record_graph):
    rng = numpy.random.default_rng(21)
    arrays = [rng.uniform(-2, 2, shape).astype(dtype)
              for shape in ((3, 4), (3, 4), (3, 16), (3, 16))]
    g_outputs = [rng.uniform(-1, 1, (3, 4)).astype(dtype) for _ in range(2)]
    upstream = [rng.uniform(-1, 1, a.shape).astype(dtype) for a in arrays]
    inputs = [Variable(a) for a in arrays]
    c, h = slstm(*inputs)
    grads = chainer_compat.grad([c, h], inputs, [Variable(g) for g in g_outputs],
                                enable_double_backprop=True)
    node = grads[0].creator
    assert isinstance(node, SLSTMGrad)
    with chainer_compat.using_config("enable_backprop", record_graph), \
            LabelRecorder() as recorder:
        got = node.backward(tuple(range(7)), tuple(Variable(g) for g in upstream))
    expected = _grad_of_grads_in_chainers_order(*arrays, c.array, *g_outputs, *upstream)
    for grad, want in zip(got, expected):
        assert grad.dtype == want.dtype
        assert grad.array.tobytes() == want.tobytes()
    # NOTE [old-style gradients]: computed on arrays, as in Chainer, unless a graph is recorded.
    assert (recorder.labels != []) is record_graph
    assert all(grad.creator is None for grad in got) is not record_graph
