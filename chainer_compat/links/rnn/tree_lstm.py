"""TreeLSTM layers: ``ChildSumTreeLSTM`` (any number of children, shared weights) and
``NaryTreeLSTM`` (a fixed number of ordered children, one weight per position).

Layer 8: imports functions, link, links.connection.linear and variable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer_compat import link, variable
from chainer_compat.functions.activation.sigmoid import sigmoid
from chainer_compat.functions.activation.tanh import tanh
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.array.split_axis import split_axis
from chainer_compat.functions.rnn.tree_lstm import tree_lstm
from chainer_compat.links.connection.linear import Linear
from chainer_compat.utils._assertions import AssertValueError

__all__ = ["ChildSumTreeLSTM", "NaryTreeLSTM"]


class TreeArgumentError(AssertValueError):
    """A TreeLSTM link got a malformed argument list or arity.

    Compat: Chainer checks these with bare ``assert`` statements; deriving from
    ``AssertionError`` too keeps code that caught it working.
    """


def _input_or_zeros(link_: link.Chain, cells: Sequence[Any], outputs: Sequence[Any],
                    x: Any, in_size: int) -> Any:
    """``x``, or zeros shaped like a batch of inputs when ``x`` is None.

    The batch size and dtype come from the first child state given.
    """
    if x is not None:
        return x
    given = [v for v in cells if v is not None] or [v for v in outputs if v is not None]
    if not given:
        raise ValueError("All inputs (cs, hs, x) are None.")
    base = given[0]
    return link_.xp.zeros((base.shape[0], in_size), dtype=base.dtype)


def _fill_missing(link_: link.Chain, values: Sequence[Any], shape: tuple[int, ...],
                  dtype: Any) -> tuple[Any, ...]:
    """``values`` with each None replaced by zeros (an absent child contributes nothing)."""
    if all(v is not None for v in values):
        return tuple(values)
    zeros = link_.xp.zeros(shape, dtype=dtype)
    return tuple(zeros if v is None else v for v in values)


class ChildSumTreeLSTM(link.Chain):
    """A child-sum TreeLSTM layer: a node with any number of children, weights shared by all.

    ``W_x`` (``Linear(in_size, 4 * out_size)``) maps the input to the pre-activations of
    ``a``, ``i``, ``o`` and one forget gate ``f`` (contiguous blocks); ``W_h_aio``
    (``Linear(out_size, 3 * out_size, nobias=True)``) adds the sum of the children's outputs
    to ``a``, ``i`` and ``o``; ``W_h_f`` (``Linear(out_size, out_size, nobias=True)``) adds
    each child's own output to that child's forget gate. The step is
    :func:`~chainer_compat.functions.tree_lstm`; a leaf (no children) computes
    ``c = sigmoid(i) tanh(a)`` and ``h = sigmoid(o) tanh(c)``.

    Args:
        in_size: Input size.
        out_size: Output (state) size.

    Attributes:
        in_size: Input size.
        state_size: Output size.

    See: `Improved Semantic Representations From Tree-Structured Long Short-Term Memory
    Networks <https://www.aclweb.org/anthology/P15-1150>`_.
    """

    W_x: Linear
    W_h_aio: Linear
    W_h_f: Linear

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__()
        with self.init_scope():
            self.W_x = Linear(in_size, 4 * out_size)
            self.W_h_aio = Linear(out_size, 3 * out_size, nobias=True)
            self.W_h_f = Linear(out_size, out_size, nobias=True)
        self.in_size = in_size
        self.state_size = out_size

    def forward(self, *cshsx: Any) -> tuple[variable.Variable, variable.Variable]:
        """Runs one step for a node from its children's states and its input.

        Args:
            cshsx: ``c_1, ..., c_N, h_1, ..., h_N, x``: the children's cell states, their
                outputs (each ``(B, out_size)`` or None for an absent child) and the input
                ``(B, in_size)``, or None for zeros.

        Returns:
            ``(c, h)``: the node's cell state and output.

        Raises:
            ValueError: If the argument count is even, or every argument is None.
        """
        if len(cshsx) % 2 != 1:
            raise TreeArgumentError(
                "the arguments must be c_1..c_N, h_1..h_N, x (an odd count), got "
                f"{len(cshsx)}")
        children = len(cshsx) // 2
        cells, outputs, x = cshsx[:children], cshsx[children:-1], cshsx[-1]
        x = _input_or_zeros(self, cells, outputs, x, self.in_size)
        size = self.state_size
        x_aio, x_f = split_axis(self.W_x(x), [3 * size], axis=1)
        if children == 0:
            a, i, o = split_axis(x_aio, 3, axis=1)
            c = sigmoid(i) * tanh(a)
            return c, sigmoid(o) * tanh(c)
        shape = (x.shape[0], size)
        outputs = _fill_missing(self, outputs, shape, x.dtype)
        cells = _fill_missing(self, cells, shape, x.dtype)
        aio = self.W_h_aio(sum(outputs)) + x_aio
        # One batched matmul for every child's forget term, then one block per child.
        per_child = split_axis(self.W_h_f(concat(outputs, axis=0)), children, axis=0)
        forgets = concat(per_child, axis=1) + concat([x_f] * children, axis=1)
        return tree_lstm(*cells, concat((aio, forgets), axis=1))


class NaryTreeLSTM(link.Chain):
    """An N-ary TreeLSTM layer: a node with ``n_ary`` ordered children, one weight each.

    ``W_x`` (``Linear(in_size, (3 + n_ary) * out_size)``) maps the input, and ``W_h1`` ..
    ``W_h{n_ary}`` (``Linear(out_size, (3 + n_ary) * out_size, nobias=True)``) map each
    child's output, to the pre-activations of ``a``, ``i``, ``o`` and one forget gate per
    child (contiguous blocks); their sum feeds
    :func:`~chainer_compat.functions.tree_lstm`.

    Args:
        in_size: Input size.
        out_size: Output (state) size.
        n_ary: Number of children, at least 1.

    Attributes:
        in_size: Input size.
        state_size: Output size.
        n_ary: Number of children.

    Raises:
        ValueError: If ``n_ary`` is less than 1 (also an ``AssertionError``, as Chainer's).

    See: `A Fast Unified Model for Parsing and Sentence Understanding
    <https://arxiv.org/abs/1603.06021>`_.
    """

    W_x: Linear

    def __init__(self, in_size: int, out_size: int, n_ary: int = 2) -> None:
        if n_ary < 1:
            raise TreeArgumentError(f"n_ary must be at least 1, got {n_ary}")
        super().__init__()
        width = (3 + n_ary) * out_size
        with self.init_scope():
            self.W_x = Linear(in_size, width)
            for position in range(1, n_ary + 1):
                setattr(self, f"W_h{position}", Linear(out_size, width, nobias=True))
        self.in_size = in_size
        self.state_size = out_size
        self.n_ary = n_ary

    def forward(self, *cshsx: Any) -> tuple[variable.Variable, variable.Variable]:
        """Runs one step for a node from its children's states and its input.

        Args:
            cshsx: ``c_1, ..., c_N, h_1, ..., h_N, x`` with ``N = n_ary``: the children's
                cell states, their outputs (each ``(B, out_size)`` or None for an absent
                child) and the input ``(B, in_size)``, or None for zeros.

        Returns:
            ``(c, h)``: the node's cell state and output.

        Raises:
            ValueError: If there are not ``2 * n_ary + 1`` arguments (also an
                ``AssertionError``, as Chainer's), or every argument is None.
        """
        if len(cshsx) != 2 * self.n_ary + 1:
            raise TreeArgumentError(
                f"the arguments must be c_1..c_N, h_1..h_N, x with N = n_ary = {self.n_ary}, "
                f"got {len(cshsx)} arguments; pass None for an absent child")
        cells, outputs, x = cshsx[:self.n_ary], cshsx[self.n_ary:-1], cshsx[-1]
        x = _input_or_zeros(self, cells, outputs, x, self.in_size)
        tree_in = self.W_x(x)
        for position, h in enumerate(outputs, start=1):
            if h is not None:
                tree_in += getattr(self, f"W_h{position}")(h)
        cells = _fill_missing(self, cells, (x.shape[0], self.state_size), x.dtype)
        return tree_lstm(*cells, tree_in)
