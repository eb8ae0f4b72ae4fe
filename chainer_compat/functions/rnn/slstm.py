"""``slstm``: the S-LSTM step that merges two LSTM cells (tree-structured LSTMs) into one, with
its gradient node.

Layer 5: imports backend, variable, function_node, utils.type_check and functions (activation,
math, rnn.lstm).
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import OldStyleCall
from chainer_compat.functions.activation.sigmoid import sigmoid
from chainer_compat.functions.activation.tanh import tanh
from chainer_compat.functions.math.basic_math import _direct
from chainer_compat.functions.rnn.lstm import (
    join_gate_variables,
    logistic,
    split_gate_variables,
    split_gates,
    zeros_variable,
)
from chainer_compat.utils import type_check
from chainer_compat.variable import _new_unlinked_variable


def _slstm_grad_arrays(c_prev1: Any, c_prev2: Any, x1: Any, x2: Any, c: Any, gc: Any,
                       gh: Any) -> tuple[Any, Any, Any, Any]:
    """The gradients of ``slstm`` with respect to its four inputs, as arrays.

    ``gc`` and ``gh`` (the output gradients) may be None for zero.
    """
    xp = backend.get_array_module(x1)
    a1, i1, f1, o1 = split_gates(x1)
    a2, i2, f2, o2 = split_gates(x2)
    sig_o = logistic(o1 + o2, xp)
    tanh_c = xp.tanh(c)
    # compat: a missing gradient is the int 0, and each product is grouped as Chainer groups
    # it, so that the gradients round (and sign their zeros) as Chainer's.
    gc = 0 if gc is None else gc
    gh = 0 if gh is None else gh
    # The gradient reaching the new cell state: through h = o * tanh(c), and directly.
    gc_total = gh * sig_o * (1 - tanh_c * tanh_c) + gc
    go = gh * tanh_c * (sig_o * (1 - sig_o))
    grads: list[Any] = []
    gxs: list[Any] = []
    for c_prev, x, a, i, f in ((c_prev1, x1, a1, i1, f1), (c_prev2, x2, a2, i2, f2)):
        tanh_a = xp.tanh(a)
        sig_i = logistic(i, xp)
        sig_f = logistic(f, xp)
        gx = xp.empty_like(x)
        ga, gi, gf, go_k = split_gates(gx)
        ga[...] = gc_total * sig_i * (1 - tanh_a * tanh_a)
        gi[...] = gc_total * tanh_a * (sig_i * (1 - sig_i))
        gf[...] = gc_total * c_prev * (sig_f * (1 - sig_f))
        go_k[...] = go
        grads.append(gc_total * sig_f)
        gxs.append(gx)
    return grads[0], grads[1], gxs[0], gxs[1]


class SLSTM(FunctionNode):
    """The S-LSTM step; use :func:`slstm`. Inputs ``(c_prev1, c_prev2, x1, x2)``, outputs
    ``(c, h)``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("c_prev1", "c_prev2", "x1", "x2"))
        c1_type, c2_type, x1_type, x2_type = in_types
        type_check.expect(
            c1_type.dtype.kind == "f",
            c2_type.dtype == c1_type.dtype,
            x1_type.dtype == c1_type.dtype,
            x2_type.dtype == c1_type.dtype,
            c1_type.ndim >= 2,
            c2_type.ndim >= 2,
            x1_type.ndim >= 2,
            x2_type.ndim >= 2,
            c1_type.ndim == x1_type.ndim,
            c1_type.ndim == c2_type.ndim,
            c1_type.ndim == x2_type.ndim,
        )
        # Shapes are read only once all have the unit axis.
        type_check.expect(
            c1_type.shape[0] == x1_type.shape[0],
            c1_type.shape[0] == c2_type.shape[0],
            c1_type.shape[0] == x2_type.shape[0],
            x1_type.shape[1] == 4 * c1_type.shape[1],
            x2_type.shape[1] == 4 * c2_type.shape[1],
        )
        for axis in range(2, type_check.eval(c1_type.ndim)):
            type_check.expect(
                x1_type.shape[axis] == c1_type.shape[axis],
                x2_type.shape[axis] == c2_type.shape[axis],
                x1_type.shape[axis] == x2_type.shape[axis],
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3))
        c_prev1, c_prev2, x1, x2 = inputs
        xp = backend.get_array_module(x1)
        a1, i1, f1, o1 = split_gates(x1)
        a2, i2, f2, o2 = split_gates(x2)
        c = (xp.tanh(a1) * logistic(i1, xp) + xp.tanh(a2) * logistic(i2, xp)
             + logistic(f1, xp) * c_prev1 + logistic(f2, xp) * c_prev2)
        h = logistic(o1 + o2, xp) * xp.tanh(c)
        self.retain_outputs((0,))
        return c, h

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        c_prev1, c_prev2, x1, x2 = self.get_retained_inputs()
        c, = self.get_retained_outputs()
        gc, gh = grad_outputs
        if _direct(x1):
            # See NOTE [gradients without a node] in functions/connection/linear.py.
            arrays = _slstm_grad_arrays(
                c_prev1.array, c_prev2.array, x1.array, x2.array, c.array,
                None if gc is None else gc.array, None if gh is None else gh.array)
            requires_grad = any(v._node._requires_grad
                                for v in (c_prev1, c_prev2, x1, x2, gc, gh) if v is not None)
            return tuple(_new_unlinked_variable(array, requires_grad) for array in arrays)
        xp = backend.get_array_module(x1.array)
        if gc is None:
            gc = zeros_variable(xp, c.shape, c.dtype)
        if gh is None:
            gh = zeros_variable(xp, c.shape, c.dtype)
        return SLSTMGrad().apply((c_prev1, c_prev2, x1, x2, c, gc, gh))


class SLSTMGrad(OldStyleCall, FunctionNode):
    """The gradient of :class:`SLSTM`:
    ``(c_prev1, c_prev2, x1, x2, c, gc, gh) -> (gc_prev1, gc_prev2, gx1, gx2)``.

    Its own backward is written with differentiable functions, so gradients of any order exist.
    """

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3, 4, 5, 6))
        return _slstm_grad_arrays(*inputs)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        c_prev1, c_prev2, x1, x2, c, gc, gh = self.get_retained_inputs()
        xp = backend.get_array_module(x1.array)
        upstream = [g if g is not None else zeros_variable(xp, v.shape, v.dtype)
                    for g, v in zip(grad_outputs, (c_prev1, c_prev2, x1, x2))]
        ggc_prev1, ggc_prev2, ggx1, ggx2 = upstream

        # ``d_*`` is the derivative of an activation at its output.
        sig_o = sigmoid(split_gate_variables(x1)[3] + split_gate_variables(x2)[3])
        tanh_c = tanh(c)
        d_o = sig_o * (1 - sig_o)
        d_c = 1 - tanh_c * tanh_c
        gc_total = gh * sig_o * d_c + gc

        cells = []
        g_total: Any = 0
        ggo: Any = 0
        for c_prev, x, ggc_prev, ggx in ((c_prev1, x1, ggc_prev1, ggx1),
                                         (c_prev2, x2, ggc_prev2, ggx2)):
            a, i, f, _ = split_gate_variables(x)
            gga, ggi, ggf, ggo_k = split_gate_variables(ggx)
            tanh_a, sig_i, sig_f = tanh(a), sigmoid(i), sigmoid(f)
            d_a = 1 - tanh_a * tanh_a
            d_i = sig_i * (1 - sig_i)
            d_f = sig_f * (1 - sig_f)
            # What the doubled output grads ask of gc_total, which gc, gh, o and c reach.
            g_total = (g_total + ggc_prev * sig_f + gga * sig_i * d_a + ggi * tanh_a * d_i
                       + ggf * c_prev * d_f)
            ggo = ggo + ggo_k
            cells.append((c_prev, x, ggc_prev, gga, ggi, ggf, tanh_a, sig_i, sig_f, d_a, d_i,
                          d_f))
        grad_o = gh * (g_total * d_c + ggo * tanh_c * (1 - 2 * sig_o)) * d_o

        grads: list[Any] = []
        for index in indexes:
            if index <= 3:
                (c_prev, x, ggc_prev, gga, ggi, ggf, tanh_a, sig_i, sig_f, d_a, d_i,
                 d_f) = cells[index % 2]
                if index <= 1:  # c_prev1, c_prev2
                    grads.append(ggf * gc_total * d_f)
                    continue
                grad_a = gc_total * (ggi * d_i - 2 * gga * sig_i * tanh_a) * d_a
                grad_i = gc_total * (gga * d_a + ggi * tanh_a * (1 - 2 * sig_i)) * d_i
                grad_f = gc_total * (ggc_prev + ggf * c_prev * (1 - 2 * sig_f)) * d_f
                grads.append(join_gate_variables((grad_a, grad_i, grad_f, grad_o), x.shape))
            elif index == 4:  # c
                grads.append(gh * (ggo * d_o - 2 * g_total * sig_o * tanh_c) * d_c)
            elif index == 5:  # gc
                grads.append(g_total)
            else:  # gh
                grads.append(g_total * sig_o * d_c + ggo * tanh_c * d_o)
        return tuple(grads)


def slstm(c_prev1: Any, c_prev2: Any, x1: Any,
          x2: Any) -> tuple[variable.Variable, variable.Variable]:
    """S-LSTM: one LSTM step that merges two child cells into one (as in tree LSTMs).

    Each ``x_k`` holds four gates per unit in the interleaved layout of
    :func:`~chainer_compat.functions.lstm` (``a_k, i_k, f_k, o_k``). Then
    ``c = tanh(a1) sigmoid(i1) + tanh(a2) sigmoid(i2) + sigmoid(f1) c_prev1
    + sigmoid(f2) c_prev2`` and ``h = sigmoid(o1 + o2) tanh(c)``.

    Args:
        c_prev1: The first child's cell state, of shape ``(B, n, ...)``.
        c_prev2: The second child's cell state, of the same shape.
        x1: The first child's gate pre-activations, of shape ``(B, 4n, ...)``.
        x2: The second child's gate pre-activations, of the same shape.

    Returns:
        ``(c, h)``: the merged cell state and the output, both of shape ``(B, n, ...)``.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On mismatched shapes or dtypes.
    """
    c, h = SLSTM().apply((c_prev1, c_prev2, x1, x2))
    return c, h

