"""``transpose_sequence``: turns a batch of sequences into a sequence of batches.

Layer 5: imports the core. The transpose of the transpose is the original batch, so the
gradient is this same function.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.cast import cast as _cast
from chainer_compat.utils import type_check


def _transpose(xp: Any, xs: tuple[Any, ...], count: int) -> tuple[Any, ...]:
    """Returns ``count`` arrays; the ``t``-th stacks ``x[t]`` of every ``x`` longer than ``t``.

    ``xs`` are sorted by length, longest first, so the ``t``-th output takes a prefix of them.
    """
    if count == 0:
        return ()
    lengths = numpy.array([len(x) for x in xs])
    starts = numpy.concatenate(([0], numpy.cumsum(lengths)[:-1]))
    # Rows of the concatenated input, grouped by time step.
    order = [starts[:int((lengths > t).sum())] + t for t in range(count)]
    sizes = [len(rows) for rows in order]
    dtype = xs[0].dtype
    if any(x.dtype != dtype for x in xs):
        # compat: Chainer writes every row into outputs of the first array's dtype (casting
        # as NumPy's assignment does, so floats after an int array are truncated).
        joined = xp.concatenate(xs, axis=0, dtype=dtype, casting="unsafe")
    else:
        joined = xp.concatenate(xs, axis=0)
    gathered = joined[xp.asarray(numpy.concatenate(order))]
    return tuple(xp.split(gathered, numpy.cumsum(sizes)[:-1].tolist()))


class TransposeSequence(FunctionNode):
    """Transposes a list of arrays, sorted by length (longest first), into ``length``
    arrays: the ``t``-th holds the ``t``-th row of each input long enough."""

    def __init__(self, length: int) -> None:
        self._length = length

    def check_type_forward(self, xs_type: Any) -> None:
        for previous, current in zip(xs_type, xs_type[1:]):
            type_check.expect(previous.shape[0] >= current.shape[0],
                              previous.shape[1:] == current.shape[1:])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        if not inputs:
            return ()
        self._input_shapes = [x.shape for x in inputs]
        self._input_dtypes = [x.dtype for x in inputs]
        outputs = _transpose(backend.get_array_module(*inputs), inputs, self._length)
        self._output_shapes = [y.shape for y in outputs]
        return outputs

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        present = next(g for g in grad_outputs if g is not None)
        xp = backend.get_array_module(present.array)
        # An output that got no gradient contributes zeros.
        grads = tuple(
            xp.zeros(shape, present.dtype)
            if g is None else g for g, shape in zip(grad_outputs, self._output_shapes))
        input_grads = TransposeSequence(len(self._input_shapes)).apply(grads)
        # Mixed input dtypes: each input gets its gradient in its own dtype.
        return tuple(g if g.dtype == dtype else _cast(g, dtype)
                     for g, dtype in zip(input_grads, self._input_dtypes))


def transpose_sequence(xs: Any) -> tuple[Any, ...]:
    """Transposes a list of sequences into a list of time steps.

    The ``t``-th output stacks the ``t``-th rows of the inputs longer than ``t``; the
    inputs must be sorted by length, longest first (as ``n_step_lstm`` and friends expect).

    Args:
        xs: A list of Variables or arrays, sorted by their first axis, longest first, whose
            other axes match.

    Returns:
        A tuple of ``len(xs[0])`` Variables (an empty tuple when ``xs`` is empty), all of
        ``xs[0]``'s dtype, as in Chainer: rows of other dtypes are cast to it. Each input's
        gradient has that input's dtype.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If ``xs`` is not sorted by length or the
            trailing shapes differ.
    """
    if not xs:
        return ()
    return TransposeSequence(len(xs[0])).apply(tuple(xs))
