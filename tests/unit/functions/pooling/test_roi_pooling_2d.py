"""roi_pooling_2d: values and gradients against the scalar-loop reference (also for ROIs that
cross every edge), gradients of first and second order, and type errors."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat import Variable, gradient_check
from chainer_compat.functions.pooling.roi_pooling_2d import ROIPooling2D, roi_pooling_2d
from chainer_compat.utils import type_check

_spec = importlib.util.spec_from_file_location(
    "_roi_reference", pathlib.Path(__file__).with_name("_roi_reference.py"))
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)

# (y_min, x_min, y_max, x_max) on a 5 x 6 image, crossing each edge, outside, malformed.
BOXES = numpy.array([[1.0, 1.0, 3.0, 4.0], [-2.0, -3.0, 2.0, 2.0], [2.0, 3.0, 8.0, 9.0],
                     [2.5, 4.5, 2.0, 3.0], [-9.0, -9.0, -4.0, -5.0], [-1.0, -2.0, 7.0, 8.0]])
BATCHES = numpy.array([0, 1, 0, 1, 0, 1])


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _image(dtype, shape=(2, 2, 5, 6), seed=0):
    """Entries 0.1 apart in random order, so every maximum is unique and survives a small step."""
    rng = numpy.random.RandomState(seed)
    size = int(numpy.prod(shape))
    return (rng.permutation(size).reshape(shape) * 0.1).astype(dtype)


def _rois(dtype):
    return numpy.concatenate([BATCHES[:, None], BOXES[:, [1, 0, 3, 2]]], axis=1).astype(dtype)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("scale", [1.0, 0.7])
def test_values_and_gradient_match_reference(xp, dtype, scale):
    x = _image(dtype)
    xv = Variable(xp.asarray(x))
    y = roi_pooling_2d(xv, xp.asarray(_rois(dtype)), 2, 3, scale)
    gy = numpy.random.RandomState(1).standard_normal(y.shape).astype(dtype)
    y.grad = xp.asarray(gy)
    y.backward()
    jacobian, expected = reference.roi_pooling(x, BOXES, BATCHES, 2, 3, scale, "max", True, 0.0)
    assert y.dtype == dtype and type(y.array) is type(xp.zeros(0))
    numpy.testing.assert_array_equal(_host(y.array), expected.astype(dtype))
    numpy.testing.assert_allclose(_host(xv.grad), reference.transpose(jacobian, gy),
                                  rtol=1e-3 if dtype == numpy.float16 else 1e-6)


def test_argmax_data_holds_flat_pixel_indices():
    x = _image(numpy.float32)
    node = ROIPooling2D(2, 2, 1.0)
    y, = node.apply((x, _rois(numpy.float32)))
    assert node.argmax_data.dtype == numpy.int32
    flat = x.reshape(2, 2, -1)
    for r, b in enumerate(BATCHES):
        picked = numpy.take_along_axis(flat[b], node.argmax_data[r].reshape(2, -1), axis=1)
        inside = y.array[r].reshape(2, -1) != 0
        numpy.testing.assert_array_equal(picked[inside], y.array[r].reshape(2, -1)[inside])


def test_malformed_roi_is_pooled_but_gets_no_gradient():
    x = Variable(_image(numpy.float64))
    rois = _rois(numpy.float64)[3:4]
    y = roi_pooling_2d(x, rois, 1, 1, 1.0)
    y.grad = numpy.ones(y.shape)
    y.backward()
    # One pixel at the rounded (half to even) corner: row round(2.5) = 2, column round(4.5) = 4.
    numpy.testing.assert_array_equal(y.array[0, :, 0, 0], x.array[1, :, 2, 4])
    assert not x.grad.any()


def test_empty_bins_pool_to_zero():
    y = roi_pooling_2d(_image(numpy.float32) + 1, _rois(numpy.float32), 2, 2, 1.0)
    assert (y.array[4] == 0).all() and (y.array[0] > 0).all()


def test_gradients_match_numerical_of_first_and_second_order():
    x = _image(numpy.float64)
    # Not the malformed ROI, whose pixel gets no gradient (as in Chainer).
    rois = _rois(numpy.float64)[[0, 1, 2, 4, 5]]
    rng = numpy.random.RandomState(2)
    gy = rng.standard_normal((len(rois), 2, 2, 3))
    ggx = rng.standard_normal(x.shape)

    def pool(a):
        return roi_pooling_2d(a, rois, 2, 3, 0.7)

    gradient_check.check_backward(pool, (x,), gy, eps=1e-3)
    gradient_check.check_double_backward(pool, (x,), gy, (ggx,), eps=1e-3)


def test_rois_of_another_dtype_raise_invalid_type():
    with pytest.raises(type_check.InvalidType, match="dtype"):
        roi_pooling_2d(_image(numpy.float32), _rois(numpy.float64), 2, 2, 1.0)


def test_a_hook_sees_chainers_gradient_node():
    rng = numpy.random.default_rng(26)
    x = rng.standard_normal((2, 3, 6, 6)).astype(numpy.float32)
    rois = numpy.array([[0, 0, 0, 3, 3], [1, 1, 0.5, 4.5, 3.5]], numpy.float32)
    gy = rng.standard_normal((2, 3, 2, 2)).astype(numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(
        lambda x: roi_pooling_2d(x, rois, 2, 2, 1.0), (x,), gy)
    assert labels == ["ROIPooling2DGrad"]  # Chainer 7.8.1's
    numpy.testing.assert_array_equal(hooked[0], plain[0])
    numpy.testing.assert_allclose(plain[0].sum(), gy.sum(), rtol=1e-5)
