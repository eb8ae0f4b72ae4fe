"""roi_average_pooling_2d: values and gradients against the scalar-loop reference, numerical
gradients of both orders, and dtype errors."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy
import pytest

from chainer_compat import Variable, gradient_check
from chainer_compat.functions.pooling.roi_average_pooling_2d import roi_average_pooling_2d
from chainer_compat.utils import type_check

_spec = importlib.util.spec_from_file_location(
    "_roi_reference", pathlib.Path(__file__).with_name("_roi_reference.py"))
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)

BOXES = numpy.array([[1.0, 1.0, 3.0, 4.0], [-2.0, -3.0, 2.0, 2.0], [2.0, 3.0, 8.0, 9.0],
                     [2.5, 4.5, 2.0, 3.0], [-9.0, -9.0, -4.0, -5.0], [0.5, 1.5, 4.5, 5.5]])
BATCHES = numpy.array([0, 1, 0, 1, 0, 1], numpy.int32)


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("outsize, scale", [((2, 3), 1.0), (3, 0.7), (2, 1.3)])
def test_values_and_gradient_match_reference(xp, dtype, outsize, scale):
    rng = numpy.random.RandomState(0)
    x = rng.standard_normal((2, 2, 5, 6)).astype(dtype)
    xv = Variable(xp.asarray(x))
    y = roi_average_pooling_2d(xv, xp.asarray(BOXES.astype(dtype)), xp.asarray(BATCHES),
                               outsize, scale)
    gy = rng.standard_normal(y.shape).astype(dtype)
    y.grad = xp.asarray(gy)
    y.backward()
    outh, outw = outsize if isinstance(outsize, tuple) else (outsize, outsize)
    jacobian, expected = reference.roi_pooling(x, BOXES, BATCHES, outh, outw, scale, "average",
                                               False, 0.0)
    tolerance = {"rtol": 1e-5, "atol": 1e-6} if dtype == numpy.float32 else {"rtol": 1e-12}
    assert y.dtype == dtype and (_host(y.array)[4] == 0).all()
    numpy.testing.assert_allclose(_host(y.array), expected, **tolerance)
    numpy.testing.assert_allclose(_host(xv.grad), reference.transpose(jacobian, gy), **tolerance)


def test_gradients_match_numerical_of_first_and_second_order():
    rng = numpy.random.RandomState(2)
    x = rng.standard_normal((2, 2, 5, 6))
    gy = rng.standard_normal((len(BOXES), 2, 2, 2))

    def pool(a):
        return roi_average_pooling_2d(a, BOXES, BATCHES, 2, 0.8)

    gradient_check.check_backward(pool, (x,), gy)
    gradient_check.check_double_backward(pool, (x,), gy, (rng.standard_normal(x.shape),))


def test_int64_roi_indices_raise_invalid_type():
    with pytest.raises(type_check.InvalidType, match="int32"):
        roi_average_pooling_2d(numpy.zeros((2, 2, 5, 6), numpy.float32),
                               BOXES.astype(numpy.float32), BATCHES.astype(numpy.int64), 2, 1.0)
