"""``linear``: the affine map ``y = x W^T + b`` and its gradient nodes.

Layer 5: imports utils, variable, function_node, type_check, ``functions.math.sum`` and
``functions.math.basic_math``. On the hot path of every MLP step: forward and each gradient are
one matrix product, with no copies.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.cast import cast
from chainer_compat.functions.math.basic_math import _direct
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import type_check
from chainer_compat.variable import Variable, _new_unlinked_variable


# NOTE [gradients without a node]
# A backward without double backprop (enable_backprop off) gives its gradients no creator, so
# the gradient nodes it would apply exist only to be thrown away: in an MLP step they are most of
# the Python work of backward. When nothing could observe them (no hook, debug off) and the
# output gradient is a NumPy array, backward computes the arrays with the very helpers the
# nodes' forwards use and wraps them as apply would (requires_grad from the node's inputs). Any
# other case, double backprop included, applies the nodes, which remain the reference behaviour.
# The condition is the one Variable operators use to skip their node (basic_math._direct, NOTE
# [operators without a node] in functions/math/basic_math.py), so a CuPy gradient on the current
# device qualifies too (on the H200 this saved 11 of the 17 applies of an MLP step).
def _may_skip_gradient_nodes(gy: Any) -> bool:
    """Whether a backward may skip its gradient nodes: see NOTE [gradients without a node]."""
    return type(gy) is Variable and _direct(gy)


def _grad_data(w: Any, gy: Any) -> Any:
    """``gy W`` in ``gy``'s dtype: the gradient of ``x``."""
    gx = gy.dot(w)
    if gx.dtype != gy.dtype:
        gx = gx.astype(gy.dtype)
    return gx


def _grad_weight(x: Any, gy: Any, w_dtype: Any) -> Any:
    """``gy^T x`` in ``W``'s dtype: the gradient of ``W``."""
    gw = gy.T.dot(x)
    if gw.dtype != w_dtype:
        gw = gw.astype(w_dtype)
    return gw


class LinearFunction(FunctionNode):
    """``x W^T (+ b)`` for a matrix ``x`` of shape ``(N, K)`` and ``W`` of shape ``(M, K)``.

    Use :func:`linear`, which also flattens the trailing axes of ``x``.
    """

    def check_type_forward(self, in_types: Any) -> None:
        n_in = in_types.size()
        type_check.expect(2 <= n_in, n_in <= 3)
        x_type, w_type = in_types[:2]
        type_check._argname((x_type, w_type), ("x", "W"))
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype.kind == "f",
            x_type.ndim == 2,
            w_type.ndim == 2,
            x_type.shape[1] == w_type.shape[1],
        )
        if type_check.eval(n_in) == 3:
            b_type = in_types[2]
            type_check._argname((b_type,), ("b",))
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[0],
            )

    def _check_data_type_forward(self, in_data: tuple[Any, ...]) -> None:
        # The common case, checked without building expressions.
        count = len(in_data)
        if count == 2 or count == 3:
            x, w = in_data[0], in_data[1]
            if (x.ndim == 2 and w.ndim == 2 and x.shape[1] == w.shape[1]
                    and x.dtype.kind == "f" and w.dtype.kind == "f"):
                if count == 2:
                    return
                b = in_data[2]
                if b.ndim == 1 and b.dtype == x.dtype and b.shape[0] == w.shape[0]:
                    return
        super()._check_data_type_forward(in_data)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, w = inputs[0], inputs[1]
        y = x.dot(w.T)
        if y.dtype != x.dtype:
            y = y.astype(x.dtype)
        if len(inputs) == 3:
            y += inputs[2]
        self.retain_inputs((0, 1))  # b is not needed by backward
        return y,  # a matrix product of matrices is never a NumPy scalar

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # x's gradient reads W and W's reads x: an input that no requested gradient reads is
        # not checked for writes after forward, as its values cannot change what is computed.
        read = set()
        if 0 in indexes:
            read.add(1)
        if 1 in indexes:
            read.add(0)
        x, w = self._get_retained_inputs_reading(read)
        gy, = grad_outputs
        if _may_skip_gradient_nodes(gy):
            return _gradients_without_nodes(indexes, x, w, gy)
        grads: list[Any] = []
        # compat: each gradient node returns its input's dtype already, but Chainer casts both
        # through F.cast all the same: with backprop on (double backprop), that is a Cast node
        # each, which hooks and graphs see; with it off, nothing.
        if 0 in indexes:
            grads.append(cast(LinearGradData().apply((w, gy))[0], x.dtype))
        if 1 in indexes:
            grads.append(cast(LinearGradWeight(w.dtype).apply((x, gy))[0], w.dtype))
        if 2 in indexes:
            grads.append(_sum(gy, axis=0))
        return tuple(grads)


class LinearGradData(FunctionNode):
    """``gy W``: the gradient of :class:`LinearFunction` with respect to ``x``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        w, gy = inputs
        return _grad_data(w, gy),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        w, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        grads: list[Any] = []
        if 0 in indexes:
            grads.append(LinearGradWeight(w.dtype).apply((ggx, gy))[0])
        if 1 in indexes:
            grads.append(linear(ggx, w))
        return tuple(grads)


class LinearGradWeight(FunctionNode):
    """``gy^T x``: the gradient of :class:`LinearFunction` with respect to ``W``.

    Args:
        w_dtype: The dtype of ``W``, which the result is cast to.
    """

    def __init__(self, w_dtype: Any) -> None:
        self._w_dtype = w_dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return _grad_weight(x, gy, self._w_dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        ggw, = grad_outputs
        grads: list[Any] = []
        if 0 in indexes:
            grads.append(LinearGradData().apply((ggw, gy))[0])
        if 1 in indexes:
            grads.append(linear(x, ggw))
        return tuple(grads)


def _gradients_without_nodes(indexes: tuple[int, ...], x: Variable, w: Variable,
                              gy: Variable) -> tuple[Variable, ...]:
    """The gradients :meth:`LinearFunction.backward` returns, computed without gradient nodes.

    Each one is what its node (LinearGradData, LinearGradWeight, Sum) would output.
    """
    gy_array = gy._array
    gy_requires_grad = gy._node._requires_grad
    grads: list[Variable] = []
    if 0 in indexes:
        grads.append(_new_unlinked_variable(_grad_data(w._array, gy_array),
                                   w._node._requires_grad or gy_requires_grad))
    if 1 in indexes:
        grads.append(_new_unlinked_variable(_grad_weight(x._array, gy_array, w._array.dtype),
                                   x._node._requires_grad or gy_requires_grad))
    if 2 in indexes:
        grads.append(_new_unlinked_variable(gy_array.sum(axis=0), gy_requires_grad))
    return tuple(grads)


def linear(x: Any, W: Any, b: Any = None, n_batch_axes: int = 1) -> variable.Variable:
    """Affine transformation ``y = x W^T + b``.

    Args:
        x: Input Variable or array of shape ``(s_1, ..., s_n)``; the first ``n_batch_axes``
            axes are batch axes and the rest are flattened into one axis of size ``K``.
        W: Weight of shape ``(M, K)``.
        b: Optional bias of shape ``(M,)``, of ``x``'s dtype.
        n_batch_axes: Number of leading batch axes of ``x``.

    Returns:
        A Variable of shape ``(s_1, ..., s_n_batch_axes, M)``.

    Raises:
        ValueError: If ``n_batch_axes`` is not positive.
        chainer_compat.utils.type_check.InvalidType: On non-float inputs or mismatched shapes.
    """
    if n_batch_axes <= 0:
        # compat: Chainer's sentence first, which users may match on.
        raise ValueError("n_batch_axes should be greater than 0.\n"
                         f"n_batch_axes must be greater than 0, got {n_batch_axes}")
    if n_batch_axes > 1:
        batch_shape = x.shape[:n_batch_axes]
        x = x.reshape(utils.size_of_shape(batch_shape), -1)
    elif x.ndim > 2:
        x = x.reshape(x.shape[0], -1)
    args = (x, W) if b is None else (x, W, b)
    y, = LinearFunction().apply(args)
    if n_batch_axes > 1:
        y = y.reshape(batch_shape + (-1,))
    return y
