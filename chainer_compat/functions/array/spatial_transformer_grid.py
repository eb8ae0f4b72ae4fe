"""``spatial_transformer_grid``: the sampling grid of a spatial transformer, an affine map of
the target pixel coordinates. Layer 5: imports backend, utils, variable, function_node and
type_check. The map is linear in ``theta``, so its gradient is linear too and differentiable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import (
    OldStyleCall,
    gradients_without_graph,
    records_a_graph,
)
from chainer_compat.utils import argument, type_check


def _target_coordinates(xp: Any, height: int, width: int, dtype: Any) -> Any:
    """``(3, height * width)`` rows of target ``x``, ``y`` (each in ``[-1, 1]``) and ones."""
    ys, xs = xp.meshgrid(xp.linspace(-1, 1, height, dtype=dtype),
                         xp.linspace(-1, 1, width, dtype=dtype), indexing="ij")
    ones = xp.ones((height, width), dtype=dtype)
    return xp.stack([xs, ys, ones]).reshape(3, height * width)


class SpatialTransformerGrid(OldStyleCall, FunctionNode):
    """Affine sampling grid. Use :func:`spatial_transformer_grid`.

    Compat: a ``FunctionNode`` (Chainer's is an old-style ``Function``); calling an instance
    works as Chainer's ``Function.__call__`` does.
    """

    def __init__(self, output_shape: tuple[int, int]) -> None:
        self.output_shape = output_shape

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("theta",))
        theta_type, = in_types
        type_check.expect(
            theta_type.dtype.kind == "f",
            theta_type.ndim == 3,
            theta_type.shape[1] == 2,
            theta_type.shape[2] == 3,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        theta, = inputs
        xp = backend.get_array_module(theta)
        height, width = self.output_shape
        coordinates = _target_coordinates(xp, height, width, theta.dtype)
        grid = theta.dot(coordinates).reshape(theta.shape[0], 2, height, width)
        return grid,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        if not records_a_graph():
            return gradients_without_graph(
                (_theta_gradient(grad_outputs[0].array, self.output_shape),), indexes)
        return SpatialTransformerGridGrad(self.output_shape).apply(grad_outputs)


class SpatialTransformerGridGrad(FunctionNode):
    """The gradient of :class:`SpatialTransformerGrid` with respect to ``theta``: the
    transposed affine map, whose own gradient is the grid again."""

    def __init__(self, output_shape: tuple[int, int]) -> None:
        self.output_shape = output_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _theta_gradient(inputs[0], self.output_shape),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return SpatialTransformerGrid(self.output_shape).apply(grad_outputs)


def _theta_gradient(grid_grad: Any, output_shape: tuple[int, int]) -> Any:
    """The gradient with respect to ``theta`` of a grid's gradient ``grid_grad``."""
    xp = backend.get_array_module(grid_grad)
    height, width = output_shape
    coordinates = _target_coordinates(xp, height, width, grid_grad.dtype)
    batch = grid_grad.shape[0]
    theta_grad = grid_grad.reshape(batch, 2, height * width).dot(coordinates.T)
    return theta_grad.reshape(batch, 2, 3)


def spatial_transformer_grid(theta: Any, output_shape: tuple[int, int],
                             **kwargs: Any) -> variable.Variable:
    """The source coordinates a spatial transformer samples for each target pixel.

    Target pixel ``(i, j)`` of an ``h_O x w_O`` output has normalized coordinates
    ``x_t = linspace(-1, 1, w_O)[j]`` and ``y_t = linspace(-1, 1, h_O)[i]``; its source is
    ``theta @ (x_t, y_t, 1)``. ``(-1, -1)`` is the upper-left corner of the source image.

    Args:
        theta: Variable or array of shape ``(n, 2, 3)``: one affine matrix per sample.
        output_shape: ``(h_O, w_O)``.

    Returns:
        A Variable of shape ``(n, 2, h_O, w_O)``: the source ``x`` then ``y`` of each pixel.

    Raises:
        ValueError: For the removed ``use_cudnn`` option (use
            ``chainer.using_config('use_cudnn', ...)``).
        TypeError: For any other keyword argument.
        chainer_compat.utils.type_check.InvalidType: If ``theta`` is not a float array of
            shape ``(n, 2, 3)``.

    Compat: the result can be differentiated twice (Chainer's gradient is not differentiable).
    """
    if kwargs:
        argument.check_unexpected_kwargs(
            kwargs, use_cudnn="The argument \"use_cudnn\" is not supported anymore. "
            "Use chainer.using_config('use_cudnn', value) context where value can be "
            "`always`, `never`, or `auto`.")
        argument.assert_kwargs_empty(kwargs)
    return SpatialTransformerGrid(output_shape)(theta)
