"""spatial_transformer_grid: values against a pixel-by-pixel loop, gradients of first and
second order, and keyword errors."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.array.spatial_transformer_grid import spatial_transformer_grid

_spec = importlib.util.spec_from_file_location(
    "_roi_reference",
    pathlib.Path(__file__).parents[1] / "pooling" / "_roi_reference.py")
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3, 4), (1, 5), (4, 1)])
def test_values_match_reference(xp, dtype, shape):
    theta = numpy.random.RandomState(0).standard_normal((2, 2, 3)).astype(dtype)
    grid = spatial_transformer_grid(xp.asarray(theta), shape)
    expected = reference.spatial_transformer_grid(theta.astype(numpy.float64), *shape)
    assert grid.dtype == dtype and grid.shape == (2, 2) + shape
    numpy.testing.assert_allclose(_host(grid.array), expected,
                                  rtol=1e-2 if dtype == numpy.float16 else 1e-6, atol=1e-2)


def test_identity_theta_gives_the_normalized_target_coordinates():
    theta = numpy.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    grid = spatial_transformer_grid(theta, (2, 3)).array
    numpy.testing.assert_array_equal(grid[0, 0], numpy.tile(numpy.linspace(-1, 1, 3), (2, 1)))
    numpy.testing.assert_array_equal(grid[0, 1], numpy.tile([[-1.0], [1.0]], (1, 3)))


def test_gradients_match_numerical_of_first_and_second_order(xp):
    rng = numpy.random.RandomState(1)
    theta = xp.asarray(rng.standard_normal((2, 2, 3)))
    gy = xp.asarray(rng.standard_normal((2, 2, 3, 4)))

    def grid(a):
        return spatial_transformer_grid(a, (3, 4))

    gradient_check.check_backward(grid, (theta,), gy)
    gradient_check.check_double_backward(grid, (theta,), gy,
                                         (xp.asarray(rng.standard_normal((2, 2, 3))),))


def test_use_cudnn_raises_value_error_and_other_keywords_type_error():
    theta = numpy.zeros((1, 2, 3), numpy.float32)
    with pytest.raises(ValueError, match="use_cudnn"):
        spatial_transformer_grid(theta, (2, 2), use_cudnn="always")
    with pytest.raises(TypeError, match="unexpected keyword"):
        spatial_transformer_grid(theta, (2, 2), scale=2)


def test_backward_applies_no_function_as_chainers_old_style_function():
    rng = numpy.random.default_rng(29)
    theta = rng.standard_normal((2, 2, 3)).astype(numpy.float32)
    gy = rng.standard_normal((2, 2, 4, 5)).astype(numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(
        lambda theta: spatial_transformer_grid(theta, (4, 5)), (theta,), gy)
    assert labels == []  # Chainer 7.8.1's grid is an old-style Function
    numpy.testing.assert_array_equal(plain[0], hooked[0])
    v = chainer_compat.Variable(theta)
    recorded, = chainer_compat.grad([spatial_transformer_grid(v, (4, 5))], [v],
                                    [chainer_compat.Variable(gy)], enable_double_backprop=True)
    assert recorded.creator.label == "SpatialTransformerGridGrad"
    numpy.testing.assert_array_equal(recorded.array, plain[0])
