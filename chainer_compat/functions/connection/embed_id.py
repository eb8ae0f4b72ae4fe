"""``embed_id``: looks up rows of an embedding matrix by integer ids.

Layer 5: imports backend, configuration, utils, variable, function_node, type_check and
``where``; the double backward also uses Variable's indexing.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.configuration import config
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.where import where
from chainer_compat.utils import type_check


class EmbedIDFunction(FunctionNode):
    """``W[x]``, with rows for ``ignore_label`` filled with zeros. Use :func:`embed_id`."""

    def __init__(self, ignore_label: int | None = None) -> None:
        self.ignore_label = ignore_label
        self._w_shape: tuple[int, ...] = ()  # set by forward

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "W"))
        x_type, w_type = in_types
        type_check.expect(
            x_type.dtype.kind == "i",
            x_type.ndim >= 1,
        )
        type_check.expect(
            w_type.dtype.kind == "f",
            w_type.ndim == 2,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, w = inputs
        self._w_shape = w.shape
        xp = backend.get_array_module(x)
        if config.debug:
            valid = (0 <= x) & (x < len(w))
            if self.ignore_label is not None:
                valid |= x == self.ignore_label
            if not valid.all():
                raise ValueError(
                    f"each id x of embed_id must satisfy 0 <= x < len(W) ({len(w)}) or "
                    f"x == ignore_label ({self.ignore_label}), got x={x}")
        if self.ignore_label is None:
            return w[x],
        ignored = x == self.ignore_label
        rows = w[xp.where(ignored, 0, x)]
        return utils.force_array(xp.where(ignored[..., None], 0, rows), w.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        gw, = EmbedIDGrad(self._w_shape, self.ignore_label).apply((x,) + tuple(grad_outputs))
        return tuple([None if i == 0 else gw for i in indexes])


class EmbedIDGrad(FunctionNode):
    """Scatter-adds ``gy`` into rows ``x`` of a zero matrix: the gradient of ``W[x]``.

    Inputs are ``x`` and ``gy``.
    """

    def __init__(self, w_shape: tuple[int, ...], ignore_label: int | None = None) -> None:
        self.w_shape = w_shape
        self.ignore_label = ignore_label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, gy = inputs
        xp = backend.get_array_module(x)
        gw = xp.zeros(self.w_shape, dtype=gy.dtype)
        rows = gy.reshape(x.size, -1)
        ids = x.ravel()
        if self.ignore_label is not None:
            kept = ids != self.ignore_label
            ids = ids[kept]
            rows = rows[kept]
        utils.add_at(gw, ids, rows)
        return gw,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # The map gy -> gW is linear, and its adjoint is the lookup itself. compat: built as
        # Chainer builds it, a GetItem and, with an ignore_label, a Where that zeroes the
        # ignored rows; hooks and graphs see those nodes, and the values are the lookup's.
        x = self.get_retained_inputs()[0].array
        ggw, = grad_outputs
        xp = backend.get_array_module(x)
        if self.ignore_label is None:
            return tuple([None if i == 0 else ggw[x] for i in indexes])
        ignored = x == self.ignore_label
        # NOTE [ignored ids index row 0]: Chainer keeps the ids when ignore_label is below
        # W.shape[1] (the row width, not the row count), which fails for a label past the
        # last row; any id indexes the same zeroed row, so here they always read row 0.
        ggy = ggw[xp.where(ignored, 0, x)]
        mask, zero, _ = xp.broadcast_arrays(ignored[..., None], xp.zeros((), ggy.dtype),
                                            ggy.array)
        ggy = where(mask, zero, ggy)
        return tuple([None if i == 0 else ggy for i in indexes])


def embed_id(x: Any, W: Any, ignore_label: int | None = None) -> variable.Variable:
    """Word embedding: row ``x[i]`` of ``W`` for each id, a linear map of one-hot inputs.

    Args:
        x: Signed integer ids of any shape (at least one axis).
        W: Embedding matrix of shape ``(V, D)``.
        ignore_label: Ids equal to it produce zero rows (and no gradient).

    Returns:
        A Variable of shape ``x.shape + (D,)``; differentiable with respect to ``W`` only.

    Raises:
        ValueError: In debug mode, on an id out of range.
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or dimensions.
    """
    return EmbedIDFunction(ignore_label=ignore_label).apply((x, W))[0]
