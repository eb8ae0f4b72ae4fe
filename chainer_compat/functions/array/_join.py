"""The shared backward of ``hstack``, ``vstack`` and ``dstack``: split, then reshape back.

Layer 5: imports backend, function_node, utils.type_check and the ``split_axis``/``reshape``
functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.split_axis import split_axis
from chainer_compat.utils import type_check


class JoinBase(FunctionNode):
    """Promotes every input to ``min_ndim`` dimensions and concatenates them.

    Subclasses set ``min_ndim`` and ``_join_axis``; an input of fewer dimensions is promoted
    as ``numpy.atleast_1d/2d/3d`` do, so backward only has to undo a reshape.
    """

    min_ndim = 1

    def _join_axis(self, ndim: int) -> int:
        raise NotImplementedError

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        type_check._argname((in_types[0],), ("x0",))
        ndim = type_check.eval(in_types[0].ndim)
        axis = self._join_axis(max(ndim, self.min_ndim))
        for i in range(1, type_check.eval(in_types.size())):
            type_check._argname((in_types[i],), (f"x{i}",))
            type_check.expect(
                in_types[0].dtype == in_types[i].dtype,
                in_types[0].ndim == in_types[i].ndim,
            )
            if ndim < self.min_ndim:
                # Promoted inputs put their axes elsewhere: every dimension must agree.
                if ndim > 0:
                    type_check.expect(in_types[0].shape == in_types[i].shape)
                continue
            for d in range(ndim):
                if d != axis:
                    type_check.expect(in_types[0].shape[d] == in_types[i].shape[d])

    def _promote(self, xp: Any, x: Any) -> Any:
        return getattr(xp, f"atleast_{self.min_ndim}d")(x)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        promoted = [self._promote(xp, x) for x in inputs]
        self._axis = self._join_axis(promoted[0].ndim)
        self._in_shapes = [x.shape for x in inputs]
        self._sizes = [x.shape[self._axis] for x in promoted]
        return xp.concatenate(promoted, axis=self._axis),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        offsets = []
        total = 0
        for size in self._sizes[:-1]:
            total += size
            offsets.append(total)
        pieces = split_axis(gy, offsets, self._axis)
        return tuple(reshape(piece, shape) for piece, shape in zip(pieces, self._in_shapes))
