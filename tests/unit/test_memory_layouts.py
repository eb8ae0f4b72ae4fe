"""Unit tests of chainer_compat.memory_layouts: the axis permutations between layouts, the shape
helpers and AsLayout's forward and backward."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check
from chainer_compat import memory_layouts as layouts

LAST_X = layouts.CUDNN_CHANNEL_LAST_X
LAST_W = layouts.CUDNN_CHANNEL_LAST_W


@pytest.mark.parametrize("ndim", [3, 4, 5])
@pytest.mark.parametrize("last", [LAST_X, LAST_W])
def test_channel_last_axes_move_axis_1_to_the_end_and_back(ndim, last):
    array = numpy.empty(tuple(range(2, 2 + ndim)))
    to_last = layouts._get_layout_transpose_axes(ndim, None, last)
    to_first = layouts._get_layout_transpose_axes(ndim, last, None)
    assert array.transpose(to_last).shape == numpy.moveaxis(array, 1, -1).shape
    assert array.transpose(to_last).transpose(to_first).shape == array.shape
    assert layouts._get_layout_transpose_axes(ndim, None, last, inverse=True) == to_first


@pytest.mark.parametrize("layout", [None, LAST_X, LAST_W])
def test_same_layout_needs_no_transpose(layout):
    assert layouts._get_layout_transpose_axes(4, layout, layout) is None
    array = numpy.empty((2, 3, 4, 5))
    assert layouts._transpose_array(array, layout, layout) is array
    assert layouts._transpose_shape((2, 3, 4, 5), layout, layout) == (2, 3, 4, 5)


def test_transpose_array_returns_a_view_in_the_new_layout():
    array = numpy.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    last = layouts._transpose_array(array, None, LAST_X)
    numpy.testing.assert_array_equal(last, numpy.moveaxis(array, 1, -1))
    assert numpy.shares_memory(last, array)
    numpy.testing.assert_array_equal(layouts._transpose_array(last, LAST_X, None), array)


@pytest.mark.parametrize("source, target", [
    ("NHWC", None), (None, "NHWC"), (LAST_X, LAST_W), (LAST_W, LAST_X)])
def test_unknown_conversions_raise_value_error(source, target):
    with pytest.raises(ValueError, match="Unknown layout conversion"):
        layouts._get_layout_transpose_axes(4, source, target)


def test_conversion_of_fewer_than_three_axes_raises_value_error():
    # compat: Chainer asserts instead.
    with pytest.raises(ValueError, match="ndim must be at least 3"):
        layouts._get_layout_transpose_axes(2, None, LAST_X)


def test_semantic_shape_of_an_array_in_an_assumed_layout():
    array = numpy.empty((2, 4, 5, 3))
    assert layouts.get_semantic_shape(array) == (2, 4, 5, 3)
    assert layouts.get_semantic_shape(array, assumed_layout=LAST_X) == (2, 3, 4, 5)
    assert layouts.get_semantic_shape(array, assumed_layout=None) == (2, 4, 5, 3)


def test_semantic_shape_of_a_variable_checks_the_assumed_layout():
    variable = chainer.Variable(numpy.empty((2, 3, 4)))
    assert layouts.get_semantic_shape(variable, assumed_layout=None) == (2, 3, 4)
    with pytest.raises(ValueError, match="assumed_layout must be the layout of the variable"):
        layouts.get_semantic_shape(variable, assumed_layout=LAST_X)


def test_raw_shape_of_array_and_variable():
    assert layouts.get_raw_shape(numpy.empty((3, 1))) == (3, 1)
    assert layouts.get_raw_shape(chainer.Variable(numpy.empty((2, 5)))) == (2, 5)


def test_unspecified_marker_has_chainer_repr():
    assert repr(layouts._unspecified) == "<unspecified>"


def test_as_layout_forward_permutes_to_channel_last():
    x = numpy.random.default_rng(0).standard_normal((2, 3, 4, 5))
    y, = layouts.AsLayout(LAST_X).apply((chainer.Variable(x),))
    numpy.testing.assert_array_equal(y.array, numpy.moveaxis(x, 1, -1))
    assert layouts.get_raw_shape(y) == (2, 4, 5, 3)


def test_as_layout_to_the_same_layout_passes_the_array_through():
    x = numpy.ones((2, 3, 4))
    y, = layouts.AsLayout(None).apply((chainer.Variable(x),))
    numpy.testing.assert_array_equal(y.array, x)


def test_as_layout_backward_transposes_the_gradient_back():
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4))
    gy = rng.standard_normal((2, 4, 3))
    gradient_check.check_backward(
        lambda a: layouts.AsLayout(LAST_W).apply((a,))[0], x, gy, dtype=numpy.float64)


def test_as_layout_double_backward():
    rng = numpy.random.default_rng(2)
    x = rng.standard_normal((2, 3, 2, 2))
    gy = rng.standard_normal((2, 2, 2, 3))
    ggx = rng.standard_normal(x.shape)
    gradient_check.check_double_backward(
        lambda a: layouts.AsLayout(LAST_X).apply((a,))[0], x, gy, ggx, dtype=numpy.float64)


def test_as_layout_reads_the_input_layout_in_check_layout_forward():
    class _LayoutVariable:
        layout = LAST_X

    node = layouts.AsLayout(None)
    node.check_layout_forward((_LayoutVariable(),))
    assert node.in_layout == LAST_X
    y, = node.forward((numpy.empty((2, 4, 5, 3)),))
    assert y.shape == (2, 3, 4, 5)
    assert node.output_layouts == (None,)
    assert node.label == "AsLayout"
