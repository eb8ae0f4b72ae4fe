"""cast: values between dtypes, gradients cast back, the no-backprop shortcut."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import LabelRecorder

from chainer_compat import Variable, no_backprop_mode
from chainer_compat.functions.array.cast import Cast, cast

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("target", FLOAT_DTYPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients(dtype, target, uniform, check_function):
    x = uniform((3, 2), dtype)
    half = numpy.float16 in (dtype, target)
    # The coarser of the two dtypes bounds the precision of the check.
    if half:
        tolerance = {"atol": 5e-2, "rtol": 1e-1}
    elif numpy.float32 in (dtype, target):
        tolerance = {"atol": 1e-3, "rtol": 1e-3}
    else:
        tolerance = None
    # The output dtype is fixed by ``target``, so the checks run in the inputs' own dtypes;
    # second differences in float16 are noise, so the double check runs above it only. Cast is
    # linear, so a large step costs no accuracy, while float16 would round a step of 1e-3 by up
    # to a quarter (its spacing near 0.4 is 2**-12): that failed on CuPy once in a few runs.
    check_function(lambda x: cast(x, target), (x,), lambda x: x.astype(target),
                   grad_tolerance=tolerance, check_dtype=None, double=not half,
                   eps=2 ** -2 if half else 1e-3)


def test_gradient_comes_back_in_the_input_dtype():
    x = Variable(numpy.ones(3, numpy.float32))
    y = cast(x, numpy.float64)
    y.grad = numpy.ones(3)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_typecode_strings_are_accepted():
    assert cast(numpy.ones(2), "f").dtype == numpy.float32


def test_integer_cast():
    numpy.testing.assert_array_equal(cast(numpy.array([1.7, -2.2]), numpy.int32).array, [1, -2])


def test_same_dtype_without_backprop_returns_the_variable_itself():
    x = Variable(numpy.ones(2, numpy.float32))
    with no_backprop_mode():
        assert cast(x, numpy.float32) is x
    assert isinstance(cast(x, numpy.float32).creator, Cast)


def test_no_gradient_flows_back_into_an_integer_input():
    # As in Chainer: the cast from int32 back to float32 returns no gradient for its input.
    x = Variable(numpy.array([0.5, 1.5, 2.5], numpy.float32))
    y = cast(cast(x, numpy.int32), numpy.float32)
    y.grad = numpy.full(3, 1.7, numpy.float32)
    y.backward()
    assert x.grad is None


def test_a_backward_to_the_same_dtype_applies_no_cast_node():
    # Chainer's Cast.backward goes through cast(), which passes a gradient already in the
    # input's dtype on as it is when backprop is off, so hooks see no second Cast.
    x = Variable(numpy.ones(3, numpy.float32))
    y = cast(x, numpy.float32)
    y.grad = numpy.ones(3, numpy.float32)
    with LabelRecorder() as recorder:
        y.backward()
    assert recorder.labels == []
    numpy.testing.assert_array_equal(x.grad, numpy.ones(3, numpy.float32))
    x.cleargrad()
    y = cast(x, numpy.float32)
    y.grad = numpy.ones(3, numpy.float32)
    with LabelRecorder() as recorder:
        y.backward(enable_double_backprop=True)
    assert recorder.labels == ["Cast"]
