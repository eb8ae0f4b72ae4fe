"""``BinaryHierarchicalSoftmax``: softmax over a vocabulary factored along a binary tree, with
``create_huffman_tree`` to build the tree from word counts, ``TreeParser`` to read its paths and
``BinaryHierarchicalSoftmaxFunction``, the loss as an old-style Function.

Layer 8: imports backend, configuration, device_resident, function, function_node, functions,
initializers, link, utils and variable.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any

import numpy

from chainer_compat import backend, configuration, function, initializers, link, utils, variable
from chainer_compat.device_resident import DeviceResident, DeviceResidentsVisitor
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import gradients_without_graph, records_a_graph
from chainer_compat.functions.array.cast import cast
from chainer_compat.functions.loss.negative_sampling import gathered_sigmoid_double_backward
from chainer_compat.utils import type_check


def _paths_of_leaves(tree: Any) -> tuple[dict[Any, list[int]], dict[Any, list[float]], int]:
    """Numbers the internal nodes in preorder and returns, for every leaf, the nodes on its
    path from the root, the side taken at each (+1 left, -1 right), and the node count."""
    paths: dict[Any, list[int]] = {}
    codes: dict[Any, list[float]] = {}
    next_node = 0
    # Iterative preorder walk: (node, path so far, codes so far).
    pending: list[tuple[Any, list[int], list[float]]] = [(tree, [], [])]
    while pending:
        node, path, code = pending.pop()
        if not isinstance(node, tuple):
            paths[node] = path
            codes[node] = code
            continue
        if len(node) != 2:
            raise ValueError(
                f"All internal nodes must have two child nodes, got a tuple of {len(node)}")
        left, right = node
        node_id = next_node
        next_node += 1
        # Right is pushed first so that the left subtree is numbered first.
        pending.append((right, path + [node_id], code + [-1.0]))
        pending.append((left, path + [node_id], code + [1.0]))
    return paths, codes, next_node


class TreeParser:
    """Numbers the internal nodes of a tree in preorder and records every leaf's path.

    Args:
        dtype: Dtype of the branch codes.

    Attributes:
        paths: After :meth:`parse`, for every word the ``int32`` ids of the internal nodes on
            its path from the root.
        codes: After :meth:`parse`, for every word the branch taken at each of those nodes:
            ``1`` for left, ``-1`` for right.
    """

    def __init__(self, dtype: Any) -> None:
        self.dtype = dtype
        self.next_id = 0
        self.paths: dict[Any, numpy.ndarray] = {}
        self.codes: dict[Any, numpy.ndarray] = {}

    def size(self) -> int:
        """Returns the number of internal nodes of the last parsed tree."""
        return self.next_id

    def get_paths(self) -> dict[Any, numpy.ndarray]:
        """Returns :attr:`paths`."""
        return self.paths

    def get_codes(self) -> dict[Any, numpy.ndarray]:
        """Returns :attr:`codes`."""
        return self.codes

    def parse(self, tree: Any) -> None:
        """Parses ``tree`` (nested pairs with word ids at the leaves).

        Raises:
            ValueError: If an internal node does not have exactly two children.
        """
        paths, codes, self.next_id = _paths_of_leaves(tree)
        self.paths = {word: numpy.array(path, numpy.int32) for word, path in paths.items()}
        self.codes = {word: numpy.array(code, self.dtype) for word, code in codes.items()}


class BinaryHierarchicalSoftmaxFunction(DeviceResident, function.Function):
    """The hierarchical softmax loss of a fixed tree, as an old-style Function.

    Calling it on ``(x, t, W)`` returns the summed loss of :class:`BinaryHierarchicalSoftmax`
    with weights ``W``; the link itself computes the same loss from differentiable functions.

    Args:
        tree: The tree, as for :class:`BinaryHierarchicalSoftmax`.
        dtype: Dtype of :attr:`codes`.

    Attributes:
        paths: The ``int32`` internal-node ids of every word's path, concatenated in word order.
        codes: The branch signs (``1`` left, ``-1`` right) aligned with :attr:`paths`.
        begins: ``int32`` offsets: word ``w``'s path is ``paths[begins[w]:begins[w + 1]]``.
        parser_size: Number of internal nodes, the rows ``W`` must have.
    """

    def __init__(self, tree: Any, dtype: Any) -> None:
        DeviceResident.__init__(self)
        parser = TreeParser(dtype)
        parser.parse(tree)
        paths, codes = parser.get_paths(), parser.get_codes()
        words = range(max(paths) + 1)
        self.paths = numpy.concatenate([paths[w] for w in words if w in paths])
        self.codes = numpy.concatenate([codes[w] for w in words if w in codes])
        lengths = [len(paths[w]) if w in paths else 0 for w in words]
        self.begins = numpy.concatenate([[0], numpy.cumsum(lengths)]).astype(numpy.int32)
        self.parser_size = parser.size()

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() == 3)
        x_type, t_type, w_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 2,
            t_type.dtype == numpy.int32,
            t_type.ndim == 1,
            x_type.shape[0] == t_type.shape[0],
            w_type.dtype == x_type.dtype,
            w_type.ndim == 2,
            w_type.shape[0] == self.parser_size,
            w_type.shape[1] == x_type.shape[1],
        )

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)
        self.paths = visitor.visit_array(self.paths)
        self.codes = visitor.visit_array(self.codes)
        self.begins = visitor.visit_array(self.begins)

    def _example_paths(self, t: Any) -> tuple[Any, Any, Any]:
        """Every example's path, padded: nodes and signs ``(N, depth)`` and lengths ``(N,)``."""
        xp = backend.get_array_module(t)
        starts = self.begins[t]
        lengths = self.begins[t + 1] - starts
        depth = int(lengths.max()) if len(t) else 0
        if depth == 0:
            empty = xp.zeros((len(t), 0), numpy.int32)
            return empty, empty.astype(self.codes.dtype), lengths
        offsets = xp.arange(depth, dtype=numpy.int32)
        positions = xp.where(offsets < lengths[:, None], starts[:, None] + offsets, 0)
        return self.paths[positions], self.codes[positions], lengths

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, t, W = inputs
        return _path_loss(x, W, *self._example_paths(t)),

    def backward(self, inputs: tuple[Any, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, t, W = inputs
        gloss, = grad_outputs
        gx, gW = _path_loss_grads(x, W, *self._example_paths(t), gloss)
        return gx, None, gW


# NOTE [per-example order]
# Chainer's CPU code loops over the examples: per example one matrix-vector product of its path's
# rows with x, elementwise steps, a sum over the path, and a running total over the examples in
# x's dtype; gW takes each example's outer product in example order. Grouping the examples by
# path length keeps that arithmetic: stacked matmul makes the same product call per example
# (NumPy's float16 matmul sums in float32 in order, as its dot does), the sums run along rows of
# the same length, cumsum is the running total, and add.at adds in index order.
def _length_groups(nodes: Any, signs: Any, lengths: Any,
                   dtype: Any) -> list[tuple[Any, Any, Any]]:
    """The examples of each non-empty path length: their indexes, nodes and signs."""
    xp = backend.get_array_module(nodes)
    groups = []
    for length in (int(length) for length in xp.unique(lengths)):
        if length == 0:
            continue
        examples = xp.flatnonzero(lengths == length)
        groups.append((examples, nodes[examples, :length],
                       signs[examples, :length].astype(dtype, copy=False)))
    return groups


def _signed_scores(x: Any, W: Any, examples: Any, nodes: Any, signs: Any) -> tuple[Any, Any]:
    """The rows of a group's paths and their signed scores ``signs * (W[node] . x)``."""
    xp = backend.get_array_module(x)
    rows = W[nodes]
    return rows, xp.matmul(rows, x[examples][:, :, None])[:, :, 0] * signs


def _computed_in(x: Any, signs: Any) -> Any:
    """The dtype the loss is computed and returned in: x's, or the signs' when wider, since
    Chainer multiplies each score by its code (``dtype=float64`` makes a float64 loss). Its
    running total starts in x's dtype, so an empty batch's loss stays in x's."""
    return numpy.result_type(x.dtype, signs.dtype)


def _signed_coefficients(gloss: Any, signs: Any, codes_dtype: Any) -> Any:
    """``-gloss * codes`` as Chainer's CPU code computed it on NumPy 1, where a 0-d ``gloss``
    counted as a scalar: the product is in the codes' dtype when ``gloss``'s value fits it, so
    narrower codes round ``gloss`` first (value-based casting, which NumPy 2 dropped). The
    ``signs`` are the codes, +1, -1 or 0, in any dtype: only that rounding can differ."""
    xp = backend.get_array_module(gloss)
    negated = -gloss
    if xp is numpy and negated.ndim == 0:
        dtype = numpy.promote_types(numpy.min_scalar_type(negated), codes_dtype)
    else:
        dtype = numpy.result_type(negated.dtype, codes_dtype)
    return negated.astype(dtype, copy=False) * signs.astype(dtype, copy=False)


def _path_loss(x: Any, W: Any, nodes: Any, signs: Any, lengths: Any) -> Any:
    """The summed loss of padded per-example paths, in Chainer's order (NOTE [per-example
    order])."""
    xp = backend.get_array_module(x)
    dtype = _computed_in(x, signs)
    example_losses = xp.zeros(len(x), dtype)
    for examples, group_nodes, group_signs in _length_groups(nodes, signs, lengths, dtype):
        _, scores = _signed_scores(x, W, examples, group_nodes, group_signs)
        # log(1 + exp(-score)) at every step.
        example_losses[examples] = xp.logaddexp(0.0, -scores).sum(axis=1)
    if len(x) == 0:
        return xp.zeros((), x.dtype)
    return utils.force_array(xp.cumsum(example_losses)[-1], dtype)


def _path_loss_grads(x: Any, W: Any, nodes: Any, signs: Any, lengths: Any,
                     gloss: Any) -> tuple[Any, Any]:
    """The gradients ``(gx, gW)`` of :func:`_path_loss`, in Chainer's order."""
    xp = backend.get_array_module(x)
    gx = xp.zeros_like(x)
    gW = xp.zeros_like(W)
    step_examples, step_nodes, step_grads, step_order = [], [], [], []
    depth = nodes.shape[1]
    dtype = _computed_in(x, signs)
    for examples, group_nodes, group_signs in _length_groups(nodes, signs, lengths, dtype):
        rows, scores = _signed_scores(x, W, examples, group_nodes, group_signs)
        grads = _signed_coefficients(gloss, group_signs, signs.dtype) / (1.0 + xp.exp(scores))
        gx[examples] = xp.matmul(grads[:, None, :], rows)[:, 0, :]
        length = group_nodes.shape[1]
        step_examples.append(xp.repeat(examples, length))
        step_nodes.append(group_nodes.ravel())
        step_grads.append(grads.ravel())
        step_order.append((examples[:, None] * depth + xp.arange(length)).ravel())
    if step_grads:
        # Steps in example order, so that add.at meets a shared node's terms as Chainer does.
        order = xp.argsort(xp.concatenate(step_order))
        examples = xp.concatenate(step_examples)[order]
        grads = xp.concatenate(step_grads)[order]
        utils.add_at(gW, xp.concatenate(step_nodes)[order], grads[:, None] * x[examples])
    return gx, gW


class _TreeLoss(FunctionNode):
    """The link's loss for inputs ``(x, t, W)``, given every example's padded path.

    Chainer's link applies the old-style :class:`BinaryHierarchicalSoftmaxFunction`, and hooks
    see this node under that label with gradients on arrays (NOTE [old-style gradients]);
    unlike Chainer's, it can be differentiated twice (NOTE [gathered sigmoid scores]).
    """

    # compat: the label of the old-style Function Chainer's link applies.
    label = "BinaryHierarchicalSoftmaxFunction"

    def __init__(self, nodes: Any, signs: Any) -> None:
        self.nodes = nodes
        self.signs = signs
        # Signs are +1 or -1 along a path and 0 in its padding.
        self.lengths = (signs != 0).sum(axis=1)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 2))
        x, _, W = inputs
        return _path_loss(x, W, self.nodes, self.signs, self.lengths),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, W = self.get_retained_inputs()
        gloss, = grad_outputs
        if records_a_graph():
            gx, gW = _TreeLossGrad(self).apply((x, W, gloss))
            return gx, None, gW
        arrays = _path_loss_grads(x.array, W.array, self.nodes, self.signs, self.lengths,
                                  gloss.array)
        return gradients_without_graph((arrays[0], None, arrays[1]), indexes)


class _TreeLossGrad(FunctionNode):
    """The gradients ``(gx, gW)`` of :class:`_TreeLoss` for inputs ``(x, W, gloss)``."""

    def __init__(self, loss: _TreeLoss) -> None:
        self.loss = loss

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x, W, gloss = inputs
        loss = self.loss
        return _path_loss_grads(x, W, loss.nodes, loss.signs, loss.lengths, gloss)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, W, gloss = self.get_retained_inputs()
        xp = backend.get_array_module(x.array)
        on_path = xp.nonzero(self.loss.signs)
        dtype = gloss.dtype  # the loss's: x's, or the signs' when wider (_computed_in)
        # The loss of a step is softplus(-sign * score): the shared form's sign is -sign.
        steps = (on_path[0], self.loss.nodes[on_path],
                 -self.loss.signs[on_path].astype(dtype, copy=False))
        if dtype == x.dtype:
            return gathered_sigmoid_double_backward(x, W, gloss, steps, grad_outputs, indexes)
        # Wider signs: differentiate in their dtype, as the first order was computed, and
        # hand each input its gradient in its own dtype.
        ggx, ggW = (None if g is None else cast(g, dtype) for g in grad_outputs)  # noqa: N806
        grads = gathered_sigmoid_double_backward(cast(x, dtype), cast(W, dtype), gloss, steps,
                                                 (ggx, ggW), indexes)
        return tuple(None if grad is None else cast(grad, like.dtype)
                     for grad, like in zip(grads, (x, W, gloss)))


def _padded_tables(paths: dict[int, Any], codes: dict[int, Any],
                   dtype: Any) -> tuple[numpy.ndarray, numpy.ndarray]:
    """The internal nodes and branch signs of every word's path, one row per word id, padded
    with zeros; ids absent from the tree have an empty path."""
    n_vocabulary = max(paths) + 1
    depth = max(len(path) for path in paths.values())
    nodes = numpy.zeros((n_vocabulary, depth), numpy.int32)
    signs = numpy.zeros((n_vocabulary, depth), dtype)
    for word, path in paths.items():
        nodes[word, :len(path)] = path
        signs[word, :len(path)] = codes[word]
    return nodes, signs


class BinaryHierarchicalSoftmax(link.Link):
    """Hierarchical softmax over a binary tree of words (Morin and Bengio, 2005).

    Each internal node ``j`` of ``tree`` has a weight row ``W[j]``; the probability of going
    left at it is ``sigmoid(W[j] . x)``. The loss of word ``t`` is ``-log`` of the product of the
    branch probabilities along its path from the root, summed over the batch.

    Args:
        in_size: Dimension of the input vectors.
        tree: The tree: a leaf is a word id (a non-negative int), an internal node a pair
            ``(left, right)``; see :meth:`create_huffman_tree`.
        dtype: Dtype of the branch signs; the default dtype when None.

    Attributes:
        W: Weights of the internal nodes, shape ``(number of internal nodes, in_size)``,
            initialized uniformly in ``[-1, 1)``.

    Raises:
        ValueError: If an internal node does not have exactly two children.
    """

    W: variable.Parameter

    def __init__(self, in_size: int, tree: Any, dtype: Any = None) -> None:
        super().__init__()
        dtype = configuration.get_dtype(dtype)
        paths, codes, n_node = _paths_of_leaves(tree)
        self._nodes, self._signs = _padded_tables(paths, codes, dtype)
        self.parser_size = n_node
        with self.init_scope():
            self.W = variable.Parameter(initializers.Uniform(1), (n_node, in_size))

    def __setstate__(self, state: dict[str, Any]) -> None:
        # compat: Chainer 7.8.1's link (NOTE [pickles] in variable.py) keeps its tree as a
        # BinaryHierarchicalSoftmaxFunction, whose concatenated paths become our padded tables.
        function = state.get("_func")
        if function is not None and "_nodes" not in state:
            state = dict(state)
            del state["_func"]
            # On the host: a link pickled on a GPU holds CuPy arrays there.
            host = backend.CpuDevice()
            all_paths, all_codes = host.send(function.paths), host.send(function.codes)
            begins = [int(begin) for begin in host.send(function.begins)]
            spans = [(word, begin, end)
                     for word, (begin, end) in enumerate(itertools.pairwise(begins)) if end > begin]
            paths = {word: all_paths[begin:end] for word, begin, end in spans}
            codes = {word: all_codes[begin:end] for word, begin, end in spans}
            state["_nodes"], state["_signs"] = _padded_tables(paths, codes, all_codes.dtype)
            state["parser_size"] = function.parser_size
        super().__setstate__(state)

    @staticmethod
    def create_huffman_tree(word_counts: dict[Any, Any]) -> Any:
        """Builds a Huffman tree from word counts: frequent words get short paths.

        The two least frequent subtrees are merged repeatedly (ties broken by the order of
        the words in ``word_counts``; a merged subtree takes the earlier position).

        Args:
            word_counts: Mapping from word id to its count.

        Returns:
            The tree, as nested pairs with word ids at the leaves (a lone word for one word).

        Raises:
            ValueError: If ``word_counts`` is empty.
        """
        if not word_counts:
            raise ValueError("word_counts must not be empty, got an empty vocabulary")
        queue = [(count, order, word) for order, (word, count) in enumerate(word_counts.items())]
        heapq.heapify(queue)
        while len(queue) >= 2:
            first_count, first_order, first = heapq.heappop(queue)
            second_count, second_order, second = heapq.heappop(queue)
            heapq.heappush(queue, (first_count + second_count, min(first_order, second_order),
                                   (first, second)))
        return queue[0][2]

    def _check_inputs(self, x: variable.Variable, t: Any) -> None:
        W = self.W
        checks = [
            ("x.dtype.kind == f", x.dtype.kind == "f", f"{x.dtype.kind} != f"),
            ("x.ndim == 2", x.ndim == 2, f"{x.ndim} != 2"),
            ("t.dtype == int32", t.dtype == numpy.int32, f"{t.dtype} != int32"),
            ("t.ndim == 1", t.ndim == 1, f"{t.ndim} != 1"),
            ("x.shape[0] == t.shape[0]", x.shape[0] == t.shape[0],
             f"{x.shape[0]} != {t.shape[0]}"),
            ("W.dtype == x.dtype", W.dtype == x.dtype, f"{W.dtype} != {x.dtype}"),
            ("W.shape[1] == x.shape[1]", W.shape[1] == x.shape[1],
             f"{W.shape[1]} != {x.shape[1]}"),
        ]
        for expect, holds, actual in checks:
            if not holds:
                raise type_check.InvalidType(expect, actual)

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)
        # The path tables move with W, so that forward reads them where they are.
        self._nodes = visitor.visit_array(self._nodes)
        self._signs = visitor.visit_array(self._signs)

    def forward(self, x: Any, t: Any) -> variable.Variable:
        """Returns the summed loss of inputs ``x`` ``(N, in_size)`` for ``int32`` words ``t``.

        Raises:
            chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.
        """
        x = variable.as_variable(x)
        words = variable.as_array(t)
        self._check_inputs(x, words)
        device = backend.get_device_from_array(words)
        nodes = device.send(self._nodes)[words]
        signs = device.send(self._signs)[words]
        loss, = _TreeLoss(nodes, signs).apply((x, words, self.W))
        return loss
