"""tensordot: NumPy's tensordot for int and paired axes, gradients, argument errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.math.tensordot import TensorDot, tensordot
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]

CASES = [
    ((5, 3, 2), (3, 2, 4), 2),
    ((2, 3), (3, 4), 1),
    ((2, 3), (4, 5), 0),
    ((2, 3), (2, 3), 2),
    ((2, 3, 4), (4, 5, 2), ([0, 2], [2, 0])),
    ((2, 3, 4), (3, 5), (1, 0)),
    ((2, 3, 4), (5, 4, 3), ([-1, -2], [1, 2])),
]


@pytest.mark.parametrize("a_shape, b_shape, axes", CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(a_shape, b_shape, axes, dtype, uniform,
                                          check_function):
    tolerance = {"atol": 1e-2, "rtol": 1e-2} if dtype == numpy.float16 else None
    check_function(lambda a, b: tensordot(a, b, axes=axes),
                   (uniform(a_shape, dtype), uniform(b_shape, dtype)),
                   lambda a, b: numpy.tensordot(a, b, axes=axes), forward_tolerance=tolerance)


def test_explicit_output_layout_reorders_the_result(uniform, check_function):
    # a's free axis 0 goes to output position 1, b's free axis 1 to position 0.
    def func(a, b):
        y, = TensorDot(a_axes=[[0], [1]], b_axes=[[0], [1]], c_axes=[[1], [0]]).apply((a, b))
        return y

    check_function(func, (uniform((2, 3), numpy.float64), uniform((3, 4), numpy.float64)),
                   lambda a, b: (a @ b).T)


def test_argument_errors():
    a = numpy.zeros((2, 3), numpy.float32)
    b = numpy.zeros((4, 5), numpy.float32)
    with pytest.raises(ValueError, match="contracted axes must have equal lengths"):
        tensordot(a, b, axes=1)
    with pytest.raises(ValueError, match="as many axes of a as of b"):
        tensordot(a, numpy.zeros((3, 5), numpy.float32), axes=([1], [0, 1]))
    with pytest.raises(IndexError, match="axes of a must be in"):
        tensordot(a, b, axes=([2], [0]))
    with pytest.raises(ValueError, match="at most the ndim of both inputs"):
        tensordot(a, b, axes=3)
    with pytest.raises(ValueError, match="pair of sequence"):
        tensordot(a, b, axes=[1])
    with pytest.raises(TypeError, match="pair of sequence of integers or an integer"):
        tensordot(a, b, axes=1.0)
    with pytest.raises(type_check.InvalidType, match=r"TensorDot \(Forward\)"):
        tensordot(numpy.zeros((2, 3), numpy.int32), numpy.zeros((3, 4), numpy.float32), 1)


@pytest.mark.parametrize("axes, error, match", [
    (([2], [0]), IndexError, r"axes of a must be in \[-2, 2\), got 2"),
    (([1], [-3]), IndexError, r"axes of b must be in \[-2, 2\), got -3"),
    ((5, 0), IndexError, "axes of a must be in"),
    # Chainer's order: counts, then each pair in turn (lengths before a later range error).
    (([5], [0, 1]), ValueError, "axes count mismatch"),
    (([0, 1], [0, 5]), ValueError, "contracted axes must have equal lengths"),
])
def test_paired_axes_errors_follow_chainers_types_and_order(axes, error, match):
    a = numpy.zeros((2, 3), numpy.float32)
    b = numpy.zeros((3, 2), numpy.float32)
    with pytest.raises(error, match=match) as info:
        tensordot(a, b, axes=axes)
    assert type(info.value) is error
