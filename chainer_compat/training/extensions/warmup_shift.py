"""``WarmupShift``: moves an optimizer attribute linearly from a start value to ``init`` over
the first ``warmup_iter`` calls.

Layer 8: imports ``training.extension``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.training import extension

__all__ = ["WarmupShift"]


class WarmupShift(extension.Extension):
    """Sets ``optimizer.<attr>`` to ``(t * init + (warmup_iter - t) * warmup_start) /
    warmup_iter`` for calls ``t <= warmup_iter``, and leaves it alone afterwards.

    Args:
        attr: Name of the attribute.
        warmup_start: Value before the first call (set on ``initialize``); read from the
            optimizer when ``None``.
        warmup_iter: Number of warm-up calls.
        init: Value reached at the end of the warm-up.
        optimizer: Optimizer to change; the updater's ``'main'`` one when ``None``.
    """

    def __init__(self, attr: str, warmup_start: float | None, warmup_iter: int, init: float,
                 optimizer: Any = None) -> None:
        self._attr = attr
        self._warmup_start = warmup_start
        self._warmup_iter = warmup_iter
        self._init = init
        self._optimizer = optimizer
        self._t = 0

    def _get_optimizer(self, trainer: Any) -> Any:
        return self._optimizer or trainer.updater.get_optimizer("main")

    def initialize(self, trainer: Any) -> None:
        """Sets ``warmup_start`` on the optimizer, or reads it when ``None``."""
        optimizer = self._get_optimizer(trainer)
        if self._warmup_start is None:
            self._warmup_start = getattr(optimizer, self._attr)
        else:
            setattr(optimizer, self._attr, self._warmup_start)

    def __call__(self, trainer: Any) -> None:
        """Advances by one call and, during the warm-up, sets the interpolated value."""
        self._t += 1
        if self._t <= self._warmup_iter:
            start = self._warmup_start
            value = (self._t * self._init
                     + (self._warmup_iter - self._t) * start) / self._warmup_iter  # type: ignore[operator]
            setattr(self._get_optimizer(trainer), self._attr, value)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads ``_t``."""
        self._t = serializer("_t", self._t)
