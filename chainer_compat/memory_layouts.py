"""``chainer.memory_layouts``: names of the memory layouts (channel-first, cuDNN's channel-last),
the axis permutations between them and ``AsLayout``, the node that converts a variable's layout.

Layer 4: imports ``variable``, ``function_node`` and ``utils.type_check``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check
from chainer_compat.variable import Variable

__all__ = [
    "CUDNN_CHANNEL_FIRST_W",
    "CUDNN_CHANNEL_FIRST_X",
    "CUDNN_CHANNEL_LAST_W",
    "CUDNN_CHANNEL_LAST_X",
    "AsLayout",
    "get_raw_shape",
    "get_semantic_shape",
]

# A layout is None (the standard one: channels on axis 1, the semantic order of every function)
# or the name of a non-standard one. X is data (N, C, ...), W is a convolution filter
# (out channels, in channels, ...); channel-last moves axis 1 to the end.
CUDNN_CHANNEL_FIRST_X: str | None = None
CUDNN_CHANNEL_LAST_X: str | None = "CUDNN_CHANNEL_LAST_X"
CUDNN_CHANNEL_FIRST_W: str | None = None
CUDNN_CHANNEL_LAST_W: str | None = "CUDNN_CHANNEL_LAST_W"

# Each channel-last layout and the channel-first layout it converts to and from.
_CHANNEL_FIRST_OF = {
    CUDNN_CHANNEL_LAST_X: CUDNN_CHANNEL_FIRST_X,
    CUDNN_CHANNEL_LAST_W: CUDNN_CHANNEL_FIRST_W,
}


class _Unspecified:
    """Marks an argument the caller left out where None is a meaningful value."""

    def __repr__(self) -> str:
        return "<unspecified>"


_unspecified: Any = _Unspecified()


def _layout_of(variable: Variable) -> str | None:
    # Variables without layout support carry the standard layout.
    return getattr(variable, "layout", None)


def get_raw_shape(arr_or_var: Any) -> tuple[int, ...]:
    """Returns the shape of the array as stored in memory.

    For a Variable with a non-standard layout this differs from ``Variable.shape``, which is
    the semantic shape.

    Args:
        arr_or_var: An array or a Variable.

    Returns:
        The shape of the array, or of the Variable's data array.
    """
    if isinstance(arr_or_var, Variable):
        return tuple(arr_or_var.raw_array.shape)
    return tuple(arr_or_var.shape)


def get_semantic_shape(arr_or_var: Any, *,
                       assumed_layout: str | None = _unspecified) -> tuple[int, ...]:
    """Returns the shape in the standard (channel-first) axis order.

    Args:
        arr_or_var: An array or a Variable.
        assumed_layout: For an array, the layout its memory is in (the shape is permuted from
            it); for a Variable, the layout it must have. Left out, an array's shape is
            returned as is.

    Returns:
        The semantic shape.

    Raises:
        ValueError: If a Variable's layout is not ``assumed_layout``, or the layout is unknown.

    Compat: Chainer checks a Variable's layout with ``assert`` (AssertionError).
    """
    if not isinstance(arr_or_var, Variable):
        shape = tuple(arr_or_var.shape)
        if assumed_layout is not _unspecified:
            shape = _transpose_shape(shape, assumed_layout, None)
        return shape
    layout = _layout_of(arr_or_var)
    if assumed_layout is not _unspecified and assumed_layout != layout:
        raise ValueError(
            f"assumed_layout must be the layout of the variable, got {assumed_layout!r} for a "
            f"variable of layout {layout!r}")
    return tuple(arr_or_var.shape)


def _transpose_array(array: Any, src_layout: str | None, dst_layout: str | None) -> Any:
    """Returns ``array`` (stored in ``src_layout``) as a view in ``dst_layout``."""
    axes = _get_layout_transpose_axes(array.ndim, src_layout, dst_layout)
    if axes is None:
        return array
    return array.transpose(*axes)


def _transpose_shape(shape: tuple[int, ...], src_layout: str | None,
                     dst_layout: str | None) -> tuple[int, ...]:
    """Returns the shape an array of ``shape`` in ``src_layout`` has in ``dst_layout``."""
    axes = _get_layout_transpose_axes(len(shape), src_layout, dst_layout)
    if axes is None:
        return shape
    return tuple(shape[axis] for axis in axes)


def _get_layout_transpose_axes(ndim: int, src_layout: str | None, dst_layout: str | None,
                               inverse: bool = False) -> tuple[int, ...] | None:
    """Returns the ``transpose`` axes that turn an array in ``src_layout`` into ``dst_layout``.

    Args:
        ndim: Number of dimensions of the array.
        src_layout: Layout the array is in.
        dst_layout: Layout wanted.
        inverse: Whether to return the permutation back from ``dst_layout`` instead.

    Returns:
        A permutation of ``range(ndim)``, or None when the layouts are the same.

    Raises:
        ValueError: If no conversion between the layouts is known, or ``ndim`` is below 3.
            Compat: Chainer raises AssertionError for the second case and for a channel-last
            layout paired with the wrong channel-first one.
    """
    if src_layout == dst_layout:
        return None
    # One side must be a channel-last layout and the other its channel-first layout.
    if dst_layout in _CHANNEL_FIRST_OF:
        known = src_layout == _CHANNEL_FIRST_OF[dst_layout]
    else:
        known = src_layout in _CHANNEL_FIRST_OF and dst_layout == _CHANNEL_FIRST_OF[src_layout]
    if not known:
        # compat: Chainer's wording.
        raise ValueError(f"Unknown layout conversion: from '{src_layout}' to '{dst_layout}'")
    if ndim < 3:
        raise ValueError(
            f"ndim must be at least 3 to convert from '{src_layout}' to '{dst_layout}' (a "
            f"batch or output axis, a channel axis and at least one spatial axis), got {ndim}")
    if dst_layout in _CHANNEL_FIRST_OF:
        # (N, C, *spatial) -> (N, *spatial, C)
        axes = (0, *range(2, ndim), 1)
    else:
        # (N, *spatial, C) -> (N, C, *spatial)
        axes = (0, ndim - 1, *range(1, ndim - 1))
    if inverse:
        inverted = [0] * ndim
        for position, axis in enumerate(axes):
            inverted[axis] = position
        axes = tuple(inverted)
    return axes


class AsLayout(FunctionNode):
    """Converts its input to the memory layout ``layout`` by permuting its axes.

    The input's layout is read in ``check_layout_forward`` by an engine that tracks layouts.

    Args:
        layout: The layout of the output.

    Compat: chainer_compat's Variables have no ``layout`` and ``FunctionNode.apply`` does not
    call ``check_layout_forward``, so the input is taken to be in the standard layout and the
    output Variable's ``shape`` is its raw (permuted) shape.
    """

    # compat: class-level defaults, read before check_layout_forward sets them.
    axes: tuple[int, ...] | None = None
    in_layout: str | None = None

    def __init__(self, layout: str | None) -> None:
        self.out_layout = layout

    @property
    def label(self) -> str:
        return "AsLayout"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))

    def check_layout_forward(self, inputs: tuple[Any, ...]) -> None:
        """Reads the layout of the input Variable."""
        x, = inputs
        self.in_layout = _layout_of(x)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.axes = _get_layout_transpose_axes(x.ndim, self.in_layout, self.out_layout)
        # Read by an engine that tracks layouts: the layout of each output.
        self.output_layouts = (self.out_layout,)
        if self.axes is None:
            return x,
        return x.transpose(self.axes),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        back = AsLayout(self.in_layout)
        # The gradient is in the output's layout; set here for engines that do not track it.
        back.in_layout = self.out_layout
        return back.apply(grad_outputs)
