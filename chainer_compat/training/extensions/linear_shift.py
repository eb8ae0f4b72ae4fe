"""``LinearShift``: moves an optimizer attribute linearly between two values over a range of
calls.

Layer 8: imports ``training.extensions._shift_base``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.training.extensions._shift_base import _ShiftBase

__all__ = ["LinearShift"]


class LinearShift(_ShiftBase):
    """Sets ``optimizer.<attr>`` to ``v1`` until call ``t1``, ``v2`` from call ``t2``, and the
    linear interpolation in between.

    Args:
        attr: Name of the attribute.
        value_range: ``(v1, v2)``.
        time_range: ``(t1, t2)`` in calls.
        optimizer: Optimizer to change; the updater's ``'main'`` one when ``None``.
    """

    def __init__(self, attr: str, value_range: tuple[float, float],
                 time_range: tuple[int, int], optimizer: Any = None) -> None:
        super().__init__(attr, None, optimizer)
        self._value_range = value_range
        self._time_range = time_range

    def initialize(self, trainer: Any) -> None:
        """Sets the last value (after resuming) or the value at the current call count."""
        value = self._compute_value() if self._last_value is None else self._last_value
        self._update_value(self._get_optimizer(trainer), value)

    def _compute_value(self) -> Any:
        t1, t2 = self._time_range
        v1, v2 = self._value_range
        if self._t <= t1:
            return v1
        if self._t >= t2:
            return v2
        return v1 + (self._t - t1) / (t2 - t1) * (v2 - v1)
