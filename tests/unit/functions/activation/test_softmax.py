"""softmax and log_softmax: values along any axis, gradients, stability, axis checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.activation.log_softmax import _log_softmax, log_softmax, logsumexp
from chainer_compat.functions.activation.softmax import softmax
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
CASES = [((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -1), ((5,), 0), ((2, 3, 2), 1)]


def _softmax_reference(x, axis):
    e = numpy.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("shape, axis", CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_softmax_values_and_gradients_match_numpy(shape, axis, dtype, uniform, check_function):
    x = uniform(shape, dtype, low=-2.0, high=2.0)
    check_function(lambda x: softmax(x, axis), (x,), lambda x: _softmax_reference(x, axis))


@pytest.mark.parametrize("shape, axis", CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_log_softmax_values_and_gradients_match_numpy(shape, axis, dtype, uniform,
                                                      check_function):
    x = uniform(shape, dtype, low=-2.0, high=2.0)
    check_function(lambda x: log_softmax(x, axis), (x,),
                   lambda x: numpy.log(_softmax_reference(x, axis)))


def test_default_axis_is_one():
    x = numpy.random.uniform(-1, 1, (2, 3, 4)).astype(numpy.float32)
    numpy.testing.assert_allclose(softmax(x).array.sum(axis=1), numpy.ones((2, 4)), rtol=1e-6)
    numpy.testing.assert_allclose(numpy.exp(log_softmax(x).array).sum(axis=1),
                                  numpy.ones((2, 4)), rtol=1e-6)


def test_large_inputs_do_not_overflow():
    x = numpy.array([[1000.0, 0.0, -1000.0]], numpy.float32)
    with numpy.errstate(over="raise"):
        numpy.testing.assert_allclose(softmax(x).array, [[1.0, 0.0, 0.0]])
        numpy.testing.assert_allclose(log_softmax(x).array, [[0.0, -1000.0, -2000.0]])


def test_array_helpers_match_the_functions():
    x = numpy.random.uniform(-1, 1, (3, 4))
    expected = numpy.log(numpy.exp(x).sum(axis=0, keepdims=True))
    numpy.testing.assert_allclose(logsumexp(x, 0), expected)
    numpy.testing.assert_allclose(_log_softmax(x, 0), log_softmax(x, 0).array)


def test_softmax_keeps_only_its_output_for_backward():
    x = Variable(numpy.ones((2, 3), numpy.float32))
    y = softmax(x)
    assert x.node.data is None
    assert y.node.data is not None


@pytest.mark.parametrize("func, name", [(softmax, "Softmax"), (log_softmax, "LogSoftmax")])
@pytest.mark.parametrize("axis", [2, -3])
def test_axis_out_of_range_is_rejected(func, name, axis):
    # Not Chainer's type, on purpose: Chainer 7.8.1's own check breaks while explaining this
    # failure and raises RuntimeError ("An Expr instance cannot be evaluated as bool").
    with pytest.raises(type_check.InvalidType, match=rf"{name} \(Forward\)[\s\S]*(axis|ndim)"):
        func(numpy.ones((2, 3), numpy.float32), axis)


@pytest.mark.parametrize("func, name", [(softmax, "Softmax"), (log_softmax, "LogSoftmax")])
def test_integer_input_is_rejected(func, name):
    with pytest.raises(type_check.InvalidType, match=rf"{name} \(Forward\)[\s\S]*x\.dtype"):
        func(numpy.ones((2, 3), numpy.int32))
