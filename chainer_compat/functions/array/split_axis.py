"""``split_axis``: splits an array into pieces along an axis.

Layer 5: imports backend, configuration, function_node, utils.type_check and the
``concat`` function.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.configuration import config
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import axis_range_message, is_int
from chainer_compat.functions.array.concat import concat
from chainer_compat.utils import type_check
from chainer_compat.utils._assertions import ZeroDivisionValueError


def _as_indices(value: Any) -> tuple[int, ...]:
    """The split indices of a sequence or 1-D array, refusing what Chainer refuses."""
    if isinstance(value, numpy.ndarray):
        if value.ndim >= 2:
            raise TypeError(
                f"indices_or_sections must be 1-D sequence, got an array of shape "
                f"{value.shape}")
        # compat: an empty array is accepted whatever its dtype (numpy.array([]) is float64).
        if value.dtype.kind not in "iu" and value.size > 0:
            raise TypeError(
                f"indices_or_sections must be integers, got an array of dtype {value.dtype}")
    indices = tuple(value)
    for index in indices:
        if not is_int(index):
            raise TypeError(
                f"indices_or_sections must be integers, got {type(index).__name__} {index!r} "
                f"in {indices!r}")
    return tuple(int(index) for index in indices)


class SplitAxis(FunctionNode):
    """Splits its input along ``axis`` into sections or at indices.

    Args:
        indices_or_sections: An int N (N equal pieces) or a sorted sequence of indices.
        axis: The axis to split along.

    Raises:
        TypeError: If ``indices_or_sections`` is neither an int nor a sequence of ints.
        ValueError: If the number of sections is not positive, or (in debug mode) if the
            indices are not sorted.
    """

    def __init__(self, indices_or_sections: Any, axis: int) -> None:
        value = indices_or_sections
        if isinstance(value, numpy.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
            value = int(value)  # Chainer reads a 0-d int array as a number of sections
        if is_int(value):
            self.sections: int | None = int(value)
            self.indices: tuple[int, ...] | None = None
            if self.sections <= 0:
                # compat: NumPy's sentence (Chainer's split raises it for a negative count,
                # and ZeroDivisionError from its type check, which takes the length modulo 0).
                raise ZeroDivisionValueError(
                    "number sections must be larger than 0.\n"
                    f"indices_or_sections must be a positive number of sections, got "
                    f"{self.sections}")
        elif isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
            self.sections = None
            self.indices = _as_indices(value)
            if config.debug:
                for before, after in zip(self.indices, self.indices[1:]):
                    if before > after:
                        raise ValueError(
                            f"indices_or_sections must be sorted, got {self.indices}")
        else:
            # compat: Chainer's two lines first (it reads a str as a sequence of str indices
            # and fails on them with TypeError too).
            raise TypeError(
                "indices_or_sections must be integer or 1-D array.\n"
                f"Actual: {type(indices_or_sections)}\n"
                "pass an int number of sections or a sequence of int indices")
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        # compat: the input unnamed, as in Chainer ('in_types[0].ndim > axis').
        type_check.expect(in_types.size() == 1)
        type_check.expect(in_types[0].ndim > self.axis)
        ndim = type_check.eval(in_types[0].ndim)
        if self.axis < -ndim:
            # compat: Chainer checks only the upper bound; a negative axis past the first
            # fails when it indexes x's shape tuple, with IndexError.
            raise IndexError(axis_range_message(self.axis, ndim) + "; pass an axis of x")
        if self.indices is not None:
            if self.indices:
                max_index = type_check.make_variable(self.indices[-1], "max_index")
                type_check.expect(in_types[0].shape[self.axis] >= max_index)
        else:
            sections = type_check.make_variable(self.sections, "sections")
            type_check.expect(in_types[0].shape[self.axis] % sections == 0)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        split_at = self.sections if self.indices is None else list(self.indices)
        outputs = tuple(xp.split(x, split_at, self.axis))
        self._out_shapes = [y.shape for y in outputs]
        return outputs

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # Outputs that got no gradient contribute zeros to the joined gradient. A single piece
        # is joined too (a copy, by a Concat node that hooks see), as in Chainer.
        known = next(grad for grad in grad_outputs if grad is not None)
        xp = backend.get_array_module(known.array)
        pieces = [xp.zeros(shape, known.dtype) if grad is None else grad
                  for grad, shape in zip(grad_outputs, self._out_shapes)]
        return concat(pieces, self.axis),


def split_axis(x: Any, indices_or_sections: Any, axis: int,
               force_tuple: bool = True) -> Any:
    """Splits ``x`` along ``axis``.

    Args:
        x: Input Variable or array.
        indices_or_sections: An int N to cut ``x`` into N equal pieces, or a sorted
            sequence of indices to cut at (as ``numpy.split`` takes).
        axis: The axis to split along.
        force_tuple: If True (the default) the result is always a tuple; if False a single
            piece is returned as a Variable.

    Returns:
        A tuple of Variables, or one Variable (see ``force_tuple``).

    Raises:
        TypeError: If ``indices_or_sections`` is neither an int nor a sequence of ints (a str
            is refused).
        ValueError: If the number of sections is not positive (also a ZeroDivisionError, as
            Chainer raises for 0).
        chainer_compat.utils.type_check.InvalidType: If ``axis`` is ``x.ndim`` or more, an
            index exceeds the axis length, or N does not divide it.
        IndexError: If ``axis`` is below ``-x.ndim`` (as in Chainer).
    """
    outputs = SplitAxis(indices_or_sections, axis).apply((x,))
    if force_tuple or len(outputs) != 1:
        return outputs
    return outputs[0]
