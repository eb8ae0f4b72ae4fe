"""absolute_error, squared_error, mean_absolute_error and mean_squared_error: values against
NumPy, gradients of first and second order, and the type checks, one parametrized set for all."""

from __future__ import annotations

import warnings

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.loss.absolute_error import absolute_error
from chainer_compat.functions.loss.mean_absolute_error import mean_absolute_error
from chainer_compat.functions.loss.mean_squared_error import mean_squared_error
from chainer_compat.functions.loss.squared_error import squared_error
from chainer_compat.utils import type_check

# (function, class label, NumPy reference)
CASES = [
    (absolute_error, "AbsoluteError", lambda a, b: abs(a - b)),
    (mean_absolute_error, "MeanAbsoluteError", lambda a, b: abs(a - b).mean()),
    (mean_squared_error, "MeanSquaredError", lambda a, b: ((a - b) ** 2).mean()),
    (squared_error, "SquaredError", lambda a, b: (a - b) ** 2),
]
IDS = ["AbsoluteError", "MeanAbsoluteError", "MeanSquaredError", "SquaredError"]


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _inputs(rng, dtype, shape=(3, 4)):
    x0 = rng.uniform(-1, 1, shape)
    # Keep |x0 - x1| away from 0, where the absolute value has its kink.
    x1 = x0 + rng.choice([-1, 1], shape) * rng.uniform(0.2, 1, shape)
    return x0.astype(dtype), x1.astype(dtype)


@pytest.mark.parametrize("function, label, reference", CASES, ids=IDS)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3, 4), (2, 1, 3)])
def test_forward_matches_numpy(xp, function, label, reference, dtype, shape):
    x0, x1 = _inputs(numpy.random.default_rng(0), dtype, shape)
    y = function(xp.asarray(x0), xp.asarray(x1))
    expected = reference(x0.astype(numpy.float64), x1.astype(numpy.float64))
    assert y.dtype == dtype and y.shape == numpy.shape(expected)
    tolerance = {"atol": 1e-2, "rtol": 1e-2} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(_host(y.array), expected, **tolerance)


@pytest.mark.parametrize("function, label, reference", CASES, ids=IDS)
def test_backward_and_double_backward_match_numerical(xp, function, label, reference):
    rng = numpy.random.default_rng(1)
    x0, x1 = (xp.asarray(a) for a in _inputs(rng, numpy.float64))
    out_shape = numpy.shape(reference(_host(x0), _host(x1)))
    gy = xp.asarray(rng.standard_normal(out_shape))
    grad_grads = tuple(xp.asarray(rng.standard_normal(x0.shape)) for _ in range(2))
    gradient_check.check_backward(function, (x0, x1), gy)
    gradient_check.check_double_backward(function, (x0, x1), gy, grad_grads)


@pytest.mark.parametrize("function, label, reference", CASES, ids=IDS)
def test_shape_mismatch_raises_invalid_type(function, label, reference):
    with pytest.raises(type_check.InvalidType, match=label + r"[\s\S]*x0\.shape == x1\.shape"):
        function(numpy.zeros((2, 3), "f"), numpy.zeros((3, 2), "f"))


@pytest.mark.parametrize("function, label, reference", CASES, ids=IDS)
def test_dtype_mismatch_raises_invalid_type(function, label, reference):
    with pytest.raises(type_check.InvalidType, match=r"x0\.dtype == x1\.dtype"):
        function(numpy.zeros(3, "f"), numpy.zeros(3, "d"))


@pytest.mark.parametrize("function, label, reference", CASES, ids=IDS)
def test_integer_inputs_raise_invalid_type(function, label, reference):
    with pytest.raises(type_check.InvalidType, match=r"x0\.dtype\.kind == f"):
        function(numpy.zeros(3, numpy.int32), numpy.zeros(3, numpy.int32))


def test_mean_squared_error_of_float16_does_not_overflow_on_large_sizes():
    x0 = numpy.full(70000, 2, numpy.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the float16 sum's overflow is ours to handle
        y = mean_squared_error(x0, numpy.zeros_like(x0))
    assert y.dtype == numpy.float16 and y.array == 4
