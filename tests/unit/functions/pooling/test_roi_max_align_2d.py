"""roi_max_align_2d: values (-inf for bins with no sample) and gradients against the
scalar-loop reference, argmax_data, numerical gradients, and instance reuse."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy
import pytest

from chainer_compat import Variable, gradient_check
from chainer_compat.functions.pooling.roi_max_align_2d import ROIMaxAlign2D, roi_max_align_2d

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


def _image(seed=0):
    """Entries 0.1 apart in random order: samples rarely tie."""
    rng = numpy.random.RandomState(seed)
    return (rng.permutation(120).reshape(2, 2, 5, 6) * 0.1 - 6).astype(numpy.float32)


@pytest.mark.parametrize("outsize, scale, sampling_ratio", [
    ((2, 3), 1.0, None), (2, 0.7, 2), (3, 1.3, (1, 3))])
def test_values_and_gradient_match_reference(xp, outsize, scale, sampling_ratio):
    x = _image()
    xv = Variable(xp.asarray(x))
    y = roi_max_align_2d(xv, xp.asarray(BOXES), xp.asarray(BATCHES), outsize, scale,
                         sampling_ratio)
    gy = numpy.random.RandomState(1).standard_normal(y.shape).astype(numpy.float32)
    y.grad = xp.asarray(gy)
    y.backward()
    outh, outw = outsize if isinstance(outsize, tuple) else (outsize, outsize)
    jacobian, expected = reference.roi_align(x, BOXES, BATCHES, outh, outw, scale,
                                             sampling_ratio, "max")
    assert numpy.isneginf(_host(y.array)[4]).all()
    numpy.testing.assert_allclose(_host(y.array), expected, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(_host(xv.grad), reference.transpose(jacobian, gy), rtol=1e-5,
                                  atol=1e-6)


def test_argmax_data_indexes_the_sample_grid():
    node = ROIMaxAlign2D(1, 1.0, (2, 3))
    x = numpy.zeros((1, 1, 4, 4), numpy.float32)
    # Bright pixel under the sample at grid row 1, column 2 (y = 3.0, x = 3.5 - 0.5 * 1).
    x[0, 0, 3, 3] = 5.0
    node.apply((x, numpy.array([[0.0, 0.0, 4.0, 4.0]], numpy.float32),
                numpy.zeros(1, numpy.int32)))
    assert node.argmax_data.dtype == numpy.int32
    assert int(node.argmax_data[0, 0, 0, 0]) == 1 * 3 + 2


def test_gradients_match_numerical_of_first_and_second_order():
    x = _image(seed=3)
    # Inside the image: samples clamped to the border would tie, and a tie has no gradient.
    boxes = numpy.array([[1.2, 0.7, 3.9, 4.4], [0.3, 1.1, 3.6, 4.9]], numpy.float32)
    batches = numpy.array([0, 1], numpy.int32)
    rng = numpy.random.RandomState(2)
    gy = rng.standard_normal((2, 2, 2, 2)).astype(numpy.float32)
    ggx = rng.standard_normal(x.shape).astype(numpy.float32)

    def align(a):
        return roi_max_align_2d(a, boxes, batches, 2, 0.9, 2)

    gradient_check.check_backward(align, (x,), gy, eps=1e-3, atol=1e-3, rtol=1e-3)
    gradient_check.check_double_backward(align, (x,), gy, (ggx,), eps=1e-3, atol=1e-3,
                                         rtol=1e-3)
