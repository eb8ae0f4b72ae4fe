"""spatial_transformer_sampler: values and input gradient against a point-by-point loop
(inside the image, in the zero padding and beyond it), numerical gradients of the first,
second and third order, and type errors."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat import Variable, grad, gradient_check
from chainer_compat.functions.array.spatial_transformer_sampler import spatial_transformer_sampler
from chainer_compat.utils import type_check

_spec = importlib.util.spec_from_file_location(
    "_roi_reference",
    pathlib.Path(__file__).parents[1] / "pooling" / "_roi_reference.py")
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)

HEIGHT, WIDTH = 4, 5


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _grid(rng, shape=(2, 3, 3)):
    """Coordinates whose padded pixel positions have fractional parts in [0.2, 0.8], from
    beyond the padding on one side to beyond it on the other: smooth under small steps."""
    u = rng.randint(-1, WIDTH + 3, size=shape) + rng.uniform(0.2, 0.8, size=shape)
    v = rng.randint(-1, HEIGHT + 3, size=shape) + rng.uniform(0.2, 0.8, size=shape)
    return numpy.stack([(u - 1) * 2 / (WIDTH - 1) - 1, (v - 1) * 2 / (HEIGHT - 1) - 1], axis=1)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_values_and_input_gradient_match_reference(xp, dtype):
    rng = numpy.random.RandomState(0)
    x = rng.standard_normal((2, 3, HEIGHT, WIDTH)).astype(dtype)
    grid = _grid(rng).astype(dtype)
    xv = Variable(xp.asarray(x))
    y = spatial_transformer_sampler(xv, xp.asarray(grid))
    gy = rng.standard_normal(y.shape).astype(dtype)
    y.grad = xp.asarray(gy)
    y.backward()
    jacobian = reference.spatial_transformer_sampler(x.shape, grid.astype(numpy.float64))
    tolerance = {"rtol": 1e-5, "atol": 1e-5} if dtype == numpy.float32 else {"rtol": 1e-12}
    assert y.dtype == dtype and y.shape == (2, 3, 3, 3)
    numpy.testing.assert_allclose(_host(y.array), reference.apply(jacobian, x), **tolerance)
    numpy.testing.assert_allclose(_host(xv.grad), reference.transpose(jacobian, gy), **tolerance)


def test_pixel_centres_are_sampled_exactly():
    x = numpy.arange(20.0).reshape(1, 1, HEIGHT, WIDTH)
    columns, rows = numpy.meshgrid(numpy.linspace(-1, 1, WIDTH), numpy.linspace(-1, 1, HEIGHT))
    grid = numpy.stack([columns, rows])[None]
    numpy.testing.assert_allclose(spatial_transformer_sampler(x, grid).array, x, atol=1e-12)


def test_gradients_match_numerical_up_to_third_order(xp):
    rng = numpy.random.RandomState(1)
    x = xp.asarray(rng.standard_normal((2, 2, HEIGHT, WIDTH)))
    grid = xp.asarray(_grid(rng))
    gy = xp.asarray(rng.standard_normal((2, 2, 3, 3)))
    ggx = xp.asarray(rng.standard_normal(x.shape))
    ggrid = xp.asarray(rng.standard_normal(grid.shape))
    gradient_check.check_backward(spatial_transformer_sampler, (x, grid), gy, eps=1e-4)
    gradient_check.check_double_backward(spatial_transformer_sampler, (x, grid), gy,
                                         (ggx, ggrid), eps=1e-4)

    def second(a, g):
        gx, gg = grad([spatial_transformer_sampler(a, g)], [a, g], [Variable(gy)],
                      enable_double_backprop=True)
        return gx * ggx, gg * ggrid

    gradient_check.check_double_backward(
        second, (x, grid), (ggx, ggrid), (xp.asarray(rng.standard_normal(x.shape)),
                                          xp.asarray(rng.standard_normal(grid.shape))),
        eps=1e-4)


def test_grid_gradient_is_zero_beyond_the_padding():
    x = Variable(numpy.ones((1, 1, HEIGHT, WIDTH)))
    grid = Variable(numpy.array([[[[3.0]], [[0.1]]]]))  # far right of the padding
    y = spatial_transformer_sampler(x, grid)
    y.grad = numpy.ones(y.shape)
    y.backward()
    assert y.array.item() == 0.0 and grid.grad[0, 0].item() == 0.0


def test_mismatched_grid_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match="grid"):
        spatial_transformer_sampler(numpy.zeros((2, 1, 3, 3), numpy.float32),
                                    numpy.zeros((2, 2, 2, 2), numpy.float64))


def test_backward_applies_no_function_as_chainers_old_style_function():
    # Chainer 7.8.1's sampler computes its gradients on arrays; ours do the same unless double
    # backprop records a graph (NOTE [old-style gradients]).
    rng = numpy.random.default_rng(28)
    x = rng.standard_normal((2, 3, 5, 6)).astype(numpy.float32)
    grid = rng.uniform(-1.3, 1.3, (2, 2, 4, 3)).astype(numpy.float32)
    gy = rng.standard_normal((2, 3, 4, 3)).astype(numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(spatial_transformer_sampler, (x, grid), gy)
    assert labels == []
    variables = (Variable(x), Variable(grid))
    recorded = grad([spatial_transformer_sampler(*variables)], list(variables), [Variable(gy)],
                    enable_double_backprop=True)
    for gradient, under_hook, through_functions in zip(plain, hooked, recorded):
        numpy.testing.assert_array_equal(gradient, under_hook)
        assert through_functions.creator is not None
        numpy.testing.assert_allclose(through_functions.array, gradient, rtol=1e-5, atol=1e-5)
