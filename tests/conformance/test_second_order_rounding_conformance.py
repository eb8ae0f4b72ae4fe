"""Second-order gradients round as Chainer's CPU code rounds them: each gradient node's backward
forms Chainer's expressions in Chainer's order, so double backprop through tanh, softplus,
softmax, sigmoid_cross_entropy, the batch normalizations, lstm and the constant operators gives
Chainer's bits. Each test writes that order out in NumPy. Set CHAINER_CONFORMANCE_TARGET=chainer
to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")

f32 = numpy.float32


def _draw(rng, *shapes, positive=False):
    arrays = [rng.standard_normal(shape).astype(f32) for shape in shapes]
    if positive:
        arrays = [numpy.abs(a) + f32(0.5) for a in arrays]
    return arrays


def _second_order(function, arrays, gy, directions):
    """Runs ``function`` on ``arrays``, takes its gradients ``g`` for the output gradient ``gy``
    with double backprop, then the gradients of ``sum(g * direction)`` for the inputs and gy.

    Returns the output, the first-order gradients and the second-order ones (inputs, then gy).
    """
    inputs = [chainer.Variable(a) for a in arrays]
    output = function(*inputs)
    gy_variable = chainer.Variable(gy)
    first = chainer.grad([output], inputs, grad_outputs=[gy_variable],
                         enable_double_backprop=True)
    used = [(g, d) for g, d in zip(first, directions) if d is not None]
    second = chainer.grad([g for g, _ in used], inputs + [gy_variable],
                          grad_outputs=[chainer.Variable(d) for _, d in used])
    return (output.array, [None if g is None else g.array for g in first],
            [None if g is None else g.array for g in second])


def _assert_bits(actual, expected):
    numpy.testing.assert_array_equal(actual, expected)
    assert actual.dtype == expected.dtype


def _sigmoid(x):
    half = x.dtype.type(0.5)
    return numpy.tanh(x * half) * half + half


def test_tanh_second_order_gradient_rounds_as_chainer():
    rng = numpy.random.RandomState(0)
    x, gy, d = _draw(rng, (4, 5), (4, 5), (4, 5))
    y, _, (grad_x, grad_gy) = _second_order(F.tanh, [x], gy, [d])
    # y * ggx is shared; the gradient for y is -2 gy (y ggx), then Tanh's backward maps it.
    y_times_d = y * d
    grad_y = (f32(-2) * gy) * y_times_d
    _assert_bits(grad_x, grad_y * (f32(1) - y * y))
    _assert_bits(grad_gy, d - y * y_times_d)


@pytest.mark.parametrize("beta", [1.0, 2.0])
def test_softplus_second_order_gradient_rounds_as_chainer(beta):
    rng = numpy.random.RandomState(1)
    x, gy, d = _draw(rng, (4, 5), (4, 5), (4, 5))
    _, _, (grad_x, grad_gy) = _second_order(lambda v: F.softplus(v, beta), [x], gy, [d])
    b = f32(beta)
    e = numpy.exp(b * x)
    _assert_bits(grad_x, (d * gy * b * e) / ((f32(1) + e) ** f32(2)))
    _assert_bits(grad_gy, (f32(1) - f32(1) / (f32(1) + numpy.exp(x * b))) * d)


@pytest.mark.parametrize("axis", [0, 1])
def test_softmax_second_order_gradient_rounds_as_chainer(axis):
    rng = numpy.random.RandomState(2)
    x, gy, d = _draw(rng, (4, 5), (4, 5), (4, 5))
    y, _, (grad_x, grad_gy) = _second_order(lambda v: F.softmax(v, axis=axis), [x], gy, [d])
    shifted = d - numpy.broadcast_to((d * y).sum(axis=axis, keepdims=True), y.shape)
    grad_y = shifted * gy - d * numpy.broadcast_to((y * gy).sum(axis=axis, keepdims=True),
                                                   y.shape)
    # Softmax's backward maps the gradient for y: y g - y sum(y g).
    expected_x = y * grad_y
    expected_x -= y * expected_x.sum(axis=axis, keepdims=True)
    _assert_bits(grad_x, expected_x)
    _assert_bits(grad_gy, shifted * y)


@pytest.mark.parametrize("normalize, reduce", [(True, "mean"), (False, "mean"), (True, "no")])
def test_sigmoid_cross_entropy_second_order_gradient_rounds_as_chainer(normalize, reduce):
    rng = numpy.random.RandomState(3)
    x, d = _draw(rng, (4, 5), (4, 5))
    t = rng.randint(-1, 2, (4, 5)).astype(numpy.int32)
    gy = rng.standard_normal(() if reduce == "mean" else (4, 5)).astype(f32)
    _, _, (grad_x, grad_gy) = _second_order(
        lambda v: F.sigmoid_cross_entropy(v, t, normalize=normalize, reduce=reduce), [x],
        numpy.asarray(gy), [d])
    mask = (t != -1).astype(f32)
    y = _sigmoid(x)
    expected_x = y * (f32(1) - y) * numpy.broadcast_to(gy, x.shape) * (d * mask)
    expected_gy = (y - t.astype(f32)) * (d * mask)
    if reduce == "mean":
        count = max(1, int(mask.sum())) if normalize else len(x)
        scale = f32(1.0 / count)
        expected_x = expected_x * scale
        expected_gy = numpy.asarray(expected_gy.sum() * scale)
    _assert_bits(grad_x, expected_x)
    _assert_bits(grad_gy, expected_gy)


def test_batch_normalization_second_order_gradients_round_as_chainer():
    rng = numpy.random.RandomState(4)
    x, gamma, beta, gy, hx, hgamma, hbeta = _draw(rng, (5, 3, 2, 2), (3,), (3,), (5, 3, 2, 2),
                                                   (5, 3, 2, 2), (3,), (3,))
    inputs = [chainer.Variable(a) for a in (x, gamma, beta)]
    output = F.batch_normalization(*inputs)
    mean, inv_std = output.creator.mean, output.creator.inv_std
    gy_variable = chainer.Variable(gy)
    first = chainer.grad([output], inputs, grad_outputs=[gy_variable],
                         enable_double_backprop=True)
    grad_x, grad_gamma, grad_gy = chainer.grad(
        list(first), [inputs[0], inputs[1], gy_variable],
        grad_outputs=[chainer.Variable(h) for h in (hx, hgamma, hbeta)])
    gx1, ggamma1 = first[0].array, first[1].array

    axis, lift = (0, 2, 3), (None, slice(None), None, None)
    inv_m = f32(1.0 / (x.size // gamma.size))
    r = (gx1 * hx).sum(axis=axis)
    coeff = gamma * inv_std
    coeff_m = coeff * inv_m
    x_hat = (x - mean[lift]) * inv_std[lift]
    hgamma2 = hgamma - coeff_m * (x_hat * hx).sum(axis=axis)
    hbeta2 = hbeta - coeff_m * hx.sum(axis=axis)
    gx_hat = hgamma2[lift] * gy - (coeff_m * ggamma1)[lift] * hx
    gstd = -inv_std * (r + (x_hat * gx_hat).sum(axis=axis))
    gmean = -inv_std * gx_hat.sum(axis=axis)
    _assert_bits(grad_x.array, inv_std[lift] * gx_hat
                 + inv_m * (gmean[lift] + x_hat * gstd[lift]))
    _assert_bits(grad_gamma.array, r / gamma)
    _assert_bits(grad_gy.array, hgamma2[lift] * x_hat + hbeta2[lift] + coeff[lift] * hx)


def test_fixed_batch_normalization_second_order_gradients_round_as_chainer():
    rng = numpy.random.RandomState(5)
    x, gamma, beta, mean, var, gy = _draw(rng, (5, 3), (3,), (3,), (3,), (3,), (5, 3))
    var = numpy.abs(var) + f32(0.5)
    hx, hgamma, hbeta, hmean, hvar = _draw(rng, (5, 3), (3,), (3,), (3,), (3,))
    inputs = [chainer.Variable(a) for a in (x, gamma, beta, mean, var)]
    output = F.fixed_batch_normalization(*inputs)
    gy_variable = chainer.Variable(gy)
    first = chainer.grad([output], inputs, grad_outputs=[gy_variable],
                         enable_double_backprop=True)
    targets = [inputs[0], inputs[1], inputs[3], inputs[4], gy_variable]
    grad_x, grad_gamma, grad_mean, grad_var, grad_gy = (g.array for g in chainer.grad(
        list(first), targets,
        grad_outputs=[chainer.Variable(h) for h in (hx, hgamma, hbeta, hmean, hvar)]))
    _, ggamma1, gbeta1, _, _ = (g.array for g in first)

    axis, lift = (0,), (None, slice(None))
    inv_var = numpy.reciprocal(var + 2e-5)
    inv_std = numpy.sqrt(inv_var)
    gamma_over_std = gamma * inv_std
    x_hat = (x - mean[lift]) * inv_std[lift]
    half_hvar = f32(-0.5) * hvar
    gamma_over_var = gamma * inv_var
    hgamma2 = hgamma + half_hvar * gamma_over_var
    gx_hat = gy * hgamma2[lift]
    by_gamma_over_std = (hx * gy).sum(axis=axis) - hmean * gbeta1
    hbeta2 = hbeta - hmean * gamma_over_std
    expected_gamma = inv_var * (half_hvar * ggamma1) + inv_std * by_gamma_over_std
    _assert_bits(grad_x, inv_std[lift] * gx_hat)
    _assert_bits(grad_gamma, expected_gamma)
    _assert_bits(grad_mean, -inv_std * gx_hat.sum(axis=axis))
    _assert_bits(grad_var, -(expected_gamma * gamma_over_var + f32(0.5) * inv_var * (
        (x_hat * gx_hat).sum(axis=axis) - gamma_over_std * by_gamma_over_std)))
    _assert_bits(grad_gy, hgamma2[lift] * x_hat + hbeta2[lift] + gamma_over_std[lift] * hx)


def _gates(x):
    grouped = x.reshape((x.shape[0], x.shape[1] // 4, 4) + x.shape[2:])
    return [grouped[:, :, gate] for gate in range(4)]


def test_lstm_second_order_gradients_round_as_chainer():
    rng = numpy.random.RandomState(6)
    c_prev, x, gh, gg_c, gg_x = _draw(rng, (3, 4), (3, 16), (3, 4), (3, 4), (3, 16))
    _, _, (grad_c, grad_x, grad_gh) = _second_order(
        lambda c, v: F.lstm(c, v)[1], [c_prev, x], gh, [gg_c, gg_x])
    c_next = F.lstm(c_prev, x)[0].array  # the same step again, for its cell state

    one, two = f32(1), f32(2)
    a, i, f, o = _gates(x)
    gga, ggi, ggf, ggo = _gates(gg_x)
    sig_o, sig_i, sig_f = _sigmoid(o), _sigmoid(i), _sigmoid(f)
    d_o, d_i, d_f = (s * (one - s) for s in (sig_o, sig_i, sig_f))
    dd_o, dd_i, dd_f = (s * (one - s) * (one - two * s) for s in (sig_o, sig_i, sig_f))
    tanh_a, tanh_c = numpy.tanh(a), numpy.tanh(c_next)
    d_a, d_c = one - tanh_a * tanh_a, one - tanh_c * tanh_c
    dd_a, dd_c = f32(-2) * tanh_a * d_a, f32(-2) * tanh_c * d_c
    total = gh * sig_o * d_c + f32(0)
    expected_c = ggf * total * d_f
    g_total = gg_c * sig_f + gga * sig_i * d_a + ggi * tanh_a * d_i + ggf * c_prev * d_f
    expected_x = numpy.empty_like(x)
    ga, gi, gf, go = _gates(expected_x)
    ga[...] = (gga * sig_i * dd_a + ggi * d_a * d_i) * total
    gi[...] = (gga * d_a * d_i + ggi * tanh_a * dd_i) * total
    gf[...] = gg_c * (gh * sig_o * d_c + f32(0)) * d_f + ggf * total * c_prev * dd_f
    go[...] = g_total * (gh * d_o * d_c) + ggo * gh * tanh_c * dd_o
    grad_c_next = g_total * (gh * sig_o * dd_c) + ggo * gh * d_c * d_o
    # grad_c_next flows back through the lstm step, adding to the gradients of c_prev and x.
    through = f32(0) * sig_o * d_c + grad_c_next
    step_x = numpy.empty_like(x)
    sa, si, sf, so = _gates(step_x)
    sa[...] = through * sig_i * d_a
    si[...] = through * tanh_a * d_i
    sf[...] = through * c_prev * d_f
    so[...] = f32(0) * tanh_c * d_o
    _assert_bits(grad_c, expected_c + through * sig_f)
    _assert_bits(grad_x, expected_x + step_x)
    _assert_bits(grad_gh, g_total * sig_o * d_c + ggo * tanh_c * d_o)


def test_power_by_a_constant_second_order_gradient_rounds_as_chainer():
    rng = numpy.random.RandomState(7)
    x, gy, d = _draw(rng, (4, 5), (4, 5), (4, 5))
    _, _, (grad_x, grad_gy) = _second_order(lambda v: v ** 3, [x], gy, [d])
    _assert_bits(grad_x, d * f32(3) * gy * f32(2) * x ** f32(1))
    _assert_bits(grad_gy, d * f32(3) * x ** f32(2))


def test_constant_to_a_power_second_order_gradient_rounds_as_chainer():
    rng = numpy.random.RandomState(8)
    x, gy, d = _draw(rng, (4, 5), (4, 5), (4, 5))
    y, _, (grad_x, grad_gy) = _second_order(lambda v: 2.0 ** v, [x], gy, [d])
    log_two = f32(numpy.log(2.0))
    scaled = log_two * d
    # The gradient for y goes back through 2 ** x's own backward: log(2) y g.
    _assert_bits(grad_x, log_two * y * (scaled * gy))
    _assert_bits(grad_gy, scaled * y)


def test_constant_over_variable_second_order_gradient_rounds_as_chainer():
    rng = numpy.random.RandomState(9)
    x, = _draw(rng, (4, 5), positive=True)
    gy, d = _draw(rng, (4, 5), (4, 5))
    _, _, (grad_x, grad_gy) = _second_order(lambda v: 1.0 / v, [x], gy, [d])
    _assert_bits(grad_x, d * f32(2) * f32(1) * gy / (x ** f32(3)))
    _assert_bits(grad_gy, d * -f32(1) / (x ** f32(2)))


def test_lstm_output_gate_gradient_without_gh_carries_the_sign_of_tanh_c():
    # With only c used, the output gate's gradient is a zero times tanh(c): -0 where c < 0.
    # The second-order gradients above add it in, so its sign shows in their bits.
    rng = numpy.random.RandomState(10)
    c_prev, x, gc = _draw(rng, (3, 4), (3, 16), (3, 4))
    x_variable = chainer.Variable(x)
    c_next, _ = F.lstm(c_prev, x_variable)
    c_next.grad = gc
    c_next.backward()
    go = _gates(x_variable.grad)[3]
    numpy.testing.assert_array_equal(go, numpy.zeros_like(go))
    numpy.testing.assert_array_equal(numpy.signbit(go), numpy.signbit(numpy.tanh(c_next.array)))
