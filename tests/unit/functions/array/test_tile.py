"""tile and repeat: values for ints and tuples, gradients summed back, argument checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.array.repeat import repeat
from chainer_compat.functions.array.tile import tile

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape, reps", [
    ((2, 3), 2), ((2, 3), (2, 1)), ((2, 3), (2, 1, 3)), ((3,), (2, 2)), ((), 3), ((2, 3), 0),
    ((2, 3, 2), (2,))])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_tile_values_and_gradients(shape, reps, dtype, uniform, check_function):
    x = uniform(shape, dtype)
    check_function(lambda x: tile(x, reps), (x,), lambda x: numpy.tile(x, reps))


@pytest.mark.parametrize("shape, repeats, axis", [
    ((2, 3), 2, None), ((2, 3), 3, 1), ((2, 3), (1, 0, 2), 1), ((2, 3), (2, 1), 0),
    ((2, 3), 2, -1), ((3,), (1, 2, 3), None), ((2, 2), (1, 2, 0, 1), None), ((), 2, None)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_repeat_values_and_gradients(shape, repeats, axis, dtype, uniform, check_function):
    x = uniform(shape, dtype)
    check_function(lambda x: repeat(x, repeats, axis), (x,),
                   lambda x: numpy.repeat(x, repeats, axis))


def test_tile_bad_reps_are_rejected():
    with pytest.raises(TypeError, match="reps must be int or tuple of ints"):
        tile(numpy.ones(3), [2])
    with pytest.raises(ValueError, match="zero or larger"):
        tile(numpy.ones(3), -1)


def test_repeat_bad_arguments_are_rejected():
    with pytest.raises(TypeError, match="repeats must be int or tuple of ints"):
        repeat(numpy.ones(3), 1.5)
    with pytest.raises(ValueError, match="zero or larger"):
        repeat(numpy.ones(3), (1, -1, 2))
    with pytest.raises(TypeError, match="axis must be int or None"):
        repeat(numpy.ones(3), 2, axis=True)


@pytest.mark.parametrize("axis", [2, -3])
def test_repeat_axis_out_of_range_raises_numpys_axis_error(axis):
    # Chainer leaves the axis to NumPy: AxisError, a ValueError and an IndexError.
    with pytest.raises(numpy.exceptions.AxisError,
                       match=rf"got {axis}[\s\S]*axis {axis} is out of bounds for array of "
                             "dimension 2"):
        repeat(numpy.ones((2, 3)), 2, axis=axis)
