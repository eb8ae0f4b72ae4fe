"""``tree_lstm``: one step of an N-ary (or child-sum) TreeLSTM cell,
``(c_1, ..., c_N, x) -> (c, h)``.

Layer 5: imports backend, variable, function_node, utils.type_check and functions (activation,
array).
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import (
    OldStyleCall,
    gradients_with_values,
    gradients_without_graph,
    records_a_graph,
)
from chainer_compat.functions.activation.sigmoid import sigmoid
from chainer_compat.functions.activation.tanh import tanh
from chainer_compat.functions.array.get_item import get_item
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.stack import stack
from chainer_compat.functions.rnn.lstm import logistic
from chainer_compat.utils import type_check

# NOTE [tree gate layout]
# Unlike ``lstm``'s interleaved gates, ``x``'s second axis holds 3 + N contiguous blocks of
# ``n`` channels each: cell input ``a``, input gate ``i``, output gate ``o``, then the forget
# gates ``f_1 .. f_N`` (one per child). Viewing ``x`` as ``(B, 3 + N, n, ...)`` puts block
# ``g`` at ``[:, g]``.


def _split_blocks(x: Any, count: int) -> list[Any]:
    """Views an array of shape ``(B, count * n, ...)`` as ``count`` blocks ``(B, n, ...)``."""
    grouped = x.reshape((x.shape[0], count, x.shape[1] // count) + x.shape[2:])
    return [grouped[:, block] for block in range(count)]


def _split_block_variables(x: variable.Variable, count: int) -> list[variable.Variable]:
    """:func:`_split_blocks` for a Variable, differentiably."""
    grouped = reshape(x, (x.shape[0], count, x.shape[1] // count) + x.shape[2:])
    return [get_item(grouped, (slice(None), block)) for block in range(count)]


class TreeLSTM(OldStyleCall, FunctionNode):
    """One TreeLSTM step over ``N`` children; use :func:`tree_lstm`.

    Inputs ``(c_1, ..., c_N, x)``, outputs ``(c, h)``; see NOTE [tree gate layout]. Its
    backward is written with differentiable functions, so gradients of any order exist.
    """

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() >= 2)
        cell_types = in_types[:-1]
        x_type = in_types[-1]
        children = len(cell_types)
        type_check.expect(x_type.ndim >= 2)
        for cell_type in cell_types:
            type_check.expect(
                cell_type.dtype.kind == "f",
                x_type.dtype == cell_type.dtype,
                cell_type.ndim >= 2,
                cell_type.ndim == x_type.ndim,
                x_type.shape[0] == cell_type.shape[0],
                x_type.shape[1] == (3 + children) * cell_type.shape[1],
            )
            # Compat: Chainer compares x's axis <child index> here, which rejects valid
            # inputs of more than two axes; trailing axes are compared axis by axis instead.
            for axis in range(2, type_check.eval(cell_type.ndim)):
                type_check.expect(x_type.shape[axis] == cell_type.shape[axis])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        cells, x = inputs[:-1], inputs[-1]
        xp = backend.get_array_module(x)
        a, i, o, *forgets = _split_blocks(x, 3 + len(cells))
        # Kept for the gradient on arrays (NOTE [old-style gradients]).
        self._activations = (xp.tanh(a), logistic(i, xp), logistic(o, xp),
                             [logistic(forget, xp) for forget in forgets])
        tanh_a, sig_i, sig_o, sig_fs = self._activations
        # compat: the children's terms summed first, from 0, then added, as Chainer adds them.
        children_sum: Any = 0
        for sig_f, cell in zip(sig_fs, cells):
            children_sum = children_sum + sig_f * cell
        self._c = tanh_a * sig_i + children_sum
        return self._c, sig_o * xp.tanh(self._c)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        inputs = self.get_retained_inputs()
        cells, x = inputs[:-1], inputs[-1]
        gc, gh = grad_outputs
        arrays = self._gradient_arrays([cell.array for cell in cells], x.array,
                                       0 if gc is None else gc.array,
                                       0 if gh is None else gh.array)
        if not records_a_graph():
            return gradients_without_graph(arrays, indexes)
        a, i, o, *forgets = _split_block_variables(x, 3 + len(cells))
        tanh_a, sig_i, sig_o = tanh(a), sigmoid(i), sigmoid(o)
        sig_fs = [sigmoid(forget) for forget in forgets]
        c = tanh_a * sig_i
        for sig_f, cell in zip(sig_fs, cells):
            c = c + sig_f * cell
        tanh_c = tanh(c)
        # The gradient reaching the new cell state: directly, and through h = o * tanh(c).
        xp = backend.get_array_module(x.array)
        zero = variable.Variable(xp.zeros(c.shape, dtype=x.dtype), requires_grad=False)
        gc_total = zero if gc is None else gc
        if gh is not None:
            gc_total = gc_total + gh * sig_o * (1 - tanh_c * tanh_c)
        grads: dict[int, Any] = {}
        for index, sig_f in enumerate(sig_fs):
            if index in indexes:
                grads[index] = gc_total * sig_f
        x_index = len(cells)
        if x_index in indexes:
            blocks = [
                gc_total * sig_i * (1 - tanh_a * tanh_a),
                gc_total * tanh_a * sig_i * (1 - sig_i),
                zero if gh is None else gh * tanh_c * sig_o * (1 - sig_o),
            ]
            blocks += [gc_total * cell * sig_f * (1 - sig_f)
                       for sig_f, cell in zip(sig_fs, cells)]
            grads[x_index] = reshape(stack(blocks, axis=1), x.shape)
        return gradients_with_values([grads[index] for index in indexes], arrays, indexes)

    def _gradient_arrays(self, cells: list[Any], x: Any, gc: Any, gh: Any) -> list[Any]:
        """The children's and x's gradients on arrays, in Chainer's arithmetic; a missing
        output gradient is 0."""
        xp = backend.get_array_module(x)
        tanh_a, sig_i, sig_o, sig_fs = self._activations
        tanh_c = xp.tanh(self._c)
        # The gradient reaching the new cell state: through h = o * tanh(c), and directly.
        g_cell = gh * sig_o * (1 - tanh_c * tanh_c) + gc
        gx = xp.empty_like(x)
        ga, gi, go, *gfs = _split_blocks(gx, 3 + len(cells))
        ga[...] = g_cell * sig_i * (1 - tanh_a * tanh_a)
        gi[...] = g_cell * tanh_a * (sig_i * (1 - sig_i))
        go[...] = gh * tanh_c * (sig_o * (1 - sig_o))
        g_cells = []
        for gf, sig_f, cell in zip(gfs, sig_fs, cells):
            gf[...] = g_cell * cell * (sig_f * (1 - sig_f))
            g_cells.append(g_cell * sig_f)
        return g_cells + [gx]


def tree_lstm(*inputs: Any) -> tuple[variable.Variable, variable.Variable]:
    """One step of a TreeLSTM cell over ``N`` children (N-ary and child-sum TreeLSTMs).

    ``x`` holds ``3 + N`` contiguous blocks along its second axis, each as wide as a cell:
    ``a`` (cell input), ``i`` (input gate), ``o`` (output gate) and ``f_1 .. f_N`` (one forget
    gate per child). Then ``c = tanh(a) sigmoid(i) + sum_n sigmoid(f_n) c_n`` and
    ``h = sigmoid(o) tanh(c)``. Note the block layout differs from :func:`lstm`'s interleaved
    gates.

    Args:
        inputs: The children's cell states ``c_1, ..., c_N`` (each ``(B, n, ...)``) followed
            by ``x`` of shape ``(B, (3 + N) n, ...)`` and the same dtype.

    Returns:
        ``(c, h)``: the new cell state and the output, both ``(B, n, ...)``.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On fewer than two inputs, or mismatched
            shapes or dtypes.

    See: `Improved Semantic Representations From Tree-Structured Long Short-Term Memory
    Networks <https://www.aclweb.org/anthology/P15-1150>`_ and `A Fast Unified Model for Parsing
    and Sentence Understanding <https://arxiv.org/abs/1603.06021>`_.
    """
    c, h = TreeLSTM().apply(inputs)
    return c, h
