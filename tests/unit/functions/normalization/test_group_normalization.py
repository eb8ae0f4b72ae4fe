"""group_normalization: values, mixed precision, first and second order gradients, devices."""

from __future__ import annotations

import warnings

import numpy
import pytest
from gradient_paths import LabelRecorder, gradients_under_a_hook

import chainer_compat
from chainer_compat import Variable, gradient_check
from chainer_compat.functions.normalization.group_normalization import group_normalization


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _reference(x, groups, gamma, beta, eps):
    n, c = x.shape[:2]
    grouped = x.astype(numpy.float64).reshape(n, groups, -1)
    normalized = (grouped - grouped.mean(axis=2, keepdims=True)) / numpy.sqrt(
        grouped.var(axis=2, keepdims=True) + eps)
    return (normalized.reshape(n, c, -1) * gamma[:, None] + beta[:, None]).reshape(x.shape)


@pytest.mark.parametrize("shape,groups", [((2, 6), 3), ((3, 4, 5), 1), ((2, 8, 2, 3), 8)])
def test_forward_matches_numpy(xp, shape, groups):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal(shape).astype(numpy.float32)
    gamma = rng.uniform(0.5, 1.5, shape[1]).astype(numpy.float32)
    beta = rng.standard_normal(shape[1]).astype(numpy.float32)
    y = group_normalization(xp.asarray(x), groups, xp.asarray(gamma), xp.asarray(beta))
    assert y.dtype == numpy.float32
    numpy.testing.assert_allclose(_host(y.array), _reference(x, groups, gamma, beta, 1e-5),
                                  rtol=1e-4, atol=1e-5)


def test_float16_input_with_float32_parameters_keeps_input_dtype():
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((2, 4, 3)).astype(numpy.float16)
    gamma, beta = numpy.ones(4, numpy.float32), numpy.zeros(4, numpy.float32)
    y = group_normalization(x, 2, gamma, beta)
    assert y.dtype == numpy.float16
    numpy.testing.assert_allclose(y.array, _reference(x, 2, gamma, beta, 1e-5), atol=3e-3)


def test_gradients_of_first_and_second_order():
    rng = numpy.random.default_rng(2)
    x = rng.standard_normal((2, 6, 3))
    gamma, beta = rng.uniform(0.5, 1.5, 6), rng.standard_normal(6)

    def function(x, gamma, beta):
        return group_normalization(x, 3, gamma, beta, eps=1e-2)

    gy = rng.standard_normal(x.shape)
    gradient_check.check_backward(function, (x, gamma, beta), gy)
    gradient_check.check_double_backward(
        function, (x, gamma, beta), gy,
        (rng.standard_normal(x.shape), rng.standard_normal(6), rng.standard_normal(6)))


def test_second_order_gradient_of_x_alone():
    # Compat: Chainer's _ScaleShiftGrad fails here, as gamma's and beta's gradients are not
    # differentiated again; ours treats their missing gradients as zero.
    rng = numpy.random.default_rng(3)
    gamma, beta = rng.uniform(0.5, 1.5, 4), rng.standard_normal(4)

    def function(x):
        return group_normalization(x, 2, gamma, beta, eps=1e-2)

    x = rng.standard_normal((3, 4, 2))
    gradient_check.check_double_backward(
        function, x, rng.standard_normal(x.shape), rng.standard_normal(x.shape))


@pytest.mark.parametrize("x_dtype, parameter_dtype, casts", [
    (numpy.float32, numpy.float32, []), (numpy.float16, numpy.float32, ["Cast"])])
def test_a_hook_sees_chainers_gradient_nodes(x_dtype, parameter_dtype, casts):
    rng = numpy.random.default_rng(4)
    arrays = [rng.standard_normal((3, 4, 5)).astype(x_dtype)] + [
        rng.standard_normal(4).astype(parameter_dtype) for _ in range(2)]
    gy = rng.standard_normal((3, 4, 5)).astype(x_dtype)
    plain, hooked, labels = gradients_under_a_hook(
        lambda x, gamma, beta: group_normalization(x, 2, gamma, beta), arrays, gy)
    # Chainer 7.8.1's sequence: its three gradient nodes between two Reshapes, x and gy cast
    # to the parameters' dtype and the gradient back to x's.
    assert labels == (["Reshape"] + casts + ["_XHat"] + casts
                      + ["_ScaleShiftGrad", "_XHatGrad", "Reshape"] + casts)
    assert [g.dtype for g in plain] == [x_dtype, parameter_dtype, parameter_dtype]
    for gradient, under_hook in zip(plain, hooked):
        numpy.testing.assert_array_equal(gradient, under_hook)


def test_channel_count_not_divisible_by_groups_names_both():
    with pytest.raises(ValueError, match="channels 6 is not divisible by 'groups' argument 4"):
        group_normalization(numpy.zeros((1, 6, 2)), 4, numpy.ones(6), numpy.zeros(6))


def test_float16_sums_that_overflow_give_way_to_float32_sums():
    # Compat: Chainer's float16 sums of these groups overflow (its output is NaN); ours take
    # those means from float32 sums instead, rounded to float16.
    rng = numpy.random.RandomState(0)
    x = rng.uniform(40, 60, (2, 4, 32, 32)).astype(numpy.float16)
    gamma, beta = numpy.ones(4, numpy.float16), numpy.zeros(4, numpy.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the float16 overflows are ours to handle
        y = group_normalization(x, 2, gamma, beta)
    expected = group_normalization(x.astype(numpy.float32), 2, gamma.astype(numpy.float32),
                                   beta.astype(numpy.float32))
    assert y.dtype == numpy.float16
    numpy.testing.assert_allclose(y.array, expected.array, atol=2e-2)


def test_a_recording_backward_applies_chainers_nodes():
    rng = numpy.random.default_rng(6)
    inputs = [Variable(rng.standard_normal(shape).astype(numpy.float32))
              for shape in ((2, 4, 3), (4,), (4,))]
    y = group_normalization(inputs[0], 2, inputs[1], inputs[2])
    y.grad_var = Variable(numpy.ones(y.shape, numpy.float32))
    with LabelRecorder() as recorder:
        y.backward(enable_double_backprop=True)
    # Chainer 7.8.1 casts gamma, the grouped x, gy and the x gradient (no-op Casts, which
    # record nodes while backprop is on) but returns gamma's and beta's gradients as they are.
    assert recorder.labels == ["Cast", "Reshape", "Cast", "_XHat", "Cast", "_ScaleShiftGrad",
                               "_XHatGrad", "Reshape", "Cast"]


def test_scale_shift_double_backward_adds_each_term_as_it_is_built():
    rng = numpy.random.default_rng(7)
    inputs = [Variable(rng.standard_normal(shape).astype(numpy.float32))
              for shape in ((2, 4, 3), (4,), (4,))]
    grads = chainer_compat.grad(
        [group_normalization(inputs[0], 2, inputs[1], inputs[2])], inputs,
        [Variable(numpy.ones((2, 4, 3), numpy.float32))], enable_double_backprop=True)
    scale_shift = grads[1].creator
    assert scale_shift.label == "_ScaleShiftGrad"
    upstream = [Variable(rng.standard_normal(shape).astype(numpy.float32))
                for shape in ((4, 6), (4,), (4,))]
    with chainer_compat.no_backprop_mode(), LabelRecorder() as recorder:
        scale_shift.backward((0, 1, 2), upstream)
    # Chainer 7.8.1's _ScaleShiftGrad.backward: gy, x_hat and ggx_hat by channel; gamma's
    # term (ggamma[:, None] gy), the Sum for gamma's gradient, then ggx_hat gamma[:, None]
    # + ggamma[:, None] x_hat + ggbeta[:, None], each term added as it comes; x_hat's
    # gradient reshaped back (gy's already has its shape).
    assert recorder.labels == ["Reshape", "Reshape", "Reshape", "GetItem", "_ * _", "_ * _",
                               "Sum", "GetItem", "_ * _", "GetItem", "_ * _", "_ + _",
                               "GetItem", "_ + _", "Reshape"]
