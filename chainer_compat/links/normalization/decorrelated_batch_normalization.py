"""``DecorrelatedBatchNormalization``: whitens channel groups with the batch's statistics in
training and with running averages of them otherwise.

Layer 8: imports configuration, functions, link, utils and variable.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import configuration, link, variable
from chainer_compat.functions.normalization.decorrelated_batch_normalization import (
    decorrelated_batch_normalization,
    fixed_decorrelated_batch_normalization,
)
from chainer_compat.utils import argument

__all__ = ["DecorrelatedBatchNormalization"]


class DecorrelatedBatchNormalization(link.Link):
    """Decorrelated batch normalization layer (no learned parameters).

    Args:
        size: Number of channels.
        groups: Number of channel groups whitened independently; should divide ``size``.
        decay: Weight of the old value in each update of the running averages.
        eps: Added to the diagonal of each covariance matrix.
        dtype: Dtype of the running statistics.

    Attributes:
        avg_mean: Running mean, of shape ``(groups, size // groups)`` (persistent).
        avg_projection: Running whitening matrices, of shape
            ``(groups, size // groups, size // groups)``, identities at first (persistent).
        N: Number of batches averaged in fine-tuning (persistent).
        decay: As given.
        eps: As given.
        groups: As given.

    Compat: Chainer also loads the statistics of models saved before its v7 fix (one group's
    shapes); this link loads only the current shapes.

    See: `Decorrelated Batch Normalization <https://arxiv.org/abs/1804.08450>`_
    """

    def __init__(self, size: int, groups: int = 16, decay: float = 0.9, eps: float = 2e-5,
                 dtype: Any = numpy.float32) -> None:
        super().__init__()
        channels = size // groups
        self.avg_mean = numpy.zeros((groups, channels), dtype=dtype)
        self.register_persistent("avg_mean")
        self.avg_projection = numpy.broadcast_to(
            numpy.eye(channels, dtype=dtype), (groups, channels, channels)).copy()
        self.register_persistent("avg_projection")
        self.N = 0
        self.register_persistent("N")
        self.decay = decay
        self.eps = eps
        self.groups = groups

    def forward(self, x: Any, **kwargs: Any) -> variable.Variable:
        """forward(self, x, *, finetune=False)

        Normalizes ``x`` of shape ``(N, size, ...)``.

        Args:
            x: Input.
            finetune: In training, average the statistics of all batches since the last
                :meth:`start_finetuning` (decay ``1 - 1 / N``) instead of decaying by
                ``decay``.

        Returns:
            The whitened ``x``.

        Raises:
            TypeError: On an unknown keyword.
        """
        finetune, = argument.parse_kwargs(kwargs, ("finetune", False))
        config = configuration.config
        if not config.train:
            return fixed_decorrelated_batch_normalization(
                x, self.avg_mean, self.avg_projection, groups=self.groups)
        if finetune:
            self.N += 1
            decay = 1.0 - 1.0 / self.N
        else:
            decay = self.decay
        avg_mean: Any = self.avg_mean
        avg_projection: Any = self.avg_projection
        if config.in_recomputing:
            # A recomputed forward must not count or average the batch a second time.
            if finetune:
                self.N -= 1
            avg_mean = avg_projection = None
        return decorrelated_batch_normalization(
            x, groups=self.groups, eps=self.eps, running_mean=avg_mean,
            running_projection=avg_projection, decay=decay)

    def start_finetuning(self) -> None:
        """Restarts the cumulative averaging of ``forward(x, finetune=True)``."""
        self.N = 0
