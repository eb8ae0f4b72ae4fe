"""``InverseShift``: decays an optimizer attribute as ``init * (1 + gamma * t) ** -power``.

Layer 8: imports ``training.extensions._shift_base``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.training.extensions._shift_base import _clamp, _ShiftBase

__all__ = ["InverseShift"]


class InverseShift(_ShiftBase):
    """Sets ``optimizer.<attr>`` to ``init * (1 + gamma * t) ** (-power)`` at the ``t``-th call.

    Args:
        attr: Name of the attribute.
        gamma: Rate of the decay; must not be negative.
        power: Exponent of the decay.
        init: Initial value; read from the optimizer when ``None``.
        target: Value the schedule stops at (from above when ``power > 0``).
        optimizer: Optimizer to change; the updater's ``'main'`` one when ``None``.

    Raises:
        ValueError: If ``gamma`` is negative.
    """

    def __init__(self, attr: str, gamma: float, power: float, init: float | None = None,
                 target: float | None = None, optimizer: Any = None) -> None:
        if gamma < 0:
            # compat: Chainer's wording.
            raise ValueError("InverseShift does not support negative gamma")
        super().__init__(attr, init, optimizer)
        self._gamma = gamma
        self._power = power
        self._target = target

    def _compute_value(self) -> Any:
        value = self._init * (1 + self._gamma * self._t) ** (-self._power)
        return _clamp(value, self._target, self._power < 0)
