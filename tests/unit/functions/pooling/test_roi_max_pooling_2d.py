"""roi_max_pooling_2d: values (-inf for empty bins) and gradients against the scalar-loop
reference, argmax_data, numerical gradients of both orders, and argument errors."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

import chainer_compat
from chainer_compat import Variable, gradient_check
from chainer_compat.functions.pooling.roi_max_pooling_2d import ROIMaxPooling2D, roi_max_pooling_2d

_spec = importlib.util.spec_from_file_location(
    "_roi_reference", pathlib.Path(__file__).with_name("_roi_reference.py"))
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)

BOXES = numpy.array([[1.0, 1.0, 3.0, 4.0], [-2.0, -3.0, 2.0, 2.0], [2.0, 3.0, 8.0, 9.0],
                     [2.5, 4.5, 2.0, 3.0], [-9.0, -9.0, -4.0, -5.0], [0.5, 1.5, 4.5, 5.5]])
BATCHES = numpy.array([0, 1, 0, 1, 0, 1], numpy.int32)


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _image(dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    return (rng.permutation(120).reshape(2, 2, 5, 6) * 0.1 - 6).astype(dtype)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("outsize, scale", [((2, 3), 1.0), (3, 0.7), (2, 1.3)])
def test_values_and_gradient_match_reference(xp, dtype, outsize, scale):
    x = _image(dtype)
    xv = Variable(xp.asarray(x))
    y = roi_max_pooling_2d(xv, xp.asarray(BOXES.astype(dtype)), xp.asarray(BATCHES), outsize,
                           scale)
    gy = numpy.random.RandomState(1).standard_normal(y.shape).astype(dtype)
    y.grad = xp.asarray(gy)
    y.backward()
    outh, outw = outsize if isinstance(outsize, tuple) else (outsize, outsize)
    jacobian, expected = reference.roi_pooling(x, BOXES, BATCHES, outh, outw, scale, "max",
                                               False, -numpy.inf)
    assert numpy.isneginf(expected[4]).all()
    numpy.testing.assert_array_equal(_host(y.array), expected.astype(dtype))
    numpy.testing.assert_allclose(_host(xv.grad), reference.transpose(jacobian, gy), rtol=1e-6)


def test_argmax_data_is_minus_one_for_empty_bins():
    node = ROIMaxPooling2D(2, 1.0)
    y, = node.apply((_image(numpy.float32), BOXES.astype(numpy.float32), BATCHES))
    assert node.argmax_data.dtype == numpy.int32
    assert (node.argmax_data[4] == -1).all() and (node.argmax_data[0] >= 0).all()


def test_ties_pick_the_first_pixel_in_row_major_order():
    x = numpy.zeros((1, 1, 3, 3), numpy.float32)
    node = ROIMaxPooling2D(1, 1.0)
    node.apply((x, numpy.array([[0.0, 0.0, 3.0, 3.0]], numpy.float32),
                numpy.zeros(1, numpy.int32)))
    assert int(node.argmax_data[0, 0, 0, 0]) == 0


def test_gradients_match_numerical_of_first_and_second_order():
    x = _image(numpy.float64)
    # ROIs without empty bins, whose -inf has no numerical gradient.
    boxes = BOXES[[0, 2, 3, 5]]
    batches = BATCHES[[0, 2, 3, 5]]
    rng = numpy.random.RandomState(2)
    gy = rng.standard_normal((4, 2, 2, 3))

    def pool(a):
        return roi_max_pooling_2d(a, boxes, batches, (2, 3), 0.8)

    gradient_check.check_backward(pool, (x,), gy, eps=1e-3)
    gradient_check.check_double_backward(pool, (x,), gy, (rng.standard_normal(x.shape),),
                                         eps=1e-3)


def test_an_instance_may_be_called_again():
    node = ROIMaxPooling2D(2, 1.0)
    first = node(_image(numpy.float32), BOXES.astype(numpy.float32), BATCHES)
    second = node(_image(numpy.float32, seed=1), BOXES.astype(numpy.float32), BATCHES)
    assert first.creator is not second.creator
    assert not numpy.array_equal(first.array, second.array)


@pytest.mark.parametrize("outsize, scale, message", [
    (0, 1.0, r"^outsize\[0\] must be positive integer: <class 'int'>, 0\n"),
    ((2, 1.5), 1.0, r"^outsize\[1\] must be positive integer: <class 'float'>, 1.5\n"),
    (2, 0.0, r"^spatial_scale must be a positive float number: <class 'float'>, 0.0\n"),
])
def test_bad_arguments_raise_type_error_naming_them(outsize, scale, message):
    with pytest.raises(TypeError, match=message):
        roi_max_pooling_2d(_image(numpy.float32), BOXES.astype(numpy.float32), BATCHES, outsize,
                           scale)


@pytest.mark.parametrize("name", ["roi_max_pooling_2d", "roi_average_pooling_2d",
                                  "roi_max_align_2d", "roi_average_align_2d"])
def test_backward_applies_no_function_as_chainers_old_style_function(name):
    # Chainer 7.8.1's four ROI Functions compute their gradients on arrays; ours do the same
    # unless double backprop records a graph (NOTE [old-style gradients]).
    rng = numpy.random.default_rng(27)
    x = rng.standard_normal((2, 3, 6, 6)).astype(numpy.float32)
    rois = numpy.array([[0, 0, 3, 3], [1, 0.5, 4.5, 3.5]], numpy.float32)
    roi_indices = numpy.array([0, 1], numpy.int32)
    function = getattr(chainer_compat.functions, name)
    gy = rng.standard_normal((2, 3, 2, 2)).astype(numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(
        lambda x: function(x, rois, roi_indices, 2, 1.0), (x,), gy)
    assert labels == []
    numpy.testing.assert_array_equal(hooked[0], plain[0])
    v = Variable(x)
    recorded, = chainer_compat.grad([function(v, rois, roi_indices, 2, 1.0)], [v],
                                    [Variable(gy)], enable_double_backprop=True)
    assert recorded.creator is not None
    numpy.testing.assert_allclose(recorded.array, plain[0], rtol=1e-6, atol=1e-7)
