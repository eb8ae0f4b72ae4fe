"""roi_average_align_2d: values and gradients against the scalar-loop reference (automatic and
fixed sampling grids, samples beyond the border), numerical gradients, and argument errors."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy
import pytest

from chainer_compat import Variable, gradient_check
from chainer_compat.functions.pooling.roi_average_align_2d import roi_average_align_2d
from chainer_compat.utils import type_check

_spec = importlib.util.spec_from_file_location(
    "_roi_reference", pathlib.Path(__file__).with_name("_roi_reference.py"))
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)

BOXES = numpy.array([[1.2, 0.7, 3.9, 4.4], [-2.0, -3.0, 2.0, 2.0], [2.0, 3.3, 8.0, 9.1],
                     [2.5, 4.5, 2.0, 3.0], [-9.0, -9.0, -4.0, -5.0], [-0.6, 5.4, 0.9, 6.8]],
                    numpy.float32)
BATCHES = numpy.array([0, 1, 0, 1, 0, 1], numpy.int32)


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


@pytest.mark.parametrize("outsize, scale, sampling_ratio", [
    ((2, 3), 1.0, None), (2, 0.7, 2), (3, 1.3, (1, 3)), (2, 1.0, (None, 2))])
def test_values_and_gradient_match_reference(xp, outsize, scale, sampling_ratio):
    rng = numpy.random.RandomState(0)
    x = rng.standard_normal((2, 2, 5, 6)).astype(numpy.float32)
    xv = Variable(xp.asarray(x))
    y = roi_average_align_2d(xv, xp.asarray(BOXES), xp.asarray(BATCHES), outsize, scale,
                             sampling_ratio)
    gy = rng.standard_normal(y.shape).astype(numpy.float32)
    y.grad = xp.asarray(gy)
    y.backward()
    outh, outw = outsize if isinstance(outsize, tuple) else (outsize, outsize)
    jacobian, expected = reference.roi_align(x, BOXES, BATCHES, outh, outw, scale,
                                             sampling_ratio, "average")
    assert y.dtype == numpy.float32 and (_host(y.array)[4] == 0).all()
    numpy.testing.assert_allclose(_host(y.array), expected, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(_host(xv.grad), reference.transpose(jacobian, gy), rtol=1e-5,
                                  atol=1e-6)


def test_gradients_match_numerical_of_first_and_second_order():
    # float32 only, as in Chainer; the function is linear in x, so float32 differences are
    # accurate enough.
    rng = numpy.random.RandomState(2)
    x = rng.standard_normal((2, 2, 5, 6)).astype(numpy.float32)
    gy = rng.standard_normal((len(BOXES), 2, 2, 2)).astype(numpy.float32)
    ggx = rng.standard_normal(x.shape).astype(numpy.float32)

    def align(a):
        return roi_average_align_2d(a, BOXES, BATCHES, 2, 0.8, 2)

    gradient_check.check_backward(align, (x,), gy, eps=1e-2, atol=1e-3, rtol=1e-3)
    gradient_check.check_double_backward(align, (x,), gy, (ggx,), eps=1e-2, atol=1e-3,
                                         rtol=1e-3)


def test_float64_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match="float32"):
        roi_average_align_2d(numpy.zeros((2, 2, 5, 6)), BOXES.astype(numpy.float64), BATCHES, 2,
                             1.0)


@pytest.mark.parametrize("sampling_ratio", [0, (2, -1), 1.5])
def test_bad_sampling_ratio_raises_type_error(sampling_ratio):
    with pytest.raises(TypeError, match="^sampling_ratio must be integer >= 1 or a pair of it: "):
        roi_average_align_2d(numpy.zeros((2, 2, 5, 6), numpy.float32), BOXES, BATCHES, 2, 1.0,
                             sampling_ratio)
