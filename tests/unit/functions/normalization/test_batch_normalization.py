"""batch_normalization and fixed_batch_normalization: values and running statistics against
NumPy, gradients of first and second order (both gradient paths), dtypes, and errors."""

from __future__ import annotations

import importlib
import warnings

import numpy
import pytest
from gradient_paths import LabelRecorder

import chainer_compat
from chainer_compat import Variable, gradient_check
from chainer_compat.functions.normalization.batch_normalization import (
    batch_normalization,
    fixed_batch_normalization,
)
from chainer_compat.utils import type_check

# By path: the package's attribute of that name may be the function.
batch_normalization_module = importlib.import_module(
    "chainer_compat.functions.normalization.batch_normalization")

# (x shape, gamma shape, axis)
LAYOUTS = [
    ((5, 3), (3,), None),
    ((3, 4, 2, 3), (4,), None),
    ((2, 3, 4, 2), (3, 4), None),
    ((3, 4, 2), (4,), (0, 2)),
    ((3, 4, 2), (3,), (1, 2)),
    ((4, 3, 2), (3, 2), 0),
]


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _reduction_axis(x_shape, gamma_shape, axis):
    if axis is None:
        return (0,) + tuple(range(len(gamma_shape) + 1, len(x_shape)))
    return (axis,) if isinstance(axis, int) else axis


def _expand(parameter, x_shape, reduced):
    shape = [1 if i in reduced else size for i, size in enumerate(x_shape)]
    return parameter.reshape(shape)


def _reference(x, gamma, beta, axis, eps):
    reduced = _reduction_axis(x.shape, gamma.shape, axis)
    mean = x.mean(axis=reduced, keepdims=True)
    var = x.var(axis=reduced, keepdims=True)
    normalized = (x - mean) / numpy.sqrt(var + eps)
    return (_expand(gamma, x.shape, reduced) * normalized
            + _expand(beta, x.shape, reduced)), x.mean(axis=reduced), x.var(axis=reduced)


def _fixed_reference(x, gamma, beta, mean, var, axis, eps):
    reduced = _reduction_axis(x.shape, gamma.shape, axis)
    expand = lambda a: _expand(a, x.shape, reduced)  # noqa: E731
    return expand(gamma) * (x - expand(mean)) / numpy.sqrt(expand(var) + eps) + expand(beta)


def _inputs(x_shape, gamma_shape, dtype=numpy.float64, seed=0):
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(x_shape).astype(dtype)
    gamma = rng.uniform(0.5, 1.5, gamma_shape).astype(dtype)
    beta = rng.standard_normal(gamma_shape).astype(dtype)
    return x, gamma, beta


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("eps", [2e-5, 0.5])
def test_forward_matches_numpy(xp, layout, dtype, eps):
    x_shape, gamma_shape, axis = layout
    x, gamma, beta = _inputs(x_shape, gamma_shape, dtype)
    y = batch_normalization(xp.asarray(x), xp.asarray(gamma), xp.asarray(beta), eps=eps,
                            axis=axis)
    assert y.dtype == dtype and y.shape == x_shape
    expected, _, _ = _reference(*(a.astype(numpy.float64) for a in (x, gamma, beta)), axis, eps)
    tolerance = {"atol": 2e-2, "rtol": 2e-2} if dtype == numpy.float16 else {"atol": 1e-5}
    numpy.testing.assert_allclose(_host(y.array).astype(numpy.float64), expected, **tolerance)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("decay", [0.9, 0.3])
def test_running_statistics_update_in_place_with_unbiased_variance(xp, layout, decay):
    x_shape, gamma_shape, axis = layout
    x, gamma, beta = _inputs(x_shape, gamma_shape)
    rng = numpy.random.default_rng(5)
    mean0, var0 = rng.standard_normal(gamma_shape), rng.uniform(0.5, 2, gamma_shape)
    running_mean, running_var = xp.array(mean0), xp.array(var0)  # copies
    mean_id, var_id = id(running_mean), id(running_var)
    batch_normalization(xp.asarray(x), xp.asarray(gamma), xp.asarray(beta),
                        running_mean=running_mean, running_var=running_var, decay=decay,
                        axis=axis)
    _, mean, var = _reference(x, gamma, beta, axis, 2e-5)
    count = x.size // gamma.size
    assert id(running_mean) == mean_id and id(running_var) == var_id
    numpy.testing.assert_allclose(_host(running_mean), decay * mean0 + (1 - decay) * mean)
    numpy.testing.assert_allclose(
        _host(running_var), decay * var0 + (1 - decay) * var * count / (count - 1))


def test_running_statistics_of_float32_update_from_float16_input():
    x, _, _ = _inputs((6, 3), (3,), numpy.float16)
    gamma, beta = numpy.ones(3, numpy.float32), numpy.zeros(3, numpy.float32)
    running_mean, running_var = numpy.zeros(3, numpy.float32), numpy.ones(3, numpy.float32)
    y = batch_normalization(x, gamma, beta, running_mean=running_mean, running_var=running_var)
    assert y.dtype == numpy.float16
    x64 = x.astype(numpy.float64)
    numpy.testing.assert_allclose(running_mean, 0.1 * x64.mean(axis=0), rtol=1e-5)
    numpy.testing.assert_allclose(running_var, 0.9 + 0.1 * x64.var(axis=0) * 6 / 5, rtol=1e-5)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gradients_match_numerical(xp, layout):
    x_shape, gamma_shape, axis = layout
    x, gamma, beta = (xp.asarray(a) for a in _inputs(x_shape, gamma_shape, seed=1))
    rng = numpy.random.default_rng(2)
    gy = xp.asarray(rng.standard_normal(x_shape))
    grad_grads = tuple(xp.asarray(rng.standard_normal(a.shape)) for a in (x, gamma, beta))

    def normalize(*inputs):
        return batch_normalization(*inputs, axis=axis)

    gradient_check.check_backward(normalize, (x, gamma, beta), gy)
    gradient_check.check_double_backward(normalize, (x, gamma, beta), gy, grad_grads)


def test_gradients_of_mixed_precision_match_numerical():
    x, _, _ = _inputs((5, 3), (3,), numpy.float16, seed=3)
    gamma, beta = numpy.full(3, 1.5, numpy.float32), numpy.zeros(3, numpy.float32)
    gy = numpy.random.default_rng(4).standard_normal((5, 3)).astype(numpy.float16)
    gradient_check.check_backward(batch_normalization, (x, gamma, beta), gy, dtype=numpy.float64,
                                  atol=5e-2, rtol=5e-2)


def _gradients(function, arrays, gy, double):
    variables = [Variable(a) for a in arrays]
    y = function(*variables)
    y.grad = gy
    y.backward(enable_double_backprop=double)
    return [v.grad for v in variables]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_gradients_without_nodes_equal_the_gradient_nodes(monkeypatch, layout, dtype):
    # NOTE [batch normalization gradients]: without a node, and through the Grad node that
    # double backprop records.
    taken = []
    original = batch_normalization_module.BatchNormalization._gradients_without_nodes

    def spy(self, *args):
        taken.append(True)
        return original(self, *args)

    monkeypatch.setattr(batch_normalization_module.BatchNormalization,
                        "_gradients_without_nodes", spy)
    x_shape, gamma_shape, axis = layout
    arrays = _inputs(x_shape, gamma_shape, dtype, seed=5)
    gy = numpy.random.default_rng(6).standard_normal(x_shape).astype(dtype)

    def normalize(*inputs):
        return batch_normalization(*inputs, axis=axis)

    fast = _gradients(normalize, arrays, gy, double=False)
    assert taken == [True]
    slow = _gradients(normalize, arrays, gy, double=True)
    assert taken == [True]
    rng = numpy.random.default_rng(7)
    statistics = (rng.standard_normal(gamma_shape).astype(dtype),
                  rng.uniform(0.5, 2, gamma_shape).astype(dtype))

    def fixed(*inputs):
        return fixed_batch_normalization(*inputs, axis=axis)

    fast += _gradients(fixed, arrays + statistics, gy, double=False)
    slow += _gradients(fixed, arrays + statistics, gy, double=True)
    for fast_grad, slow_grad in zip(fast, slow):
        assert fast_grad.dtype == slow_grad.dtype == dtype
        numpy.testing.assert_array_equal(fast_grad, slow_grad)  # the same arithmetic


@pytest.mark.parametrize("fixed", [False, True])
def test_backward_under_a_hook_applies_one_gradient_node(fixed):
    x, gamma, beta = (Variable(a) for a in _inputs((4, 3, 2), (3,), numpy.float32, seed=11))
    statistics = (Variable(numpy.zeros(3, numpy.float32)), Variable(numpy.ones(3, numpy.float32)))
    inputs = (x, gamma, beta) + (statistics if fixed else ())
    function = fixed_batch_normalization if fixed else batch_normalization
    gy = numpy.random.default_rng(12).standard_normal(x.shape).astype(numpy.float32)
    y = function(*inputs)
    y.grad = gy
    y.backward()
    plain = [v.grad.copy() for v in inputs]
    for v in inputs:
        v.cleargrad()
    hook = LabelRecorder()
    y.grad = gy
    with hook:
        y.backward()
    expected = "FixedBatchNormalizationGrad" if fixed else "BatchNormalizationGrad"
    assert hook.labels == [expected]  # not the ~20 operations that compute it
    for value, v in zip(plain, inputs):
        numpy.testing.assert_array_equal(v.grad, value)


@pytest.mark.parametrize("fixed", [False, True])
def test_second_order_gradients_pass_through_the_gradient_node(fixed):
    x, gamma, beta = (Variable(a) for a in _inputs((4, 3), (3,), numpy.float64, seed=13))
    statistics = (Variable(numpy.zeros(3)), Variable(numpy.full(3, 2.0)))
    inputs = (x, gamma, beta) + (statistics if fixed else ())
    y = (fixed_batch_normalization if fixed else batch_normalization)(*inputs)
    gx, g_gamma = chainer_compat.grad([y * y], [x, gamma], enable_double_backprop=True)
    assert gx.creator is g_gamma.creator  # one node gave both, as in Chainer
    assert gx.creator.label == ("FixedBatchNormalizationGrad" if fixed
                                else "BatchNormalizationGrad")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_fixed_forward_matches_numpy(xp, layout, dtype):
    x_shape, gamma_shape, axis = layout
    x, gamma, beta = _inputs(x_shape, gamma_shape, dtype)
    rng = numpy.random.default_rng(8)
    mean = rng.standard_normal(gamma_shape).astype(dtype)
    var = rng.uniform(0.5, 2, gamma_shape).astype(dtype)
    y = fixed_batch_normalization(*(xp.asarray(a) for a in (x, gamma, beta, mean, var)),
                                  eps=1e-3, axis=axis)
    assert y.dtype == dtype
    expected = _fixed_reference(*(a.astype(numpy.float64) for a in (x, gamma, beta, mean, var)),
                                axis, 1e-3)
    tolerance = {"atol": 2e-2, "rtol": 2e-2} if dtype == numpy.float16 else {"atol": 1e-5}
    numpy.testing.assert_allclose(_host(y.array).astype(numpy.float64), expected, **tolerance)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_fixed_gradients_match_numerical(xp, layout):
    x_shape, gamma_shape, axis = layout
    x, gamma, beta = _inputs(x_shape, gamma_shape, seed=9)
    rng = numpy.random.default_rng(10)
    inputs = tuple(xp.asarray(a) for a in (x, gamma, beta, rng.standard_normal(gamma_shape),
                                           rng.uniform(0.5, 2, gamma_shape)))
    gy = xp.asarray(rng.standard_normal(x_shape))
    grad_grads = tuple(xp.asarray(rng.standard_normal(a.shape)) for a in inputs)

    def normalize(*arrays):
        return fixed_batch_normalization(*arrays, axis=axis)

    gradient_check.check_backward(normalize, inputs, gy)
    gradient_check.check_double_backward(normalize, inputs, gy, grad_grads)


def test_batch_of_one_sample_warns_and_gives_zeros():
    x, gamma, _ = _inputs((1, 3), (3,))
    with pytest.warns(UserWarning, match="one sample"):
        y = batch_normalization(x, gamma, numpy.zeros(3))
    numpy.testing.assert_array_equal(y.array, numpy.zeros((1, 3)))


def test_single_entry_statistics_over_other_axes_warn():
    x, gamma, beta = _inputs((3, 1), (3,))
    with pytest.warns(UserWarning, match="one entry along every axis"):
        batch_normalization(x, gamma, beta, axis=1)


def test_batch_of_two_samples_does_not_warn():
    x, gamma, beta = _inputs((2, 3), (3,))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        batch_normalization(x, gamma, beta)


def test_train_keyword_raises_value_error():
    x, gamma, beta = _inputs((2, 3), (3,))
    with pytest.raises(ValueError, match="train argument is not supported anymore"):
        batch_normalization(x, gamma, beta, train=True)


def test_unknown_keyword_raises_type_error():
    x, gamma, beta = _inputs((2, 3), (3,))
    with pytest.raises(TypeError, match="batch_normalization.*'momentum'"):
        batch_normalization(x, gamma, beta, momentum=0.1)


@pytest.mark.parametrize("axis, message", [((1, 0), "ascending order"),
                                           (1.5, "axis must be int, tuple of int or None")])
def test_bad_axis_raises_runtime_error(axis, message):
    x, gamma, beta = _inputs((2, 3), (3,))
    with pytest.raises(RuntimeError, match=message):
        batch_normalization(x, gamma, beta, axis=axis)
    with pytest.raises(RuntimeError, match=message):
        fixed_batch_normalization(x, gamma, beta, gamma, gamma, axis=axis)


def test_parameters_of_the_wrong_length_raise_invalid_type():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"shape\[1\] == in_types\[1\]\.shape\[0\]"):
        batch_normalization(x, numpy.ones(4, numpy.float32), numpy.zeros(4, numpy.float32))


def test_gamma_and_beta_of_different_shapes_raise_invalid_type():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"in_types\[1\]\.shape == in_types\[2\]"):
        batch_normalization(x, numpy.ones(3, numpy.float32), numpy.zeros(2, numpy.float32))


def test_integer_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"dtype\.kind == f"):
        batch_normalization(numpy.zeros((2, 3), numpy.int32), numpy.ones(3, numpy.float32),
                            numpy.zeros(3, numpy.float32))


def test_fixed_statistics_of_the_wrong_shape_raise_invalid_type():
    x = numpy.zeros((2, 3), numpy.float32)
    gamma = numpy.ones(3, numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"in_types\[3\]\.shape == in_types\[1\]"):
        fixed_batch_normalization(x, gamma, gamma, numpy.zeros(4, numpy.float32), gamma)


def test_fixed_statistics_of_another_dtype_raise_invalid_type():
    x = numpy.zeros((2, 3), numpy.float32)
    gamma = numpy.ones(3, numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"in_types\[4\]\.dtype == in_types\[1\]"):
        fixed_batch_normalization(x, gamma, gamma, gamma, numpy.ones(3, numpy.float64))


def test_no_running_statistics_are_touched_without_backprop():
    x, gamma, beta = _inputs((4, 3), (3,))
    with chainer_compat.no_backprop_mode():
        y = batch_normalization(x, gamma, beta)
    assert y.creator is None
    expected, _, _ = _reference(x, gamma, beta, None, 2e-5)
    numpy.testing.assert_allclose(y.array, expected)


def test_float16_statistics_of_a_large_batch_do_not_overflow():
    # 65,536 values per channel: the float16 sum of their squared deviations overflows (and
    # Chainer's output with it); the variance comes from float32 sums instead.
    rng = numpy.random.RandomState(0)
    x = rng.normal(0, 1.5, (64, 2, 32, 32)).astype(numpy.float16)
    gamma = numpy.ones(2, numpy.float16)
    beta = numpy.zeros(2, numpy.float16)
    running_var = numpy.ones(2, numpy.float16)
    y = batch_normalization(x, gamma, beta, running_mean=numpy.zeros(2, numpy.float16),
                            running_var=running_var).array
    assert y.dtype == numpy.float16
    assert numpy.isfinite(running_var).all()
    assert abs(float(y.astype(numpy.float32).std()) - 1.0) < 0.01


def _float16_overflow_batch():
    # Channel 0 near 100 (its float16 sum overflows), channel 1 standard normal (no overflow),
    # channel 2 with standard deviation 10 (the sum of its squared deviations overflows).
    rng = numpy.random.RandomState(2)
    x = rng.standard_normal((40, 3, 5, 5)) * numpy.array([1, 1, 10])[:, None, None]
    x[:, 0] += 100
    return x.astype(numpy.float16), rng.standard_normal(x.shape).astype(numpy.float16)


def test_float16_sums_that_overflow_give_way_to_float32_sums_per_channel():
    x, gy = _float16_overflow_batch()
    gamma = numpy.array([1, 1.5, 0.5], numpy.float16)
    beta = numpy.array([0.25, -1, 2], numpy.float16)
    running_mean, running_var = numpy.zeros(3, numpy.float16), numpy.ones(3, numpy.float16)
    variables = [Variable(a) for a in (x, gamma, beta)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the float16 overflows are ours to handle
        y = batch_normalization(*variables, running_mean=running_mean,
                                running_var=running_var)
        y.grad = gy
        y.backward()
    # Where Chainer's sums stay finite, the channel's results are those it has in a batch
    # without overflows.
    tame = x.copy()
    tame[:, 0] -= 100
    tame[:, 2] /= 10
    tame_variables = [Variable(a) for a in (tame, gamma, beta)]
    y_tame = batch_normalization(*tame_variables)
    y_tame.grad = gy
    y_tame.backward()
    numpy.testing.assert_array_equal(y.array[:, 1], y_tame.array[:, 1])
    numpy.testing.assert_array_equal(variables[0].grad[:, 1], tame_variables[0].grad[:, 1])
    numpy.testing.assert_array_equal(variables[1].grad[1], tame_variables[1].grad[1])
    # Elsewhere the values are those of float32 statistics, not inf or NaN (to the rounding of
    # a float16 mean near 100: 1/32).
    wide = [Variable(a.astype(numpy.float32)) for a in (x, gamma, beta)]
    wide_running_mean = numpy.zeros(3, numpy.float32)
    wide_running_var = numpy.ones(3, numpy.float32)
    y_wide = batch_normalization(*wide, running_mean=wide_running_mean,
                                 running_var=wide_running_var)
    y_wide.grad = gy.astype(numpy.float32)
    y_wide.backward()
    numpy.testing.assert_allclose(y.array, y_wide.array, atol=4e-2, rtol=1e-2)
    numpy.testing.assert_allclose(variables[0].grad, wide[0].grad, atol=4e-2, rtol=1e-2)
    # Channel 0's gamma gradient carries that rounding times its beta gradient (about 70).
    assert numpy.isfinite(variables[1].grad).all()
    numpy.testing.assert_allclose(variables[1].grad[1:], wide[1].grad[1:], atol=0.1, rtol=1e-2)
    numpy.testing.assert_allclose(running_mean, wide_running_mean, rtol=1e-2)
    numpy.testing.assert_allclose(running_var, wide_running_var, rtol=1e-2)


def test_float16_statistics_of_a_channel_holding_nan_stay_nan():
    x, _ = _float16_overflow_batch()
    x[3, 1, 2, 2] = numpy.nan
    y = batch_normalization(x, numpy.ones(3, numpy.float16), numpy.zeros(3, numpy.float16))
    assert numpy.isnan(y.array[:, 1]).all()
    assert numpy.isfinite(y.array[:, [0, 2]]).all()


def test_float16_batch_mean_is_numpy_float16_mean():
    # Chainer's own call; NumPy 1 and 2 round it alike while the float16 sum stays finite.
    x = numpy.random.RandomState(3).standard_normal((6, 4, 3, 3)).astype(numpy.float16)
    node = batch_normalization_module.BatchNormalization()
    node.apply((x, numpy.ones(4, numpy.float16), numpy.zeros(4, numpy.float16)))
    numpy.testing.assert_array_equal(node.mean, x.mean(axis=(0, 2, 3), dtype=numpy.float16))


@pytest.mark.parametrize("samples, chainers", [(1000, True), (4000, False)])
def test_float16_statistics_that_saturate_give_way_to_float32_sums(samples, chainers):
    # Over the batch axis of a 2-d x NumPy's float16 sum rounds after every sample: at 1,000
    # samples Chainer's mean is a little off and kept; at 4,000 it has saturated (about 2.1
    # for values near 3) and ours takes the float32 sums (NOTE [float16 statistics]).
    x = (3 + 0.5 * numpy.random.RandomState(4).standard_normal((samples, 3))).astype(
        numpy.float16)
    node = batch_normalization_module.BatchNormalization()
    node.apply((x, numpy.ones(3, numpy.float16), numpy.zeros(3, numpy.float16)))
    chainer_mean = x.mean(axis=0, dtype=numpy.float16)
    true_mean = x.astype(numpy.float64).mean(axis=0)
    if chainers:
        numpy.testing.assert_array_equal(node.mean, chainer_mean)
    else:
        assert numpy.abs(chainer_mean - true_mean).max() > 0.5
        numpy.testing.assert_allclose(node.mean, true_mean, rtol=2e-3)
