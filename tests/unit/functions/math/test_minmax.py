"""max, min, argmax, argmin: values, gradients, ties, argument and type errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat import Variable
from chainer_compat.functions.math import minmax
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
CASES = {"max": (minmax.max, numpy.max), "min": (minmax.min, numpy.min)}


def _distinct(shape, dtype, xp):
    """Values at least 0.1 apart, shuffled, so that no reduction has a near tie."""
    size = int(numpy.prod(shape))
    values = numpy.random.permutation(numpy.arange(size) * 0.1 - 0.05 * size)
    return xp.asarray(values.reshape(shape).astype(dtype))


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("axis", [None, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(name, axis, keepdims, dtype, xp, check_function):
    func, reference = CASES[name]
    check_function(lambda x: func(x, axis=axis, keepdims=keepdims),
                   (_distinct((2, 3, 4), dtype, xp),),
                   lambda x: reference(x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_tied_element_gets_the_full_gradient(name):
    func = CASES[name][0]
    x = Variable(numpy.array([[1.0, 1.0, 0.5], [-1.0, -1.0, 0.5]], numpy.float32))
    y = func(x, axis=1)
    y.grad = numpy.array([2.0, 3.0], numpy.float32)
    y.backward()
    expected = ([[2.0, 2.0, 0.0], [0.0, 0.0, 3.0]] if name == "max"
                else [[0.0, 0.0, 2.0], [3.0, 3.0, 0.0]])
    numpy.testing.assert_array_equal(x.grad, expected)


@pytest.mark.parametrize("func, reference", [(minmax.argmax, numpy.argmax),
                                             (minmax.argmin, numpy.argmin)])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_arg_functions_give_int32_indexes_and_no_gradient(func, reference, axis, xp):
    x_array = _distinct((3, 4), numpy.float32, xp)
    x = Variable(x_array)
    y = func(x, axis=axis)
    assert y.dtype == numpy.int32
    host = x_array.get() if hasattr(x_array, "get") else x_array
    numpy.testing.assert_array_equal(
        y.array.get() if hasattr(y.array, "get") else y.array, reference(host, axis=axis))
    assert y.creator.backward((0,), (None,)) == (None,)


def test_argument_and_type_errors():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"Max \(Forward\)"):
        minmax.max(x, axis=2)
    with pytest.raises(ValueError, match="duplicate value in axis"):
        minmax.min(x, axis=(0, 0))
    with pytest.raises(TypeError, match="axis must be None, an int or a tuple of ints"):
        minmax.max(x, axis=[0])
    with pytest.raises(TypeError, match="axis must be None or an int"):
        minmax.argmax(x, axis=(0,))
    with pytest.raises(type_check.InvalidType, match=r"ArgMin \(Forward\)"):
        minmax.argmin(x, axis=-3)
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind"):
        minmax.argmax(numpy.arange(3))
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind"):
        minmax.min(numpy.arange(3))


@pytest.mark.parametrize("function", [minmax.max, minmax.min])
@pytest.mark.parametrize("axis, keepdims", [(1, False), ((0, 2), True), (None, False)])
def test_a_hook_sees_chainers_gradient_nodes(function, axis, keepdims):
    rng = numpy.random.default_rng(7)
    x = rng.standard_normal((3, 4, 5)).astype(numpy.float32)
    gy = rng.standard_normal(function(x, axis=axis, keepdims=keepdims).shape).astype(
        numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(
        lambda x: function(x, axis=axis, keepdims=keepdims), (x,), gy)
    # Chainer 7.8.1's sequence: gy and y are each reshaped, even to their own shape.
    assert labels == ["Reshape", "Reshape", "BroadcastTo", "_ * _"]
    numpy.testing.assert_array_equal(plain[0], hooked[0])
