"""``negative_sampling``: the word2vec loss that contrasts each target with sampled negatives, and
the double backward shared with the hierarchical softmax (both score gathered rows of ``W``).

Layer 5: imports backend, function_node, utils, variable, type_check and the activation, array,
connection and math functions.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.activation.sigmoid import sigmoid
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.scatter_add import scatter_add
from chainer_compat.functions.connection.embed_id import embed_id
from chainer_compat.functions.loss._options import check_reduce
from chainer_compat.functions.math.sum import sum as sum_over
from chainer_compat.utils import argument, type_check

# Rows of ``t`` with this label contribute nothing.
_IGNORE_LABEL = -1


# NOTE [gathered sigmoid scores]
# Both losses here and in links/loss/hierarchical_softmax.py score "steps": step s pairs example
# e[s] with row n[s] of W and a sign k[s] (+1 or -1). With z = k * (W[n] . x[e]), the first-order
# gradients are gx[e] += g * W[n] and gW[n] += g * x[e] with g = k * gy[e] * sigmoid(z). Their
# forward follows Chainer's CPU arithmetic order exactly (so the bits agree); their backward,
# below, is built from differentiable functions, so any order of differentiation works.
def gathered_sigmoid_double_backward(
        x: variable.Variable, W: variable.Variable, gy: variable.Variable,  # noqa: N803
        steps: tuple[Any, Any, Any], grad_outputs: tuple[Any, Any],
        indexes: tuple[int, ...]) -> tuple[variable.Variable | None, ...]:
    """Differentiates ``(gx, gW)`` of NOTE [gathered sigmoid scores] along ``grad_outputs``.

    Args:
        x: Inputs ``(N, D)``.
        W: Weights ``(V, D)``.
        gy: The loss gradient: a scalar (one loss for all) or ``(N,)`` (one per example).
        steps: ``(examples, nodes, signs)``, three arrays of one length ``T``.
        grad_outputs: The gradients ``(ggx, ggW)`` of ``(gx, gW)``; None stands for zeros.
        indexes: Which of ``(x, W, gy)`` need a gradient.

    Returns:
        The gradients of ``x``, ``W`` and ``gy``, None where not asked for.
    """
    examples, nodes, signs = steps
    xp = backend.get_array_module(x.array)
    ggx, ggW = grad_outputs  # noqa: N806
    if ggx is None:
        ggx = xp.zeros_like(x.array)
    if ggW is None:
        ggW = xp.zeros_like(W.array)  # noqa: N806
    n_step, width = len(nodes), x.shape[1]

    def columns(vector: Any) -> variable.Variable:
        return broadcast_to(reshape(vector, (n_step, 1)), (n_step, width))

    rows = embed_id(nodes, W)
    inputs = embed_id(examples, x)
    if gy.ndim == 0:
        step_gy = broadcast_to(gy, (n_step,))
    else:
        step_gy = reshape(embed_id(examples, reshape(gy, (gy.shape[0], 1))), (n_step,))
    probability = sigmoid(sum_over(rows * inputs, axis=1) * signs)
    step_grads = step_gy * probability * signs
    # d(sum of ggx . gx + ggW . gW) / dz at every step, times dz/dg's partner factors.
    projected = (sum_over(rows * embed_id(examples, ggx), axis=1)
                 + sum_over(embed_id(nodes, ggW) * inputs, axis=1))
    curvature = projected * step_gy * probability * (1 - probability)
    results: list[variable.Variable | None] = [None, None, None]
    if 0 in indexes:
        results[0] = scatter_add(
            xp.zeros_like(x.array), examples,
            columns(step_grads) * embed_id(nodes, ggW) + columns(curvature) * rows)
    if 1 in indexes:
        results[1] = scatter_add(
            xp.zeros_like(W.array), nodes,
            columns(step_grads) * embed_id(examples, ggx) + columns(curvature) * inputs)
    if 2 in indexes:
        step_ggy = projected * probability * signs
        if gy.ndim == 0:
            results[2] = sum_over(step_ggy)
        else:
            results[2] = scatter_add(xp.zeros_like(gy.array), examples, step_ggy)
    return tuple(results)


class NegativeSamplingFunction(FunctionNode):
    """The loss of :func:`negative_sampling` for inputs ``(x, t, W)``.

    Args:
        sampler: As :func:`negative_sampling` takes it.
        sample_size: Number of negatives per example.
        reduce: ``'sum'`` or ``'no'``.

    Attributes:
        samples: After forward, the ``(N, sample_size + 1)`` ids used, ``t`` in column 0.

    Raises:
        ValueError: On an invalid ``reduce``.
    """

    ignore_label = _IGNORE_LABEL
    samples: Any = None

    def __init__(self, sampler: Any, sample_size: int, reduce: str = "sum") -> None:
        check_reduce(reduce, ("sum", "no"), "negative_sampling")
        self.sampler = sampler
        self.sample_size = sample_size
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t", "W"))
        x_type, t_type, w_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 2,
            t_type.dtype == numpy.int32,
            t_type.ndim == 1,
        )
        # A second call: a light check reads shape[0] at once, so the ndims must hold first.
        type_check.expect(
            x_type.shape[0] == t_type.shape[0],
            w_type.dtype == x_type.dtype,
            w_type.ndim == 2,
        )

    def _draw_samples(self, t: Any) -> Any:
        xp = backend.get_array_module(t)
        # compat: Chainer keeps the sampler's array, its dtype included, and writes t into it.
        samples = xp.asarray(self.sampler((len(t), self.sample_size + 1)))
        samples[:, 0] = t
        return samples

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x, t, W = inputs  # noqa: N806
        xp = backend.get_array_module(x)
        self.ignore_mask = t != self.ignore_label
        self.samples = self._draw_samples(t)
        # compat: Chainer computes a float16 loss in float32 and rounds the result once.
        wide = numpy.float32 if x.dtype == numpy.float16 else x.dtype
        kept_x = x[self.ignore_mask].astype(wide, copy=False)
        kept_rows = W[self.samples[self.ignore_mask]].astype(wide, copy=False)
        # One einsum as Chainer's CPU code has it: its sums run in einsum's own order.
        scores = xp.einsum("ij,ikj->ik", kept_x, kept_rows)
        scores[:, 0] *= -1
        losses = xp.zeros(len(x), wide)
        losses[self.ignore_mask] = xp.logaddexp(scores, 0).sum(axis=1)
        if self.reduce == "sum":
            losses = utils.force_array(losses.sum(), wide)
        return losses.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, _, W = self.get_retained_inputs()  # noqa: N806
        gy, = grad_outputs
        gx, gW = NegativeSamplingFunctionGrad(  # noqa: N806
            self.reduce, self.ignore_mask, self.sample_size, self.samples).apply((x, W, gy))
        return gx, None, gW


class NegativeSamplingFunctionGrad(FunctionNode):
    """The gradients ``(gx, gW)`` of :class:`NegativeSamplingFunction` for inputs
    ``(x, W, gy)``, differentiable again (NOTE [gathered sigmoid scores])."""

    def __init__(self, reduce: str, ignore_mask: Any, sample_size: int, samples: Any,
                 wx: Any = None) -> None:
        # ``wx``, Chainer's last argument (its forward's scores), is accepted and not kept:
        # this node recomputes the scores it needs (NOTE [gathered sigmoid scores]).
        del wx
        self.reduce = reduce
        self.ignore_mask = ignore_mask
        self.sample_size = sample_size
        self.samples = samples

    def _steps(self, xp: Any) -> tuple[Any, Any, Any]:
        """The kept examples' steps in example order, each example's samples in column order."""
        kept = xp.flatnonzero(self.ignore_mask)
        width = self.sample_size + 1
        examples = xp.repeat(kept, width)
        nodes = self.samples[kept].ravel()
        return examples, nodes, kept

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x, W, gy = inputs  # noqa: N806
        xp = backend.get_array_module(x)
        examples, nodes, kept = self._steps(xp)
        gx = xp.zeros_like(x)
        gW = xp.zeros_like(W)  # noqa: N806
        if len(kept) == 0:
            return gx, gW
        rows = W[self.samples[kept]]
        kept_x = x[kept]
        # Chainer's loop: per example a matrix-vector product, which stacked matmul reproduces
        # call for call; every step below is elementwise, so it vectorizes bit for bit.
        scores = xp.matmul(rows, kept_x[:, :, None])[:, :, 0]
        scores[:, 0] *= -1
        example_gy = gy if self.reduce == "sum" else gy[kept][:, None]
        step_grads = example_gy / (1 + xp.exp(-scores))
        step_grads[:, 0] *= -1
        gx[kept] = xp.matmul(step_grads[:, None, :], rows)[:, 0, :]
        # Chainer adds sample by sample, example by example: add.at keeps that order.
        utils.add_at(gW, nodes, step_grads.reshape(-1, 1) * x[examples])
        return gx, gW

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, W, gy = self.get_retained_inputs()  # noqa: N806
        xp = backend.get_array_module(x.array)
        examples, nodes, kept = self._steps(xp)
        signs = xp.ones((len(kept), self.sample_size + 1), x.dtype)
        signs[:, 0] = -1
        return gathered_sigmoid_double_backward(
            x, W, gy, (examples, nodes, signs.ravel()), grad_outputs, indexes)


def negative_sampling(x: Any, t: Any, W: Any, sampler: Any, sample_size: int,  # noqa: N803
                      reduce: str = "sum", **kwargs: Any) -> Any:
    """Negative sampling loss (Mikolov et al., 2013).

    For each example ``i`` the sampler draws ``sample_size`` negative ids ``n_ik``; the loss is
    ``softplus(-x_i . W[t_i]) + sum_k softplus(x_i . W[n_ik])``, that is ``-log sigmoid`` of the
    target's score plus ``-log sigmoid(-score)`` of each negative's. Examples whose label is -1
    contribute zero. It can be differentiated any number of times.

    On the CPU the loss and its gradients follow Chainer's arithmetic order, so they agree with
    Chainer 7.8.1's to the bit; a float16 loss is computed in float32 and rounded once.

    Args:
        x: Input vectors of shape ``(N, D)``.
        t: ``int32`` target ids of shape ``(N,)``; -1 ignores the example.
        W: Output embeddings of shape ``(V, D)``, in ``x``'s dtype.
        sampler: Callable taking a shape and returning an integer array of ids of that shape,
            such as ``WalkerAlias(counts).sample``. It is called with ``(N, sample_size + 1)``;
            column 0 is then overwritten with ``t``.
        sample_size: Number of negatives per example.
        reduce: ``'sum'`` adds the losses of all examples; ``'no'`` keeps them.
        return_samples (bool): If True, ``(loss, samples)`` is returned, ``samples`` being the
            ``(N, sample_size + 1)`` ids used, ``t`` in column 0.

    Returns:
        The loss: shape ``()``, or ``(N,)`` for ``'no'``; with ``return_samples``, also the ids.

    Raises:
        ValueError: On an invalid ``reduce``.
        TypeError: On an unknown keyword argument.
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.
    """
    return_samples, = argument.parse_kwargs(kwargs, ("return_samples", False))
    function = NegativeSamplingFunction(sampler, sample_size, reduce)
    loss, = function.apply((x, t, W))
    if return_samples:
        return loss, function.samples
    return loss
