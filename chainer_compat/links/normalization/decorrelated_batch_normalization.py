"""``DecorrelatedBatchNormalization``: whitens channel groups with the batch's statistics in
training and with running averages of them otherwise.

Layer 8: imports backend, configuration, functions, link, serializer, utils and variable.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from chainer_compat import backend, configuration, link, variable
from chainer_compat.functions.normalization.decorrelated_batch_normalization import (
    decorrelated_batch_normalization,
    fixed_decorrelated_batch_normalization,
)
from chainer_compat.serializer import Deserializer
from chainer_compat.serializers import _checked
from chainer_compat.utils import argument

__all__ = ["DecorrelatedBatchNormalization", "fix_avg_mean", "fix_avg_projection"]


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

    Compat: like Chainer, loading also accepts the statistics of models saved before Chainer
    v7 changed their shapes (``(C,)`` and ``(C, C)``, one set shared by all groups): they are
    broadcast to every group, with a warning when ``groups`` is not 1.

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

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the running statistics, accepting pre-v7 shapes on loading."""
        if isinstance(serializer, Deserializer):
            serializer = _OldStatisticsDeserializer(serializer, self.groups)
        super().serialize(serializer)

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


def _fix_statistic(name: str, value: Any, ndim: int, groups: int) -> Any:
    """Returns ``value`` in the current layout, broadcasting a pre-v7 statistic to the groups."""
    if value.ndim == ndim:
        return value
    if value.ndim == ndim - 1:
        if groups != 1:
            # compat: Chainer's warning for statistics from before its v7 fix.
            warnings.warn(
                "Found moving statistics of old DecorrelatedBatchNormalization, whose "
                "algorithm was different from the paper.", stacklevel=3)
        xp = backend.get_array_module(value)
        return xp.broadcast_to(value, (groups,) + value.shape)
    raise ValueError(
        f"{name} of DecorrelatedBatchNormalization must have {ndim} dimensions (or {ndim - 1} "
        f"as saved before Chainer v7), got shape {value.shape}")


def fix_avg_mean(avg_mean: Any, groups: int) -> Any:
    """Returns a running mean in the current ``(groups, C)`` layout.

    Args:
        avg_mean: A running mean as saved: ``(groups, C)``, or ``(C,)`` before Chainer v7.
        groups: Number of groups of the link that loads it.

    Returns:
        ``avg_mean`` itself, or a read-only view broadcasting a ``(C,)`` mean to the groups
        (with a warning when ``groups`` is not 1).

    Raises:
        ValueError: If ``avg_mean`` has neither layout's number of dimensions.
    """
    return _fix_statistic("avg_mean", avg_mean, 2, groups)


def fix_avg_projection(avg_projection: Any, groups: int) -> Any:
    """Returns running whitening matrices in the current ``(groups, C, C)`` layout.

    Args:
        avg_projection: As saved: ``(groups, C, C)``, or ``(C, C)`` before Chainer v7.
        groups: Number of groups of the link that loads it.

    Returns:
        ``avg_projection`` itself, or a read-only view broadcasting a ``(C, C)`` matrix to the
        groups (with a warning when ``groups`` is not 1).

    Raises:
        ValueError: If ``avg_projection`` has neither layout's number of dimensions.
    """
    return _fix_statistic("avg_projection", avg_projection, 3, groups)


_FIXES = {"avg_mean": fix_avg_mean, "avg_projection": fix_avg_projection}


class _OldStatisticsDeserializer(Deserializer):
    """Wraps a deserializer so that statistics saved in the pre-v7 layout load.

    Chainer v7 gave ``avg_mean`` and ``avg_projection`` a leading groups axis; older files hold
    one set of statistics, which Chainer broadcasts to every group on loading.
    """

    def __init__(self, base: Any, groups: int) -> None:
        self.base = base
        self.groups = groups

    def __getitem__(self, key: str) -> Any:
        return self.base[key]

    @property
    def _checks_only(self) -> bool:
        return _checked.checks_only(self.base)

    def __call__(self, key: str, value: Any) -> Any:
        fix = _FIXES.get(key)
        if fix is None:
            return self.base(key, value)
        if self._checks_only:
            # NOTE [all-or-nothing loading]: fix and copy as below, into a stand-in.
            loaded = self.base.peek(key)
            if loaded is not None and value is not None:
                self.base.check(lambda: backend.copyto(
                    _checked.stand_in(value), fix(loaded, self.groups)))
            return value
        loaded = self.base(key, None)
        if loaded is None:
            # Nothing stored under the key (non-strict loading): keep the current value.
            return value
        loaded = fix(loaded, self.groups)
        if value is None:
            return loaded
        backend.copyto(value, loaded)
        return value
