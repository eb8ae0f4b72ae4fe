"""fix: rounds toward zero, keeps the dtype, and starts a new graph."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat.functions.math.fix import fix


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_rounds_toward_zero_and_keeps_dtype(dtype, xp):
    x = xp.asarray(numpy.array([-2.7, -0.5, -0.0, 0.0, 0.5, 2.7, numpy.inf, -numpy.inf,
                                numpy.nan]).astype(dtype))
    y = fix(x)
    assert y.dtype == dtype and type(y.array) is type(x)
    # numpy.fix's results (NumPy 2.5 deprecates it), bit for bit: -0.5 and -0.0 give -0.0.
    # A NaN stays NaN; its payload is the device's (CUDA writes 0x7fff for float16).
    expected = numpy.array([-2.0, -0.0, -0.0, 0.0, 0.0, 2.0, numpy.inf, -numpy.inf]).astype(dtype)
    result = _host(y.array)
    assert result[:-1].tobytes() == expected.tobytes()
    assert numpy.isnan(result[-1])


def _host(array):
    return array.get() if hasattr(array, "get") else array


def test_result_is_outside_the_graph():
    x = chainer_compat.Variable(numpy.array([1.5, -1.5]))
    y = fix(x)
    assert y.creator is None and not y.requires_grad
    numpy.testing.assert_array_equal(y.array, [1.0, -1.0])
