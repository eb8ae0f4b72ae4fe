"""transpose: values, gradients for any permutation, Variable.T, axis errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.array.transpose import transpose
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape, axes", [
    ((2, 3), None), ((2, 3, 4), (1, 2, 0)), ((2, 3, 4), (-1, 0, -2)), ((2,), (0,)), ((), None)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, axes, dtype, uniform, check_function):
    x = uniform(shape, dtype)
    check_function(lambda x: transpose(x, axes), (x,), lambda x: x.transpose(axes))


def test_variable_t_reverses_the_axes():
    x = Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    numpy.testing.assert_array_equal(x.T.array, x.array.T)
    assert x.transpose(1, 0).creator.label == "Transpose"


@pytest.mark.parametrize("axes", [(0,), (0, 0), (0, 2)])
def test_axes_that_are_no_permutation_are_rejected(axes):
    with pytest.raises(type_check.InvalidType, match=r"Transpose \(Forward\)[\s\S]*(axes|ndim)"):
        transpose(numpy.ones((2, 3)), axes)
