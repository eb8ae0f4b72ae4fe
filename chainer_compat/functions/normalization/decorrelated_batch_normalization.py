"""``decorrelated_batch_normalization`` (ZCA whitening of channel groups with the batch's
statistics) and ``fixed_decorrelated_batch_normalization`` (with given statistics).

Layer 5: imports backend, variable, function_node, type_check, utils (argument, the
reduction order, shapes) and ``functions`` (transpose, reshape, matmul, sum).
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.expand_dims import expand_dims as _expand_dims
from chainer_compat.functions.array.reshape import reshape as _reshape
from chainer_compat.functions.array.transpose import transpose as _transpose
from chainer_compat.functions.math.matmul import matmul as _matmul
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import argument, type_check
from chainer_compat.utils._reduction_order import mean_in_numpy1_order
from chainer_compat.utils._shapes import broadcasts_to


def _to_groups(x: Any, groups: int) -> Any:
    """``(b, c, *spatial)`` to ``(groups, c // groups, b * prod(spatial))``: the columns of each
    group's matrix are the samples (over batch and space) of its channels."""
    order = (1, 0) + tuple(range(2, x.ndim))
    return x.transpose(order).reshape(groups, x.shape[1] // groups, -1)


def _from_groups(y: Any, shape: tuple[int, ...]) -> Any:
    """The inverse of :func:`_to_groups` for an input of ``shape``."""
    order = (1, 0) + tuple(range(2, len(shape)))
    return y.reshape((shape[1], shape[0]) + tuple(shape[2:])).transpose(order)


# NOTE [decorrelated batch normalization arithmetic]
# Chainer's order, for its bits: the batch is whitened in two products, first onto the
# covariance's principal axes (P = diag(w^-1/2) V^T c) and then back to the channels (y = V P),
# and the gradient is worked out on the principal axes, coupling each pair of axes i != j by
#     S_ij = K_ji (w_i F_ji + r_i F_ij r_j) + K_ij (w_j F_ij + r_j F_ji r_i),
# with r = w^1/2, K_ij = 1 / (w_i - w_j) and F the gradient of P times P^T over the batch.
# Chainer's products with diagonal matrices are row and column scalings here, the same bits.
# Where two eigenvalues are equal Chainer sets K to 0, which drops their coupling (a gradient
# 300% off for white input), and where they nearly are, its two terms cancel (error about
# eps / gap). The pair's coupling equals -(r_i F_ji + r_j F_ij) / (r_i + r_j), which has no
# cancellation: it is used for pairs closer than sqrt(eps) relative to the larger eigenvalue,
# where Chainer's would be off by more than sqrt(eps). On random data with 16 channels a group,
# a few calls in a hundred have such a pair; the rest get Chainer's bits.


class DecorrelatedBatchNormalization(FunctionNode):
    """Decorrelated batch normalization with the batch's statistics. Use
    :func:`decorrelated_batch_normalization`.

    Args:
        groups: Number of channel groups whitened independently.
        eps: Added to the diagonal of each covariance matrix.
        mean: Running mean of shape ``(groups, C)``, updated in place, or None.
        projection: Running projection of shape ``(groups, C, C)``, updated in place, or None.
        decay: Weight of the old running values.
    """

    def __init__(self, groups: int = 16, eps: float = 2e-5, mean: Any = None,
                 projection: Any = None, decay: float = 0.9) -> None:
        self.groups = groups
        self.eps = eps
        self.running_mean = mean
        self.running_projection = projection
        self.decay = decay

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() == 1)
        x_type = in_types[0]
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.shape[1] % self.groups == 0,
        )
        type_check.expect(x_type.ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        grouped = _to_groups(x, self.groups)
        count = grouped.shape[2]
        size = grouped.shape[1]
        # compat: means in NumPy 1's order past 8,192 entries (NOTE [NumPy 1 sum order]).
        mean = mean_in_numpy1_order(grouped, 2, keepdims=True)
        centered = grouped - mean
        covariance = xp.matmul(centered, centered.transpose(0, 2, 1)) / x.dtype.type(count)
        covariance += x.dtype.type(self.eps) * xp.eye(size, dtype=x.dtype)
        eigenvalues, eigenvectors = xp.linalg.eigh(covariance)
        # NOTE [decorrelated batch normalization arithmetic]
        to_principal = (eigenvalues ** -0.5)[:, :, None] * eigenvectors.transpose(0, 2, 1)
        principal = xp.matmul(to_principal, centered)
        self._eigenvalues = eigenvalues
        self._eigenvectors = eigenvectors
        self._principal = principal
        if self.running_mean is not None:
            self.running_mean *= self.decay
            self.running_mean += (1 - self.decay) * mean[:, :, 0]
        if self.running_projection is not None:
            # compat: Chainer scales the projection (not a variance) by m / (m - 1).
            unbiased = count / max(count - 1.0, 1.0)
            self.running_projection *= self.decay
            self.running_projection += ((1 - self.decay) * unbiased
                                        * xp.matmul(eigenvectors, to_principal))
        return _from_groups(xp.matmul(eigenvectors, principal), x.shape),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gradient = DecorrelatedBatchNormalizationGrad(
            self.groups, self._eigenvalues, self._eigenvectors, self._principal)
        return gradient.apply(grad_outputs)


class DecorrelatedBatchNormalizationGrad(FunctionNode):
    """The gradient of :class:`DecorrelatedBatchNormalization` (first order only).

    Args:
        groups: Number of channel groups.
        eigenvalues: Each group's covariance eigenvalues, ``(groups, C)``, ascending.
        eigenvectors: The matching eigenvectors as columns, ``(groups, C, C)``.
        principal: The whitened batch on the principal axes, ``(groups, C, samples)``.
    """

    def __init__(self, groups: int, eigenvalues: Any, eigenvectors: Any,
                 principal: Any) -> None:
        self.groups = groups
        self.eigenvalues = eigenvalues
        self.eigenvectors = eigenvectors
        self.principal = principal

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # NOTE [decorrelated batch normalization arithmetic]
        gy, = inputs
        xp = backend.get_array_module(gy)
        values, vectors, principal = self.eigenvalues, self.eigenvectors, self.principal
        count = principal.shape[2]
        g_principal = xp.matmul(vectors.transpose(0, 2, 1), _to_groups(gy, self.groups))
        g_mean = mean_in_numpy1_order(g_principal, 2, keepdims=True)
        products = xp.matmul(g_principal, principal.transpose(0, 2, 1)) / gy.dtype.type(count)
        roots = values ** 0.5
        differences = values[:, None, :] - values[:, :, None]  # w_j - w_i, K transposed
        nonzero = differences != 0
        reciprocals = xp.zeros_like(differences)
        reciprocals[nonzero] = xp.reciprocal(differences[nonzero])
        half = reciprocals * (values[:, :, None] * products.transpose(0, 2, 1)
                              + roots[:, :, None] * products * roots[:, None, :])
        coupling = half + half.transpose(0, 2, 1)
        close = xp.abs(differences) < (xp.finfo(gy.dtype).eps ** 0.5
                                       * xp.maximum(values[:, None, :], values[:, :, None]))
        close[:, xp.arange(values.shape[1]), xp.arange(values.shape[1])] = False
        if close.any():
            weighted = roots[:, :, None] * products.transpose(0, 2, 1)
            stable = -(weighted + weighted.transpose(0, 2, 1)) / (
                roots[:, :, None] + roots[:, None, :])
            coupling[close] = stable[close]
        diagonal = xp.arange(values.shape[1])
        coupling[:, diagonal, diagonal] -= products[:, diagonal, diagonal]
        residual = g_principal - g_mean + xp.matmul(coupling.transpose(0, 2, 1), principal)
        g_grouped = xp.matmul(residual.transpose(0, 2, 1) * (values ** -0.5)[:, None, :],
                              vectors.transpose(0, 2, 1)).transpose(0, 2, 1)
        return _from_groups(g_grouped, gy.shape),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # compat: Chainer's type and wording; the eigenvectors' own gradient is not written.
        raise NotImplementedError(
            "Double backward is not implemented for decorrelated batch normalization.")


def _check_fixed_statistics(x_shape: tuple[int, ...], mean_shape: tuple[int, ...],
                            projection_shape: tuple[int, ...], groups: int) -> None:
    """Raises ValueError unless the channels split into ``groups`` and ``mean`` and
    ``projection`` broadcast to ``(groups, C)`` and ``(groups, C, C)``, as Chainer's arithmetic
    lets them."""
    channels = x_shape[1]
    if channels % groups:
        raise ValueError(
            f"the channels of x must be a multiple of groups, got x.shape[1]={channels} and "
            f"groups={groups}; pass a groups that divides the {channels} channels")
    size = channels // groups
    context = (f"\nx.shape: {x_shape}, groups: {groups}, mean.shape: {mean_shape}, "
               f"projection.shape: {projection_shape}")
    if len(mean_shape) != 2:
        # compat: Chainer's expand_dims(mean, 2) raises AxisError (a ValueError and an
        # IndexError) for a mean that is not 2-dimensional.
        raise numpy.exceptions.AxisError(
            f"mean must be 2-dimensional, of shape (groups, C // groups) = {(groups, size)}, "
            f"got ndim={len(mean_shape)}" + context)
    if not broadcasts_to(mean_shape, (groups, size)):
        raise ValueError(
            f"mean must have shape (groups, C // groups) = {(groups, size)}, "
            f"got {mean_shape}" + context)
    if len(projection_shape) not in (2, 3) or not broadcasts_to(
            projection_shape, (groups, size, size)):
        raise ValueError(
            "projection must have shape (groups, C // groups, C // groups) = "
            f"{(groups, size, size)}, got {projection_shape}" + context)


class FixedDecorrelatedBatchNormalization(FunctionNode):
    """Decorrelated batch normalization with given statistics. Use
    :func:`fixed_decorrelated_batch_normalization`.

    Args:
        groups: Number of channel groups.
    """

    def __init__(self, groups: int) -> None:
        self.groups = groups

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() == 3)
        x_type, mean_type, projection_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            mean_type.dtype == x_type.dtype,
            projection_type.dtype == x_type.dtype,
        )
        type_check.expect(x_type.ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x, mean, projection = inputs
        _check_fixed_statistics(x.shape, mean.shape, projection.shape, self.groups)
        xp = backend.get_array_module(x)
        centered = _to_groups(x, self.groups) - mean[:, :, None]
        return _from_groups(xp.matmul(projection, centered), x.shape),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # Composed of differentiable functions, so the gradient has gradients too.
        x, mean, projection = self.get_retained_inputs()
        gy, = grad_outputs
        shape = x.shape
        order = (1, 0) + tuple(range(2, len(shape)))
        size = shape[1] // self.groups
        g_grouped = _reshape(_transpose(gy, order), (self.groups, size, -1))
        g_centered = _matmul(projection, g_grouped, transa=True)
        grads: list[Any] = []
        if 0 in indexes:
            swapped_shape = (shape[1], shape[0]) + tuple(shape[2:])
            grads.append(_transpose(_reshape(g_centered, swapped_shape), order))
        if 1 in indexes:
            grads.append(-_sum(g_centered, axis=2))
        if 2 in indexes:
            grouped = _reshape(_transpose(x, order), (self.groups, size, -1))
            centered = grouped - _expand_dims(mean, 2)
            grads.append(_matmul(g_grouped, centered, transb=True))
        return tuple(grads)


def decorrelated_batch_normalization(x: Any, **kwargs: Any) -> variable.Variable:
    """decorrelated_batch_normalization(x, *, groups=16, eps=2e-5, running_mean=None, \
running_projection=None, decay=0.9)

    Decorrelated batch normalization: splits the channels into ``groups`` groups and
    ZCA-whitens each group with the batch's mean and covariance (over the batch and spatial
    axes), so that the output channels of a group are zero-mean and uncorrelated.

    Args:
        x: Float input of shape ``(N, C, ...)``; ``groups`` must divide ``C``.
        **kwargs: ``groups`` (16), ``eps`` (2e-5, added to the covariance's diagonal),
            ``running_mean`` (array of shape ``(groups, C // groups)`` updated in place, or
            None), ``running_projection`` (``(groups, C // groups, C // groups)``, likewise),
            ``decay`` (0.9).

    Returns:
        A Variable of ``x``'s shape and dtype. First-order gradients only (as in Chainer).

    Raises:
        TypeError: On an unknown keyword.
        chainer_compat.utils.type_check.InvalidType: On a non-float ``x`` or if ``groups``
            does not divide the channels.

    See: `Decorrelated Batch Normalization <https://arxiv.org/abs/1804.08450>`_
    """
    groups, eps, running_mean, running_projection, decay = argument.parse_kwargs(
        kwargs, ("groups", 16), ("eps", 2e-5), ("running_mean", None),
        ("running_projection", None), ("decay", 0.9))
    node = DecorrelatedBatchNormalization(groups, eps, running_mean, running_projection, decay)
    return node.apply((x,))[0]


def fixed_decorrelated_batch_normalization(x: Any, mean: Any, projection: Any,
                                           groups: int = 16) -> variable.Variable:
    """Decorrelated batch normalization with given statistics (inference): each group of
    channels is centred by ``mean`` and multiplied by ``projection``.

    Args:
        x: Float input of shape ``(N, C, ...)``.
        mean: Mean of shape ``(groups, C // groups)`` and ``x``'s dtype.
        projection: Whitening matrices of shape ``(groups, C // groups, C // groups)``.
        groups: Number of channel groups.

    Returns:
        A Variable of ``x``'s shape and dtype; gradients flow to all three inputs.

    Compat:
        Chainer's gradients for ``mean`` and ``projection`` are wrong (and of the wrong
        shape for the projection); these are the true gradients, and they are
        differentiable.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or ranks.
        ValueError: If ``groups`` does not divide the channels, or ``mean`` or ``projection``
            does not broadcast to its shape above (``numpy.exceptions.AxisError``, also an
            IndexError, for a ``mean`` that is not 2-dimensional, as in Chainer).
    """
    return FixedDecorrelatedBatchNormalization(groups).apply((x, mean, projection))[0]
