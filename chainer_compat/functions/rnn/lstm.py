"""``lstm``: one step of a long short-term memory cell, ``(c_prev, x) -> (c, h)``, its gradient
node and the gate helpers ``slstm`` shares.

Layer 5: imports backend, variable, function_node, utils.type_check and functions (activation,
array, math).
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import OldStyleCall
from chainer_compat.functions.activation.sigmoid import sigmoid
from chainer_compat.functions.activation.tanh import tanh
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.array.get_item import get_item
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.stack import stack
from chainer_compat.functions.math.basic_math import _direct
from chainer_compat.utils import type_check
from chainer_compat.variable import Variable, _new_unlinked_variable

# NOTE [gate layout]
# The second axis of ``x`` holds ``4 * n`` channels for ``n`` units, interleaved per unit:
# channel ``4 * k + g`` feeds gate ``g`` (0: cell input a, 1: input gate i, 2: forget gate f,
# 3: output gate o) of unit ``k``. Viewing ``x`` as ``(batch, n, 4, ...)`` puts gate ``g`` at
# ``[:, :, g]``, with no copy. L.LSTM's bias initialization relies on the same layout.


def split_gates(x: Any) -> tuple[Any, Any, Any, Any]:
    """Views an array of shape ``(B, 4n, ...)`` as its four gates ``(B, n, ...)``.

    See NOTE [gate layout].
    """
    grouped = x.reshape((x.shape[0], x.shape[1] // 4, 4) + x.shape[2:])
    return grouped[:, :, 0], grouped[:, :, 1], grouped[:, :, 2], grouped[:, :, 3]


def _extract_gates(x: Any) -> list[Any]:
    # compat: Chainer's private name for split_gates (a list), imported by code written for it.
    return list(split_gates(x))


def split_gate_variables(x: Variable) -> tuple[Variable, ...]:
    """:func:`split_gates` for a Variable, differentiably."""
    grouped = reshape(x, (x.shape[0], x.shape[1] // 4, 4) + x.shape[2:])
    return tuple(get_item(grouped, (slice(None), slice(None), gate)) for gate in range(4))


def join_gate_variables(gates: tuple[Variable, ...], shape: tuple[int, ...]) -> Variable:
    """Interleaves four gate Variables back into one of ``shape`` (the inverse of the split)."""
    return reshape(stack(gates, axis=2), shape)


def logistic(x: Any, xp: Any) -> Any:
    """The logistic sigmoid through tanh, which never overflows."""
    half = x.dtype.type(0.5)
    return xp.tanh(x * half) * half + half


def zeros_variable(xp: Any, shape: tuple[int, ...], dtype: Any) -> Variable:
    """A constant zero Variable, standing for a gradient that does not flow."""
    return Variable(xp.zeros(shape, dtype), requires_grad=False)


def _lstm_grad_arrays(c_prev: Any, x: Any, c_next: Any, gc: Any,
                      gh: Any) -> tuple[Any, Any]:
    """The gradients of ``lstm`` with respect to ``c_prev`` and ``x``, as arrays.

    ``gc`` and ``gh`` (the output gradients) may be None for zero.
    """
    xp = backend.get_array_module(x)
    batch = x.shape[0]
    a, i, f, o = split_gates(x)
    tanh_a = xp.tanh(a)
    sig_i = logistic(i, xp)
    sig_f = logistic(f, xp)
    sig_o = logistic(o, xp)
    tanh_c = xp.tanh(c_next[:batch])

    gc_prev = xp.empty_like(c_prev)
    # The gradient reaching the new cell state: directly, and through h = o * tanh(c).
    gc_total = gc_prev[:batch]
    if gh is None:
        gc_total[...] = 0
    else:
        gc_total[...] = gh * sig_o * (1 - tanh_c * tanh_c)
    if gc is not None:
        gc_total += gc[:batch]
    else:
        # compat: Chainer adds a zero for the missing gc, which turns a -0 into +0.
        gc_total += 0

    gx = xp.empty_like(x)
    ga, gi, gf, go = split_gates(gx)
    # compat: each product groups the activation's derivative as Chainer's CPU code does, so
    # the gradients round as Chainer's (NOTE [Chainer's rounding] in
    # functions/loss/softmax_cross_entropy.py).
    ga[...] = gc_total * sig_i * (1 - tanh_a * tanh_a)
    gi[...] = gc_total * tanh_a * (sig_i * (1 - sig_i))
    gf[...] = gc_total * c_prev[:batch] * (sig_f * (1 - sig_f))
    if gh is None:
        # compat: Chainer multiplies a zero for the missing gh by tanh(c), so the zeros carry
        # tanh(c)'s sign.
        xp.multiply(tanh_c, 0, out=go)
    else:
        go[...] = gh * tanh_c * (sig_o * (1 - sig_o))
    gc_total *= sig_f
    # Rows past x's batch passed through unchanged, and so do their gradients.
    if gc is None:
        gc_prev[batch:] = 0
    else:
        gc_prev[batch:] = gc[batch:]
    return gc_prev, gx


class LSTM(FunctionNode):
    """One LSTM step: ``c = tanh(a) sigmoid(i) + sigmoid(f) c_prev``, ``h = sigmoid(o) tanh(c)``.

    Use :func:`lstm`. Inputs ``(c_prev, x)``, outputs ``(c, h)``; see NOTE [gate layout].
    """

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("c", "x"))
        c_type, x_type = in_types
        type_check.expect(
            c_type.dtype.kind == "f",
            x_type.dtype == c_type.dtype,
            c_type.ndim >= 2,
            x_type.ndim >= 2,
            c_type.ndim == x_type.ndim,
        )
        # Shapes are read only once both have the unit axis.
        type_check.expect(
            x_type.shape[0] <= c_type.shape[0],
            x_type.shape[1] == 4 * c_type.shape[1],
        )
        for axis in range(2, type_check.eval(c_type.ndim)):
            type_check.expect(x_type.shape[axis] == c_type.shape[axis])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        c_prev, x = inputs
        xp = backend.get_array_module(x)
        batch = x.shape[0]
        a, i, f, o = split_gates(x)
        c_next = xp.empty_like(c_prev)
        c_next[:batch] = xp.tanh(a) * logistic(i, xp) + logistic(f, xp) * c_prev[:batch]
        # compat: rows of c_prev past x's batch carry over unchanged (sequences sorted by
        # decreasing length end first).
        c_next[batch:] = c_prev[batch:]
        h = logistic(o, xp) * xp.tanh(c_next[:batch])
        self.retain_outputs((0,))
        return c_next, h

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        c_prev, x = self.get_retained_inputs()
        c_next, = self.get_retained_outputs()
        gc, gh = grad_outputs
        if _direct(x):
            # See NOTE [gradients without a node] in functions/connection/linear.py.
            arrays = _lstm_grad_arrays(
                c_prev.array, x.array, c_next.array,
                None if gc is None else gc.array, None if gh is None else gh.array)
            requires_grad = any(v._node._requires_grad for v in (c_prev, x, gc, gh)
                                if v is not None)
            return tuple(_new_unlinked_variable(array, requires_grad) for array in arrays)
        xp = backend.get_array_module(x.array)
        dtype = x.dtype
        if gc is None:
            gc = zeros_variable(xp, c_next.shape, dtype)
        if gh is None:
            gh = zeros_variable(xp, (x.shape[0],) + c_next.shape[1:], dtype)
        return LSTMGrad().apply((c_prev, x, c_next, gc, gh))


class LSTMGrad(OldStyleCall, FunctionNode):
    """The gradient of :class:`LSTM`: ``(c_prev, x, c_next, gc, gh) -> (gc_prev, gx)``.

    Its own backward is written with differentiable functions, so gradients of any order exist.
    """

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3, 4))
        c_prev, x, c_next, gc, gh = inputs
        return _lstm_grad_arrays(c_prev, x, c_next, gc, gh)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        c_prev, x, c_next, gc, gh = self.get_retained_inputs()
        ggc_prev, ggx = grad_outputs
        xp = backend.get_array_module(x.array)
        dtype = x.dtype
        batch, full_batch = x.shape[0], c_prev.shape[0]
        tail_shape = (full_batch - batch,) + c_prev.shape[1:]
        if ggc_prev is None:
            ggc_prev = zeros_variable(xp, c_prev.shape, dtype)
        if ggx is None:
            ggx = zeros_variable(xp, x.shape, dtype)

        def head(v: Variable) -> Variable:
            return v if v.shape[0] == batch else get_item(v, slice(None, batch))

        def with_tail(v: Variable, tail: Variable | None) -> Variable:
            if batch == full_batch:
                return v
            if tail is None:
                tail = zeros_variable(xp, tail_shape, dtype)
            return concat((v, tail), axis=0)

        # Chainer's expressions in Chainer's order, so the second-order gradients round alike.
        # ``d_*`` is the derivative of an activation at its output and ``dd_*`` the second
        # derivative; each gradient is formed whichever are asked for, as Chainer's are.
        a, i, f, o = split_gate_variables(x)
        gga, ggi, ggf, ggo = split_gate_variables(ggx)
        ggc_head = head(ggc_prev)
        c_head = head(c_prev)
        sig_o = sigmoid(o)
        d_o = sig_o * (1 - sig_o)
        dd_o = sig_o * (1 - sig_o) * (1 - 2 * sig_o)
        sig_i = sigmoid(i)
        d_i = sig_i * (1 - sig_i)
        dd_i = sig_i * (1 - sig_i) * (1 - 2 * sig_i)
        sig_f = sigmoid(f)
        d_f = sig_f * (1 - sig_f)
        dd_f = sig_f * (1 - sig_f) * (1 - 2 * sig_f)
        tanh_a = tanh(a)
        d_a = 1 - tanh_a * tanh_a
        dd_a = -2 * tanh_a * d_a
        tanh_c = tanh(head(c_next))
        d_c = 1 - tanh_c * tanh_c
        dd_c = -2 * tanh_c * d_c
        gc_head = head(gc)
        gc_total = gh * sig_o * d_c + gc_head
        grad_c_prev = ggf * gc_total * d_f
        grad_a = (gga * sig_i * dd_a + ggi * d_a * d_i) * gc_total
        grad_i = (gga * d_a * d_i + ggi * tanh_a * dd_i) * gc_total
        grad_f = (ggc_head * (gh * sig_o * d_c + gc_head) * d_f
                  + ggf * gc_total * c_head * dd_f)
        # What the doubled output grads ask of gc_total, which gc, gh, o and c_next reach.
        g_total = ggc_head * sig_f + gga * sig_i * d_a + ggi * tanh_a * d_i + ggf * c_head * d_f
        grad_o = g_total * (gh * d_o * d_c) + ggo * gh * tanh_c * dd_o
        grad_c = g_total * (gh * sig_o * dd_c) + ggo * gh * d_c * d_o
        grad_gh = g_total * sig_o * d_c + ggo * tanh_c * d_o
        tail = None if batch == full_batch else get_item(ggc_prev, slice(batch, None))
        return (with_tail(grad_c_prev, None),
                join_gate_variables((grad_a, grad_i, grad_f, grad_o), x.shape),
                with_tail(grad_c, None), with_tail(g_total, tail), grad_gh)


def lstm(c_prev: Any, x: Any) -> tuple[variable.Variable, variable.Variable]:
    """One step of a long short-term memory cell with a forget gate.

    ``x`` holds the pre-activations of four gates per unit, interleaved along its second axis:
    channel ``4k + g`` is gate ``g`` of unit ``k``, in the order cell input ``a``, input gate
    ``i``, forget gate ``f``, output gate ``o`` (a view of ``x`` as ``(B, n, 4, ...)`` puts gate
    ``g`` at ``[:, :, g]``). Then ``c = tanh(a) sigmoid(i) + sigmoid(f) c_prev`` and
    ``h = sigmoid(o) tanh(c)``.

    ``x`` may have fewer rows than ``c_prev`` (sequences sorted by decreasing length): only
    ``c[:len(x)]`` is updated, the other rows of ``c`` are copies of ``c_prev``'s, and ``h`` has
    ``len(x)`` rows.

    Args:
        c_prev: The previous cell state, of shape ``(B', n, ...)``.
        x: The gate pre-activations, of shape ``(B, 4n, ...)`` with ``B <= B'`` and the dtype
            of ``c_prev``.

    Returns:
        ``(c, h)``: the new cell state, shaped as ``c_prev``, and the output, of shape
        ``(B, n, ...)``.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On mismatched shapes or dtypes.
    """
    c, h = LSTM().apply((c_prev, x))
    return c, h

