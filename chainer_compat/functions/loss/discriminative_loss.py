"""``discriminative_margin_based_clustering_loss``: the instance-embedding loss of De Brabandere
et al. (2017) that pulls pixels to their instance's mean and pushes instance means apart.

Layer 5: imports backend, variable and the activation, array and math functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.functions.activation.relu import relu
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.math.basic_math import absolute
from chainer_compat.functions.math.sqrt import sqrt
from chainer_compat.functions.math.sum import sum as sum_over
from chainer_compat.utils._assertions import AssertValueError


def _l1_norm(x: Any, axis: Any = None) -> variable.Variable:
    return sum_over(absolute(x), axis=axis)


def _l2_norm(x: Any, axis: Any = None) -> variable.Variable:
    return sqrt(sum_over(x * x, axis=axis))


class DiscriminativeMarginBasedClusteringLoss:
    """Callable form of :func:`discriminative_margin_based_clustering_loss`.

    Args:
        delta_v: Margin within which a pixel is close enough to its instance's mean.
        delta_d: Half the distance beyond which two instance means are far enough apart.
        max_embedding_dim: Number ``K`` of instance labels (``1`` to ``K``); it must equal
            the embedding dimension.
        norm: 1 or 2, the norm of distances.
        alpha: Weight of the variance term.
        beta: Weight of the distance term.
        gamma: Weight of the regularization term.

    Raises:
        ValueError: If ``max_embedding_dim`` is not positive or ``norm`` is not 1 or 2.
    """

    def __init__(self, delta_v: float = 0.5, delta_d: float = 1.5, max_embedding_dim: int = 10,
                 norm: int = 1, alpha: float = 1.0, beta: float = 1.0,
                 gamma: float = 0.001) -> None:
        self.delta_v = delta_v
        self.delta_d = delta_d
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.max_embedding_dim = max_embedding_dim
        if max_embedding_dim <= 0:
            # compat: Chainer's sentence first, which code may match.
            raise ValueError(
                "Max number of embeddings has to be positive!\n"
                f"max_embedding_dim must be the (positive) number of instance labels, got "
                f"{max_embedding_dim!r}")
        # An array (an extra positional argument lands here) is no norm: compared as Chainer
        # compares it, it must not reach a dict lookup (TypeError: unhashable).
        if numpy.ndim(norm) != 0 or norm not in (1, 2):
            # compat: Chainer's sentence first, which code may match.
            raise ValueError(
                "For discriminative loss, norm can only be 1 or 2. Obtained the value : "
                f"{norm}\npass norm=1 (L1) or norm=2 (L2)")
        self.norm: Callable[..., variable.Variable] = _l1_norm if norm == 1 else _l2_norm

    def __call__(self, embeddings: Any, labels: Any) -> tuple[Any, Any, Any]:
        """Returns the weighted ``(variance, distance, regularization)`` terms.

        Args:
            embeddings: Pixel embeddings of shape ``(N, K, H, W)``.
            labels: Integer instance labels of shape ``(N, H, W)``: 0 for background, ``1`` to
                ``K`` for instances.

        Raises:
            ValueError: If ``embeddings.shape[1]`` is not ``max_embedding_dim`` (also an
                AssertionError, as Chainer asserts it).
        """
        n_cluster = self.max_embedding_dim
        if embeddings.shape[1] != n_cluster:
            # compat: Chainer asserts this; the embedding dimension doubles as the label count.
            raise AssertValueError(
                f"embeddings.shape[1] must equal max_embedding_dim = {n_cluster}, got "
                f"{embeddings.shape[1]}")
        labels = variable.as_array(labels)
        xp = backend.get_array_module(labels)
        n_batch = embeddings.shape[0]
        # masks[k, n, 0, h, w]: whether pixel (h, w) of image n belongs to instance k + 1.
        masks = xp.stack([labels == k + 1 for k in range(n_cluster)])[:, :, None]
        masks = masks.astype(embeddings.dtype)
        shape = (n_cluster,) + tuple(embeddings.shape)
        tiled = broadcast_to(embeddings[None], shape)
        pixel_counts = xp.maximum(masks.sum(axis=(2, 3, 4)), 1)  # (K, N)
        means = sum_over(tiled * xp.broadcast_to(masks, shape), axis=(3, 4))
        means = means / xp.broadcast_to(pixel_counts[:, :, None], means.shape)  # (K, N, C)

        # compat: the regularizer takes the norm over images and channels together.
        regularization = sum_over(self.norm(means, (1, 2))) / (n_cluster * n_batch)

        spread = (broadcast_to(means[:, :, :, None, None], shape) - tiled) * masks
        pull = relu(self.norm(spread, 2) - self.delta_v) ** 2
        variance = sum_over(pull, axis=(1, 2, 3)) / xp.maximum(masks.sum(axis=(1, 2, 3, 4)), 1)
        variance = sum_over(variance) / n_cluster

        distance: Any = 0.0
        pairs = 0
        for first in range(n_cluster):
            for second in range(first + 1, n_cluster):
                gap = self.norm(means[first] - means[second], 1)
                distance = distance + sum_over(relu(2 * self.delta_d - gap) ** 2)
                pairs += 1
        distance = distance / max(pairs * n_batch, 1)
        return self.alpha * variance, self.beta * distance, self.gamma * regularization


def discriminative_margin_based_clustering_loss(
        embeddings: Any, labels: Any, delta_v: float, delta_d: float, max_embedding_dim: int,
        norm: int = 1, alpha: float = 1.0, beta: float = 1.0,
        gamma: float = 0.001) -> tuple[Any, Any, Any]:
    """Discriminative margin-based clustering loss for instance segmentation.

    With ``mu_kn`` the mean embedding of instance ``k`` in image ``n``, the terms are: variance,
    the mean over instances of ``relu(|mu_kn - e_p| - delta_v) ** 2`` averaged over their
    pixels ``p``; distance, ``relu(2 delta_d - |mu_an - mu_bn|) ** 2`` averaged over pairs of
    instances and images; regularization, the norm of the means. Built from differentiable
    functions.

    Args:
        embeddings: Pixel embeddings of shape ``(N, K, H, W)``.
        labels: Integer instance labels of shape ``(N, H, W)`` (0 is background).
        delta_v: Pull margin.
        delta_d: Push margin (half the wanted distance between means).
        max_embedding_dim: Number ``K`` of instance labels; must equal ``embeddings.shape[1]``.
        norm: 1 or 2.
        alpha: Weight of the variance term.
        beta: Weight of the distance term.
        gamma: Weight of the regularization term.

    Returns:
        ``(variance, distance, regularization)``, each weighted; add them for the loss.

    Raises:
        ValueError: On a non-positive ``max_embedding_dim``, a norm other than 1 or 2, or an
            embedding dimension other than ``max_embedding_dim``.
    """
    loss = DiscriminativeMarginBasedClusteringLoss(
        delta_v, delta_d, max_embedding_dim, norm, alpha, beta, gamma)
    return loss(embeddings, labels)
