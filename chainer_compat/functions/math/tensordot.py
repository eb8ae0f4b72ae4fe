"""``tensordot``: the differentiable sum of products over chosen axes of two arrays.

Layer 5: imports the core.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.math._common import is_int
from chainer_compat.utils import type_check


def _axis_list(axes: Any) -> list[int]:
    return [int(axes)] if is_int(axes) else [int(a) for a in axes]


def _paired_axes(
        a_axes: list[int], b_axes: list[int], a: Any, b: Any) -> tuple[list[int], list[int]]:
    """Checks the contracted axes in Chainer's order and returns them counted from 0.

    compat: Chainer checks the counts (ValueError), then walks the pairs comparing lengths
    (ValueError), where an axis out of range fails to index the shape tuple (IndexError).
    """
    if len(a_axes) != len(b_axes):
        raise ValueError(
            f"axes count mismatch\ntensordot must contract as many axes of a as of b, got "
            f"{a_axes} of a and {b_axes} of b; pass two sequences of equal length")
    if len(a_axes) > a.ndim or len(b_axes) > b.ndim:
        raise ValueError(
            "dimension of input tensors must be greater equal to dot-axes count "
            f"({len(a_axes)})\ntensordot axes must be at most the ndim of both inputs, got "
            f"{len(a_axes)} axes for inputs of shapes {a.shape} and {b.shape}")
    for a_axis, b_axis in zip(a_axes, b_axes, strict=True):
        for name, axis, array in (("a", a_axis, a), ("b", b_axis, b)):
            if not -array.ndim <= axis < array.ndim:
                raise IndexError(
                    f"tensordot axes of {name} must be in [-{array.ndim}, {array.ndim}), got "
                    f"{axis} for {name} of shape {array.shape}; pass axes of {name}")
        if a.shape[a_axis] != b.shape[b_axis]:
            raise ValueError(
                "shape mismatch\ntensordot contracted axes must have equal lengths, got axis "
                f"{a_axis} of a {a.shape} and axis {b_axis} of b {b.shape}")
    return [axis % a.ndim for axis in a_axes], [axis % b.ndim for axis in b_axes]


class TensorDot(FunctionNode):
    """Contracts ``a`` and ``b`` over paired axes.

    Either ``axes`` (as :func:`tensordot`), or the explicit layout: ``a_axes`` is
    ``[a's free axes, a's contracted axes]``, ``b_axes`` is ``[b's contracted axes, b's free
    axes]``, and ``c_axes`` is ``[output positions of a's free axes, output positions of b's
    free axes]`` (None: a's free axes first, then b's, in order).

    Raises:
        TypeError: If ``axes`` is neither an int nor a pair of sequences.
        ValueError: If ``axes`` is a sequence whose length is not two.
    """

    def __init__(self, axes: Any = 2, a_axes: Any = None, b_axes: Any = None,
                 c_axes: Any = None, dtype: Any = None) -> None:
        # compat: a str is a sequence here too, as in Chainer.
        if isinstance(axes, Sequence):
            if len(axes) != 2:
                # compat: Chainer's wording.
                raise ValueError("axes must be a pair of sequence of integers when it is a "
                                 f"list or tuple.\nGot {axes!r}")
        elif not is_int(axes):
            raise TypeError(
                f"axes must be a pair of sequence of integers or an integer\nGot {axes!r}")
        self.axes = axes
        self.a_axes = a_axes
        self.b_axes = b_axes
        self.c_axes = c_axes
        self.dtype = dtype

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a", "b"))
        type_check.expect(in_types[0].dtype.kind == "f", in_types[1].dtype.kind == "f")

    def _layout(self, a: Any, b: Any) -> None:
        """Fills in ``a_axes``, ``b_axes`` and ``c_axes`` from ``axes`` and the inputs."""
        if self.a_axes is None or self.b_axes is None:
            if is_int(self.axes):
                # compat: a negative count contracts no axes (an outer product), as in
                # Chainer, which hands it to NumPy's tensordot.
                count = max(int(self.axes), 0)
                if count > a.ndim or count > b.ndim:
                    raise ValueError(
                        "dimension of input tensors must be greater equal to dot-axes count "
                        f"({count})\ntensordot axes must be at most the ndim of both inputs, "
                        f"got {count} for inputs of shapes {a.shape} and {b.shape}")
                a_contracted = list(range(a.ndim - count, a.ndim))
                b_contracted = list(range(count))
            else:
                a_contracted, b_contracted = _paired_axes(
                    _axis_list(self.axes[0]), _axis_list(self.axes[1]), a, b)
            self.a_axes = [[i for i in range(a.ndim) if i not in a_contracted], a_contracted]
            self.b_axes = [b_contracted, [i for i in range(b.ndim) if i not in b_contracted]]
        a_free, a_contracted = (list(s) for s in self.a_axes)
        b_contracted, b_free = (list(s) for s in self.b_axes)
        if len(a_contracted) != len(b_contracted):
            raise ValueError(
                "axes count mismatch\ntensordot must contract as many axes of a as of b, got "
                f"{a_contracted} of a and {b_contracted} of b")
        for a_axis, b_axis in zip(a_contracted, b_contracted, strict=True):
            if a.shape[a_axis] != b.shape[b_axis]:
                raise ValueError(
                    "shape mismatch\ntensordot contracted axes must have equal lengths, got "
                    f"axis {a_axis} of a {a.shape} and axis {b_axis} of b {b.shape}")
        if self.c_axes is None:
            self.c_axes = [list(range(len(a_free))),
                           list(range(len(a_free), len(a_free) + len(b_free)))]

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        self._layout(a, b)
        a_free, a_contracted = (list(s) for s in self.a_axes)
        b_contracted, b_free = (list(s) for s in self.b_axes)
        xp = backend.get_array_module(a, b)
        # Tuples: CuPy accepts a 0-d operand only with axes 0 or ((), ()), and a list pair
        # compares unequal to the latter (a 0-d gradient flows back after a full contraction).
        raw = xp.tensordot(a, b, axes=(tuple(a_contracted), tuple(b_contracted)))
        # raw holds a's free axes in increasing order, then b's; move each to its c position.
        source = ([sorted(a_free).index(axis) for axis in a_free]
                  + [len(a_free) + sorted(b_free).index(axis) for axis in b_free])
        order = [0] * raw.ndim
        positions = list(self.c_axes[0]) + list(self.c_axes[1])
        for position, index in zip(positions, source, strict=True):
            order[position] = index
        if order != list(range(raw.ndim)):
            raw = raw.transpose(order)
        return utils.force_array(raw, self.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        a, b = self.get_retained_inputs()
        gc, = grad_outputs
        a_free, a_contracted = self.a_axes
        b_contracted, b_free = self.b_axes
        c_a, c_b = self.c_axes
        grads = []
        if 0 in indexes:
            # ga pairs gc's b-part (c_b) with b's free axes; b's contracted axes take a's.
            ga, = TensorDot(a_axes=[c_a, c_b], b_axes=[b_free, b_contracted],
                            c_axes=[a_free, a_contracted], dtype=a.dtype).apply((gc, b))
            grads.append(ga)
        if 1 in indexes:
            # gb pairs a's free axes with gc's a-part (c_a), symmetrically.
            gb, = TensorDot(a_axes=[a_contracted, a_free], b_axes=[c_a, c_b],
                            c_axes=[b_contracted, b_free], dtype=b.dtype).apply((a, gc))
            grads.append(gb)
        return tuple(grads)


def tensordot(a: Any, b: Any, axes: Any = 2) -> variable.Variable:
    """Sums the products of ``a`` and ``b`` over paired axes, as ``numpy.tensordot``.

    Args:
        a: First operand (float Variable or array).
        b: Second operand (float Variable or array).
        axes: An int ``n`` (contract the last ``n`` axes of ``a`` with the first ``n`` of
            ``b``; none when ``n <= 0``), or a pair ``(a_axes, b_axes)`` of ints or sequences
            of ints, paired in order.

    Returns:
        The output Variable: ``a``'s free axes, then ``b``'s.

    Raises:
        TypeError: If ``axes`` is neither an int nor a pair.
        ValueError: If the paired axes differ in count or length.
        IndexError: If a paired axis is out of range (as in Chainer).
    """
    y, = TensorDot(axes=axes).apply((a, b))
    return y
