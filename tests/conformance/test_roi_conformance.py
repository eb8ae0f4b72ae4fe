"""Conformance of the ROI pooling/align functions and the spatial transformer with Chainer
7.8.1: bin and sample conventions (against scalar-loop references), gradients, dtypes and
exception types. Runs unchanged on Chainer (CHAINER_CONFORMANCE_TARGET=chainer)."""

from __future__ import annotations

import importlib
import importlib.util
import os
import pathlib

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
type_check = importlib.import_module(chainer.__name__ + ".utils.type_check")

_REFERENCE_PATH = (pathlib.Path(__file__).resolve().parents[1]
                   / "unit" / "functions" / "pooling" / "_roi_reference.py")
_spec = importlib.util.spec_from_file_location("_roi_reference_for_conformance", _REFERENCE_PATH)
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)


def _function(package, name):
    # Chainer's module paths, which chainer_compat keeps, so the test needs no re-export.
    module = importlib.import_module(f"{chainer.__name__}.functions.{package}.{name}")
    return getattr(module, name)


roi_pooling_2d = _function("pooling", "roi_pooling_2d")
roi_max_pooling_2d = _function("pooling", "roi_max_pooling_2d")
roi_average_pooling_2d = _function("pooling", "roi_average_pooling_2d")
roi_max_align_2d = _function("pooling", "roi_max_align_2d")
roi_average_align_2d = _function("pooling", "roi_average_align_2d")
spatial_transformer_grid = _function("array", "spatial_transformer_grid")
spatial_transformer_sampler = _function("array", "spatial_transformer_sampler")

# (y_min, x_min, y_max, x_max) on a 6 x 7 image: inside, partly outside on each side, wholly
# outside, malformed (max < min), fractional corners that round half to even, and wider than
# the image.
BOXES = numpy.array([
    [1.0, 1.0, 4.0, 5.0],
    [-2.0, -3.0, 3.0, 4.0],
    [3.0, 4.0, 9.0, 11.0],
    [2.5, 4.5, 2.0, 3.0],
    [-9.0, -9.0, -4.0, -5.0],
    [0.4, 0.6, 5.5, 6.5],
    [-1.7, 5.6, 0.3, 8.0],
    [-1.0, -2.0, 8.0, 9.0],
])
BATCHES = numpy.array([0, 1, 0, 1, 0, 1, 1, 0], numpy.int32)


def _distinct_image(dtype, seed=0, shape=(2, 2, 6, 7)):
    """Entries 0.1 apart in random order: no two equal, so every maximum is unique."""
    rng = numpy.random.RandomState(seed)
    size = int(numpy.prod(shape))
    return (rng.permutation(size).reshape(shape) * 0.1 - size * 0.05).astype(dtype)


def _run(function, x, *args, **kwargs):
    """Value and input gradient (for a random output gradient) of ``function``."""
    xv = chainer.Variable(x)
    y = function(xv, *args, **kwargs)
    gy = numpy.random.RandomState(5).standard_normal(y.shape).astype(x.dtype)
    y.grad = gy
    y.backward()
    return y, gy, xv.grad


# Chainer's CPU gradient of roi_pooling_2d misplaces (or fails on) pixels of ROIs that cross
# the left or right edge, so its gradient is pinned on ROIs within the image's columns.
FAST_RCNN_GRADIENT_BOXES = numpy.array([
    [1.0, 1.0, 4.0, 5.0],
    [-2.0, 0.0, 3.0, 4.0],
    [3.0, 2.0, 9.0, 6.0],
    [2.5, 4.5, 2.0, 3.0],
    [-9.0, 1.0, -4.0, 3.0],
    [0.4, 0.6, 5.5, 5.5],
])


def _fast_rcnn_rois(boxes, batches, dtype):
    # Fast R-CNN rows: (batch, x_min, y_min, x_max, y_max).
    return numpy.concatenate([batches[:, None], boxes[:, [1, 0, 3, 2]]], axis=1).astype(dtype)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("scale", [1.0, 0.6])
@pytest.mark.parametrize("outsize", [(2, 3), (3, 3)])
def test_roi_pooling_2d_uses_inclusive_corners_in_x_y_order(dtype, scale, outsize):
    x = _distinct_image(dtype)
    y = roi_pooling_2d(x, _fast_rcnn_rois(BOXES, BATCHES, dtype), outsize[0], outsize[1], scale)
    _, expected = reference.roi_pooling(x, BOXES, BATCHES, *outsize, scale, "max", True, 0.0)
    assert isinstance(y, chainer.Variable) and y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected.astype(dtype))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("scale", [1.0, 0.6])
def test_roi_pooling_2d_gradient_reaches_each_maximum_inside_the_roi(dtype, scale):
    x = _distinct_image(dtype)
    batches = BATCHES[:len(FAST_RCNN_GRADIENT_BOXES)]
    rois = _fast_rcnn_rois(FAST_RCNN_GRADIENT_BOXES, batches, dtype)
    y, gy, gx = _run(roi_pooling_2d, x, rois, 2, 3, scale)
    jacobian, _ = reference.roi_pooling(x, FAST_RCNN_GRADIENT_BOXES, batches, 2, 3, scale, "max",
                                        True, 0.0)
    numpy.testing.assert_allclose(gx, reference.transpose(jacobian, gy), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("scale", [1.0, 0.6, 1.7])
@pytest.mark.parametrize("outsize", [(2, 3), 3])
@pytest.mark.parametrize("mode", ["max", "average"])
def test_roi_pooling_bins_and_gradients(dtype, scale, outsize, mode):
    x = _distinct_image(dtype)
    function = roi_max_pooling_2d if mode == "max" else roi_average_pooling_2d
    y, gy, gx = _run(function, x, BOXES.astype(dtype), BATCHES, outsize, scale)
    outh, outw = outsize if isinstance(outsize, tuple) else (outsize, outsize)
    empty_value = -numpy.inf if mode == "max" else 0.0
    jacobian, expected = reference.roi_pooling(x, BOXES, BATCHES, outh, outw, scale, mode,
                                               False, empty_value)
    assert y.dtype == dtype and y.shape == (len(BOXES), 2, outh, outw)
    # The ROI wholly outside the image pools to -inf (max) or 0 (average).
    assert (y.array[4] == empty_value).all()
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6, atol=1e-6)
    numpy.testing.assert_allclose(gx, reference.transpose(jacobian, gy), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("scale", [1.0, 0.6, 1.7])
@pytest.mark.parametrize("outsize", [(2, 3), 2])
@pytest.mark.parametrize("sampling_ratio", [None, 2, (1, 3)])
@pytest.mark.parametrize("mode", ["max", "average"])
def test_roi_align_samples_and_gradients(scale, outsize, sampling_ratio, mode):
    x = _distinct_image(numpy.float32, seed=1)
    function = roi_max_align_2d if mode == "max" else roi_average_align_2d
    y, gy, gx = _run(function, x, BOXES.astype(numpy.float32), BATCHES, outsize, scale,
                     sampling_ratio=sampling_ratio)
    outh, outw = outsize if isinstance(outsize, tuple) else (outsize, outsize)
    jacobian, expected = reference.roi_align(x, BOXES.astype(numpy.float32), BATCHES, outh,
                                             outw, scale, sampling_ratio, mode)
    assert y.dtype == numpy.float32
    if mode == "max":
        assert numpy.isneginf(y.array[4]).all()
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-5)
    numpy.testing.assert_allclose(gx, reference.transpose(jacobian, gy), rtol=1e-5, atol=1e-5)


def _exact_run(function, x, gy, *args, **kwargs):
    """Value and input gradient of ``function`` for the output gradient ``gy``."""
    xv = chainer.Variable(x)
    y = function(xv, *args, **kwargs)
    y.grad = gy
    y.backward()
    return y, xv.grad


@pytest.mark.parametrize("case", range(len(reference.EXACT_CASES)))
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("mode", ["max", "average"])
def test_roi_pooling_values_and_gradients_are_the_cpu_loops_bits(case, dtype, mode):
    # Chainer's CPU order and precision, one bin at a time (see the reference).
    x, boxes, batches, outh, outw, scale, gy = reference.exact_inputs(case, dtype)
    function = roi_max_pooling_2d if mode == "max" else roi_average_pooling_2d
    y, gx = _exact_run(function, x, gy, boxes, batches, (outh, outw), scale)
    expected_y, expected_gx = reference.exact_roi_pooling(x, boxes, batches, outh, outw, scale,
                                                          gy, mode)
    assert y.dtype == dtype and gx.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected_y)
    numpy.testing.assert_array_equal(gx, expected_gx)


@pytest.mark.parametrize("case", range(len(reference.EXACT_CASES)))
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_fast_rcnn_roi_pooling_values_and_gradients_are_the_cpu_loops_bits(case, dtype):
    x, boxes, batches, outh, outw, scale, gy = reference.exact_inputs(case, dtype,
                                                                      columns_inside=True)
    rois = reference.fast_rcnn_rois(boxes, batches)
    y, gx = _exact_run(roi_pooling_2d, x, gy, rois, outh, outw, scale)
    expected_y, expected_gx = reference.exact_fast_rcnn_pooling(x, rois, outh, outw, scale, gy)
    numpy.testing.assert_array_equal(y.array, expected_y)
    numpy.testing.assert_array_equal(gx, expected_gx)


@pytest.mark.parametrize("case", range(len(reference.EXACT_CASES)))
@pytest.mark.parametrize("sampling_ratio", [None, 2, (1, 3)])
@pytest.mark.parametrize("mode", ["max", "average"])
def test_roi_align_values_and_gradients_are_the_cpu_loops_bits(case, sampling_ratio, mode):
    x, boxes, batches, outh, outw, scale, gy = reference.exact_inputs(case, numpy.float32)
    function = roi_max_align_2d if mode == "max" else roi_average_align_2d
    y, gx = _exact_run(function, x, gy, boxes, batches, (outh, outw), scale,
                       sampling_ratio=sampling_ratio)
    expected_y, expected_gx, expected_argmax = reference.exact_roi_align(
        x, boxes, batches, outh, outw, scale, sampling_ratio, gy, mode)
    numpy.testing.assert_array_equal(y.array, expected_y)
    numpy.testing.assert_array_equal(gx, expected_gx)
    if mode == "max":
        # Chainer's creator is the adapter of its old-style Function.
        node = getattr(y.creator, "function", y.creator)
        numpy.testing.assert_array_equal(node.argmax_data, expected_argmax)


@pytest.mark.parametrize("name", ["roi_max_pooling_2d", "roi_average_pooling_2d",
                                  "roi_max_align_2d", "roi_average_align_2d"])
def test_rois_and_indices_get_no_gradient(name):
    function = globals()[name]
    x = chainer.Variable(_distinct_image(numpy.float32))
    rois = chainer.Variable(BOXES.astype(numpy.float32))
    y = function(x, rois, BATCHES, 2, 1.0)
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    assert rois.grad is None and x.grad is not None


@pytest.mark.parametrize("name", ["roi_max_pooling_2d", "roi_average_pooling_2d",
                                  "roi_max_align_2d", "roi_average_align_2d"])
@pytest.mark.parametrize("outsize, scale", [(0, 1.0), ((2, 0), 1.0), (1.5, 1.0), (2, 0.0),
                                            (2, -1.0), (2, "1")])
def test_bad_outsize_or_scale_raises_type_error(name, outsize, scale):
    x = _distinct_image(numpy.float32)
    with pytest.raises(TypeError):
        globals()[name](x, BOXES.astype(numpy.float32), BATCHES, outsize, scale)


@pytest.mark.parametrize("name", ["roi_max_align_2d", "roi_average_align_2d"])
@pytest.mark.parametrize("sampling_ratio", [0, (2, 0), 1.5])
def test_bad_sampling_ratio_raises_type_error(name, sampling_ratio):
    x = _distinct_image(numpy.float32)
    with pytest.raises(TypeError):
        globals()[name](x, BOXES.astype(numpy.float32), BATCHES, 2, 1.0, sampling_ratio)


@pytest.mark.parametrize("name", ["roi_max_pooling_2d", "roi_average_pooling_2d",
                                  "roi_max_align_2d", "roi_average_align_2d"])
def test_no_rois_give_an_empty_output_and_a_zero_gradient(name):
    x = chainer.Variable(_distinct_image(numpy.float32))
    y = globals()[name](x, numpy.zeros((0, 4), numpy.float32), numpy.zeros(0, numpy.int32),
                        (2, 3), 1.0)
    assert y.shape == (0, 2, 2, 3)
    y.grad = numpy.zeros(y.shape, numpy.float32)
    y.backward()
    assert x.grad.shape == x.shape and not x.grad.any()


def test_integer_spatial_scale_is_accepted():
    x = _distinct_image(numpy.float32)
    a = roi_average_pooling_2d(x, BOXES.astype(numpy.float32), BATCHES, 2, 1)
    b = roi_average_pooling_2d(x, BOXES.astype(numpy.float32), BATCHES, 2, 1.0)
    numpy.testing.assert_array_equal(a.array, b.array)


@pytest.mark.parametrize("name, dtypes", [
    ("roi_max_pooling_2d", (numpy.float32, numpy.float64, numpy.int32)),
    ("roi_average_pooling_2d", (numpy.float64, numpy.float64, numpy.int64)),
    ("roi_average_pooling_2d", (numpy.int32, numpy.int32, numpy.int32)),
    ("roi_max_align_2d", (numpy.float64, numpy.float64, numpy.int32)),
    ("roi_average_align_2d", (numpy.float64, numpy.float64, numpy.int32)),
    ("roi_average_align_2d", (numpy.float32, numpy.float32, numpy.int64)),
])
def test_wrong_dtypes_raise_invalid_type(name, dtypes):
    x_dtype, roi_dtype, index_dtype = dtypes
    x = _distinct_image(numpy.float32).astype(x_dtype)
    with pytest.raises(type_check.InvalidType):
        globals()[name](x, BOXES.astype(roi_dtype), BATCHES.astype(index_dtype), 2, 1.0)


def test_roi_pooling_2d_needs_five_columns_and_matching_dtype():
    x = _distinct_image(numpy.float32)
    with pytest.raises(type_check.InvalidType):
        roi_pooling_2d(x, BOXES.astype(numpy.float32), 2, 2, 1.0)
    rois = numpy.zeros((1, 5), numpy.float64)
    with pytest.raises(type_check.InvalidType):
        roi_pooling_2d(x, rois, 2, 2, 1.0)


def test_roi_count_must_match_indices():
    x = _distinct_image(numpy.float32)
    with pytest.raises(type_check.InvalidType):
        roi_max_pooling_2d(x, BOXES.astype(numpy.float32), BATCHES[:3], 2, 1.0)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_spatial_transformer_grid_and_its_gradient(dtype):
    rng = numpy.random.RandomState(3)
    theta = rng.standard_normal((2, 2, 3)).astype(dtype)
    grid, ggrid, gtheta = _run(spatial_transformer_grid, theta, (4, 5))
    expected = reference.spatial_transformer_grid(theta.astype(numpy.float64), 4, 5)
    assert grid.dtype == dtype and grid.shape == (2, 2, 4, 5)
    numpy.testing.assert_allclose(grid.array, expected, rtol=1e-5, atol=1e-6)
    # The grid is linear in theta: its gradient is the grid of the output gradient's weights.
    ys, xs = numpy.meshgrid(numpy.linspace(-1, 1, 4), numpy.linspace(-1, 1, 5), indexing="ij")
    coordinates = numpy.stack([xs, ys, numpy.ones_like(xs)])
    expected_gtheta = numpy.einsum("bkij,lij->bkl", ggrid.astype(numpy.float64), coordinates)
    numpy.testing.assert_allclose(gtheta, expected_gtheta, rtol=1e-5, atol=1e-5)


def _sampler_grid(rng, height, width, shape):
    """Normalized coordinates whose padded pixel coordinates have fractional parts in
    [0.2, 0.8]: inside the image, in the padding, and beyond it on every side."""
    n, out_h, out_w = shape
    u = rng.randint(-1, width + 3, size=shape) + rng.uniform(0.2, 0.8, size=shape)
    v = rng.randint(-1, height + 3, size=shape) + rng.uniform(0.2, 0.8, size=shape)
    return numpy.stack([(u - 1) * 2 / (width - 1) - 1, (v - 1) * 2 / (height - 1) - 1], axis=1)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_spatial_transformer_sampler_values_and_gradients(dtype):
    rng = numpy.random.RandomState(4)
    x = rng.standard_normal((2, 3, 4, 5)).astype(dtype)
    grid = _sampler_grid(rng, 4, 5, (2, 3, 4)).astype(dtype)
    xv, gridv = chainer.Variable(x), chainer.Variable(grid)
    y = spatial_transformer_sampler(xv, gridv)
    gy = rng.standard_normal(y.shape).astype(dtype)
    y.grad = gy
    y.backward()
    jacobian = reference.spatial_transformer_sampler(x.shape, grid.astype(numpy.float64))
    tolerance = {"rtol": 1e-5, "atol": 1e-5} if dtype == numpy.float32 else {"rtol": 1e-10}
    assert y.dtype == dtype and y.shape == (2, 3, 3, 4)
    numpy.testing.assert_allclose(y.array, reference.apply(jacobian, x), **tolerance)
    numpy.testing.assert_allclose(xv.grad, reference.transpose(jacobian, gy), **tolerance)
    # The grid's gradient: central differences of the reference (it is smooth between pixel
    # boundaries, and zero beyond the padding).
    step = 1e-6
    expected = numpy.zeros(grid.shape)
    x64, grid64 = x.astype(numpy.float64), grid.astype(numpy.float64)
    for index in numpy.ndindex(*grid.shape):
        plus, minus = grid64.copy(), grid64.copy()
        plus[index] += step
        minus[index] -= step
        difference = (reference.apply(reference.spatial_transformer_sampler(x.shape, plus), x64)
                      - reference.apply(reference.spatial_transformer_sampler(x.shape, minus),
                                        x64))
        expected[index] = (difference * gy).sum() / (2 * step)
    numpy.testing.assert_allclose(gridv.grad, expected, rtol=1e-4, atol=1e-4)


def test_spatial_transformer_sampler_checks_types():
    x = numpy.zeros((2, 1, 3, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        spatial_transformer_sampler(x, numpy.zeros((2, 2, 2, 2), numpy.float64))
    with pytest.raises(type_check.InvalidType):
        spatial_transformer_sampler(x, numpy.zeros((1, 2, 2, 2), numpy.float32))
    with pytest.raises(type_check.InvalidType):
        spatial_transformer_sampler(x, numpy.zeros((2, 3, 2, 2), numpy.float32))


def test_spatial_transformer_grid_checks_theta_shape():
    with pytest.raises(type_check.InvalidType):
        spatial_transformer_grid(numpy.zeros((2, 3, 3), numpy.float32), (2, 2))
    with pytest.raises(type_check.InvalidType):
        spatial_transformer_grid(numpy.zeros((2, 2, 3), numpy.int32), (2, 2))


@pytest.mark.parametrize("call", [
    lambda: spatial_transformer_grid(numpy.zeros((1, 2, 3), numpy.float32), (2, 2),
                                     use_cudnn=False),
    lambda: spatial_transformer_sampler(numpy.zeros((1, 1, 2, 2), numpy.float32),
                                        numpy.zeros((1, 2, 2, 2), numpy.float32),
                                        use_cudnn=False),
])
def test_removed_use_cudnn_option_raises_value_error(call):
    with pytest.raises(ValueError, match="use_cudnn"):
        call()


@pytest.mark.parametrize("call", [
    lambda: spatial_transformer_grid(numpy.zeros((1, 2, 3), numpy.float32), (2, 2), foo=1),
    lambda: spatial_transformer_sampler(numpy.zeros((1, 1, 2, 2), numpy.float32),
                                        numpy.zeros((1, 2, 2, 2), numpy.float32), foo=1),
])
def test_unknown_keyword_raises_type_error(call):
    with pytest.raises(TypeError):
        call()
