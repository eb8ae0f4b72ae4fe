"""``as_strided``: a view of the memory under an array with a new shape and strides, counted
in elements, and its gradient.

Layer 5: imports backend, variable, function_node and type_check. The gradient is a
scatter-then-gather through the memory, itself linear, so every order of gradient exists.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


def _base(array: Any) -> Any:
    """The array that owns ``array``'s memory (NumPy), or ``array``'s allocation (CuPy)."""
    while getattr(array, "base", None) is not None:
        array = array.base
    return array


def _offset_in_elements(array: Any) -> int:
    """Where ``array`` starts in its memory, in elements."""
    if isinstance(array, numpy.ndarray):
        start = array.__array_interface__["data"][0]
        origin = _base(array).__array_interface__["data"][0]
    else:
        start, origin = array.data.ptr, array.data.mem.ptr
    return (start - origin) // array.itemsize


def _memory_size(array: Any) -> int:
    """The size of ``array``'s memory, in elements."""
    if isinstance(array, numpy.ndarray):
        return _base(array).nbytes // array.itemsize
    return array.data.mem.size // array.itemsize


def _flat_indexes(xp: Any, shape: tuple[int, ...], strides: tuple[int, ...], offset: int
                  ) -> Any:
    """The memory index (in elements) of every entry of a view, in the view's shape."""
    index = xp.full(shape, offset, dtype=numpy.int64)
    for axis, (size, stride) in enumerate(zip(shape, strides)):
        steps = xp.arange(size, dtype=numpy.int64) * stride
        index = index + steps.reshape((size,) + (1,) * (len(shape) - axis - 1))
    return index


def _bounds(shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> tuple[int, int]:
    """The lowest and highest memory index (in elements) a view reaches."""
    lowest = offset + sum(s * (n - 1) for n, s in zip(shape, strides) if s < 0 and n > 0)
    highest = offset + sum(s * (n - 1) for n, s in zip(shape, strides) if s > 0 and n > 0)
    return lowest, highest


def _view(array: Any, shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> Any:
    """``array``'s memory seen with ``shape``, ``strides`` and ``offset`` in elements."""
    lowest, highest = _bounds(shape, strides, offset)
    if lowest < 0:
        # compat: Chainer's type and wording for both bounds.
        raise ValueError("Out of buffer: too small index was specified")
    if highest + 1 > _memory_size(array):
        raise ValueError("Out of buffer: too large index was specified")
    byte_strides = tuple(s * array.itemsize for s in strides)
    if isinstance(array, numpy.ndarray):
        base = _base(array)
        return numpy.ndarray(shape, array.dtype, base.data, offset * array.itemsize,
                             byte_strides)
    import cupy  # only reached with a CuPy array, so CuPy is already imported

    pointer = cupy.cuda.memory.MemoryPointer(array.data.mem, offset * array.itemsize)
    return cupy.ndarray(shape, array.dtype, pointer, byte_strides)


class _Relocate(FunctionNode):
    """A linear map through a flat buffer: scatter-add the input (scaled by ``in_scale``) at
    ``source``, then gather at ``target`` (scaled by ``out_scale``). The transpose swaps
    the two sides, so the gradient of a relocation is a relocation."""

    def __init__(self, source: Any, target: Any, size: int, in_scale: Any = None,
                 out_scale: Any = None) -> None:
        self.source = source
        self.target = target
        self.size = size
        self.in_scale = in_scale
        self.out_scale = out_scale

    def check_type_forward(self, in_types: Any) -> None:
        # compat: Chainer raises TypeError for a non-float gradient; checked here likewise.
        if type_check.eval(in_types[0].dtype).kind != "f":
            raise TypeError("Only float is supported for back propagation")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, = inputs
        xp = backend.get_array_module(a)
        if self.in_scale is not None:
            a = a * self.in_scale
        buffer = xp.bincount(self.source.ravel(), weights=a.ravel(), minlength=self.size)
        y = buffer[self.target]
        if self.out_scale is not None:
            y = y * self.out_scale
        return y.astype(a.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _Relocate(self.target, self.source, self.size, self.out_scale,
                         self.in_scale).apply(grad_outputs)


class AsStrided(FunctionNode):
    """A strided view of the input's memory. Use :func:`as_strided`.

    Args:
        shape: Shape of the view.
        strides: Strides of the view, in elements.
        storage_offset: Start of the view in the memory, in elements; None keeps the
            input's own start.
    """

    def __init__(self, shape: Any, strides: Any, storage_offset: int | None = None) -> None:
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.storage_offset = storage_offset

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() == 1)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._input_shape = x.shape
        self._input_strides = tuple(s // x.itemsize for s in x.strides)
        self._input_offset = _offset_in_elements(x)
        if self.storage_offset is None:
            self.storage_offset = self._input_offset
        return _view(x, self.shape, self.strides, self.storage_offset),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = grad_outputs
        xp = backend.get_array_module(gy.array)
        offset = self._input_offset if self.storage_offset is None else self.storage_offset
        output_index = _flat_indexes(xp, self.shape, self.strides, offset)
        input_index = _flat_indexes(xp, self._input_shape, self._input_strides,
                                    self._input_offset)
        size = max(_bounds(self.shape, self.strides, offset)[1],
                   _bounds(self._input_shape, self._input_strides, self._input_offset)[1]) + 1
        # Memory that several input entries share receives the gradient once, split evenly
        # among them (PyTorch's layout-agnostic rule, which Chainer follows).
        sharing = xp.bincount(input_index.ravel(), minlength=size)[input_index]
        out_scale = None
        if sharing.size and int(sharing.max()) > 1:
            out_scale = (1.0 / sharing).astype(gy.dtype)
        return _Relocate(output_index, input_index, size, None, out_scale).apply((gy,))


def as_strided(x: Any, shape: Any, strides: Any, storage_offset: int | None = None
               ) -> variable.Variable:
    """A view of the memory under ``x`` with the given shape and strides (in elements, not
    bytes, unlike ``numpy.lib.stride_tricks.as_strided``).

    ``x``'s own shape and strides are ignored: the view indexes the whole memory ``x`` lives
    in, from ``storage_offset``. Writing through the result writes into ``x``.

    Args:
        x: Input array or Variable.
        shape: Shape of the result.
        strides: Strides of the result, in elements (may be zero or negative).
        storage_offset: Start of the result in the memory, in elements; None starts where
            ``x`` starts.

    Returns:
        A Variable viewing ``x``'s memory. Its gradient adds each output gradient into the
        memory position it was read from and reads the input's positions back.

    Raises:
        ValueError: If the view reaches outside the memory.
        TypeError: In backward, on a non-float gradient.
    """
    return AsStrided(shape, strides, storage_offset).apply((x,))[0]
