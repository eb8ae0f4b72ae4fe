"""normalize: values against NumPy over one or two axes, zero rows, gradients, errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import LabelRecorder

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.normalization.l2_normalization import normalize
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape, axis", [((3, 4), 1), ((3, 4), 0), ((2, 3, 4), (1, 2)),
                                         ((2, 3, 4), -1)])
def test_forward_matches_numpy(xp, dtype, shape, axis):
    x = numpy.random.default_rng(0).standard_normal(shape).astype(dtype)
    y = normalize(xp.asarray(x), eps=1e-5, axis=axis)
    x64 = x.astype(numpy.float64)
    norm = numpy.sqrt((x64 ** 2).sum(axis=axis, keepdims=True))
    assert y.dtype == dtype and y.shape == shape
    tolerance = {"atol": 2e-3, "rtol": 2e-3} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(_host(y.array), x64 / (norm + 1e-5), **tolerance)


@pytest.mark.parametrize("axis", [1, (0, 1)])
def test_backward_and_double_backward_match_numerical(xp, axis):
    rng = numpy.random.default_rng(1)
    x, gy, ggx = (xp.asarray(rng.standard_normal((3, 4))) for _ in range(3))

    def f(x):
        return normalize(x, axis=axis)

    gradient_check.check_backward(f, x, gy)
    gradient_check.check_double_backward(f, x, gy, ggx)


def test_zero_row_has_finite_gradient():
    x = chainer_compat.Variable(numpy.array([[0.0, 0.0], [3.0, 4.0]]))
    y = normalize(x, eps=0.5)
    y.grad = numpy.ones((2, 2))
    y.backward()
    assert numpy.isfinite(x.grad).all()
    # At x = 0 the map is x / eps near zero: its gradient is 1 / eps.
    numpy.testing.assert_allclose(x.grad[0], [2.0, 2.0])


def test_a_hook_sees_chainers_gradient_nodes():
    rng = numpy.random.default_rng(2)
    x = chainer_compat.Variable(rng.standard_normal((3, 4)).astype(numpy.float32))
    y = normalize(x)
    plain_gy = rng.standard_normal((3, 4)).astype(numpy.float32)
    y.grad = plain_gy
    y.backward()
    plain = x.grad.copy()
    x.cleargrad()
    y.grad = plain_gy
    with LabelRecorder() as recorder:
        y.backward()
    # Chainer 7.8.1's sequence: the projection is divided only where the norm is not zero.
    assert recorder.labels == [
        "square", "Sum", "sqrt", "_ + 1e-05", "_ * _", "Sum", "GetItem", "GetItem", "_ / _",
        "_SetItemZero", "_ * _", "_ * _", "_ - _", "_ ** 2", "_ / _"]
    numpy.testing.assert_array_equal(x.grad, plain)


def test_zero_dimensional_input_over_all_axes():
    x = numpy.array(-2.0)
    y = normalize(x, eps=0.0, axis=None)
    assert y.shape == () and y.array == -1.0
    gradient_check.check_backward(lambda x: normalize(x, axis=None), x, numpy.array(1.5))


def test_integer_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"NormalizeL2[\s\S]*x\.dtype\.kind == f"):
        normalize(numpy.ones((2, 3), numpy.int32))


@pytest.mark.parametrize("shape, axis, bad_axis", [
    ((3,), 1, 1), ((2, 3), 2, 2), ((2, 3), -3, -3), ((2, 3), (0, 5), 5)])
def test_axis_out_of_range_raises_axis_error(shape, axis, bad_axis):
    # The default axis=1 on a 1-d x is the common case.
    kwargs = {} if axis == 1 else {"axis": axis}
    with pytest.raises(numpy.exceptions.AxisError, match=r"axis must be in \[") as info:
        normalize(numpy.ones(shape, numpy.float32), **kwargs)
    assert info.match(f"axis {bad_axis} is out of bounds for array of dimension {len(shape)}")
    assert isinstance(info.value, ValueError) and isinstance(info.value, IndexError)


def test_integer_input_is_type_checked_before_the_axis():
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind == f"):
        normalize(numpy.ones(3, numpy.int32))


def test_axis_none_normalizes_over_all_axes():
    x = chainer_compat.Variable(numpy.arange(1.0, 7.0).reshape(2, 3))
    y = normalize(x, eps=0.0, axis=None)
    numpy.testing.assert_allclose(y.array, x.array / numpy.sqrt((x.array ** 2).sum()))
    gradient_check.check_backward(lambda x: normalize(x, axis=None), x.array,
                                  numpy.ones((2, 3)))
