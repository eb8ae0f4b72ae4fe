"""``slstm``: the S-LSTM step that merges two LSTM cells (tree-structured LSTMs) into one, with
its gradient node.

Layer 5: imports backend, variable, function_node, utils.type_check and functions (activation,
math, rnn.lstm).
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import (
    OldStyleCall,
    gradients_without_graph,
    records_a_graph,
)
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

    Its own backward follows Chainer's arithmetic, on arrays or, while a graph is recorded, with
    differentiable functions (NOTE [old-style gradients]), so gradients of any order exist.
    """

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3, 4, 5, 6))
        return _slstm_grad_arrays(*inputs)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        c_prev1, c_prev2, x1, x2, c, gc, gh = self.get_retained_inputs()
        ggc_prev1, ggc_prev2, ggx1, ggx2 = grad_outputs
        # compat: a missing cell-state gradient is the int 0, as Chainer takes it; a missing
        # gate gradient (which Chainer cannot take) is a zero array.
        ggc_prev1 = 0 if ggc_prev1 is None else ggc_prev1
        ggc_prev2 = 0 if ggc_prev2 is None else ggc_prev2
        xp = backend.get_array_module(x1.array)
        if not records_a_graph():
            # NOTE [old-style gradients]: Chainer's arithmetic on arrays.
            gates1 = split_gates(xp.zeros_like(x1.array) if ggx1 is None else ggx1.array)
            gates2 = split_gates(xp.zeros_like(x2.array) if ggx2 is None else ggx2.array)
            a1, i1, f1, o1 = split_gates(x1.array)
            a2, i2, f2, o2 = split_gates(x2.array)
            grads = _grad_of_grads(
                lambda v: logistic(v, xp), xp.tanh,
                (c_prev1.array, a1, i1, f1), (c_prev2.array, a2, i2, f2), o1 + o2, c.array,
                gc.array, gh.array, (_array(ggc_prev1), *gates1),
                (_array(ggc_prev2), *gates2))
            gx1, gx2 = xp.empty_like(x1.array), xp.empty_like(x2.array)
            for gx, gate_grads in ((gx1, grads[1:5]), (gx2, grads[6:10])):
                for view, grad in zip(split_gates(gx), gate_grads):
                    view[...] = grad
            all_arrays = (grads[0], grads[5], gx1, gx2, *grads[10:])
            return gradients_without_graph(all_arrays, indexes)

        if ggx1 is None:
            ggx1 = zeros_variable(xp, x1.shape, x1.dtype)
        if ggx2 is None:
            ggx2 = zeros_variable(xp, x2.shape, x2.dtype)
        a1, i1, f1, o1 = split_gate_variables(x1)
        a2, i2, f2, o2 = split_gate_variables(x2)
        grads = _grad_of_grads(
            sigmoid, tanh, (c_prev1, a1, i1, f1), (c_prev2, a2, i2, f2), o1 + o2, c, gc, gh,
            (ggc_prev1, *split_gate_variables(ggx1)), (ggc_prev2, *split_gate_variables(ggx2)))
        gx1 = join_gate_variables(grads[1:5], x1.shape)
        gx2 = join_gate_variables(grads[6:10], x2.shape)
        all_grads = (grads[0], grads[5], gx1, gx2, *grads[10:])
        return tuple(all_grads[index] for index in indexes)


def _array(value: Any) -> Any:
    return value.array if isinstance(value, variable.Variable) else value


def _grad_of_grads(sigmoid_of: Any, tanh_of: Any, cell1: tuple[Any, ...],
                   cell2: tuple[Any, ...], o: Any, c: Any, gc: Any, gh: Any,
                   upstream1: tuple[Any, ...], upstream2: tuple[Any, ...]) -> tuple[Any, ...]:
    """The gradients of :class:`SLSTMGrad`'s outputs, on arrays or on Variables alike.

    ``cell_k`` is ``(c_prev_k, a_k, i_k, f_k)``, ``o`` is ``o1 + o2`` and ``upstream_k`` is
    ``(ggc_prev_k, gga_k, ggi_k, ggf_k, ggo_k)``. Returns ``(gc_prev1, ga1, gi1, gf1, go1,
    gc_prev2, ga2, gi2, gf2, go2, gc, ggc, ggh)``, where ``go1`` is ``go2``.

    compat: Chainer's expressions in Chainer's order (``d_`` a first derivative at the
    activation's output, ``dd_`` a second one), so the gradients round as Chainer's.
    """
    sig_o = sigmoid_of(o)
    d_sig_o = _d_sigmoid(sig_o)
    dd_sig_o = _dd_sigmoid(sig_o)
    tanh_c = tanh_of(c)
    d_tanh_c = _d_tanh(tanh_c)
    dd_tanh_c = _dd_tanh(tanh_c, d_tanh_c)
    gc_total = gh * sig_o * d_tanh_c + gc

    grads: list[Any] = []
    g_total: Any = None  # what the doubled outputs ask of gc_total (reached by gc, gh, o, c)
    for (c_prev, a, i, f), (ggc_prev, gga, ggi, ggf, _) in ((cell1, upstream1),
                                                             (cell2, upstream2)):
        sig_i, sig_f, tanh_a = sigmoid_of(i), sigmoid_of(f), tanh_of(a)
        d_sig_i, d_sig_f, d_tanh_a = _d_sigmoid(sig_i), _d_sigmoid(sig_f), _d_tanh(tanh_a)
        grads.append(ggf * gc_total * d_sig_f)
        grads.append((gga * sig_i * _dd_tanh(tanh_a, d_tanh_a) + ggi * d_tanh_a * d_sig_i)
                     * gc_total)
        grads.append((gga * d_tanh_a * d_sig_i + ggi * tanh_a * _dd_sigmoid(sig_i))
                     * gc_total)
        grads.append(ggc_prev * (gh * sig_o * d_tanh_c + gc) * d_sig_f
                     + ggf * gc_total * c_prev * _dd_sigmoid(sig_f))
        grads.append(None)  # the o gate's, the same for both cells: below
        for term in (ggc_prev * sig_f, gga * sig_i * d_tanh_a, ggi * tanh_a * d_sig_i,
                     ggf * c_prev * d_sig_f):
            g_total = term if g_total is None else g_total + term
    ggo = upstream1[4] + upstream2[4]
    grads[4] = grads[9] = g_total * (gh * d_sig_o * d_tanh_c) + ggo * gh * tanh_c * dd_sig_o
    grads.append(g_total * (gh * sig_o * dd_tanh_c) + ggo * gh * d_tanh_c * d_sig_o)
    grads.append(g_total)
    grads.append(g_total * sig_o * d_tanh_c + ggo * tanh_c * d_sig_o)
    return tuple(grads)


def _d_sigmoid(y: Any) -> Any:
    return y * (1 - y)


def _dd_sigmoid(y: Any) -> Any:
    return y * (1 - y) * (1 - 2 * y)


def _d_tanh(y: Any) -> Any:
    return 1 - y * y


def _dd_tanh(y: Any, d_y: Any) -> Any:
    return -2 * y * d_y


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

