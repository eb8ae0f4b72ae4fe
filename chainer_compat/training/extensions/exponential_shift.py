"""``ExponentialShift``: multiplies an optimizer attribute by ``rate`` at each call.

Layer 8: imports ``training.extensions._shift_base``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.training.extensions._shift_base import _clamp, _ShiftBase

__all__ = ["ExponentialShift"]


class ExponentialShift(_ShiftBase):
    """Sets ``optimizer.<attr>`` to ``init * rate ** t`` at the ``t``-th call.

    Args:
        attr: Name of the attribute, e.g. ``'lr'``.
        rate: Factor per call; must not be negative.
        init: Initial value; read from the optimizer when ``None``.
        target: Value the schedule stops at (from above when ``rate < 1``).
        optimizer: Optimizer to change; the updater's ``'main'`` one when ``None``.

    Raises:
        ValueError: If ``rate`` is negative.
    """

    def __init__(self, attr: str, rate: float, init: float | None = None,
                 target: float | None = None, optimizer: Any = None) -> None:
        if rate < 0:
            # compat: Chainer's wording.
            raise ValueError("ExponentialShift does not support negative rate")
        super().__init__(attr, init, optimizer)
        self._rate = rate
        self._target = target

    def _compute_value(self) -> Any:
        return _clamp(self._init * self._rate ** self._t, self._target, self._rate > 1)
