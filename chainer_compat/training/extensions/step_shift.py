"""``StepShift``: multiplies an optimizer attribute by ``gamma`` every ``step`` calls.

Layer 8: imports ``training.extensions._shift_base``.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat.training.extensions._shift_base import _clamp, _ShiftBase

__all__ = ["StepShift"]


class StepShift(_ShiftBase):
    """Sets ``optimizer.<attr>`` to ``init * gamma ** floor(t / step)`` at the ``t``-th call.

    Args:
        attr: Name of the attribute.
        gamma: Factor per step.
        step: Calls per step.
        init: Initial value; read from the optimizer when ``None``.
        target: Value the schedule stops at (from above when ``gamma < 1``).
        optimizer: Optimizer to change; the updater's ``'main'`` one when ``None``.
    """

    def __init__(self, attr: str, gamma: float, step: int, init: float | None = None,
                 target: float | None = None, optimizer: Any = None) -> None:
        super().__init__(attr, init, optimizer)
        self._gamma = gamma
        self._step = step
        self._target = target

    def _compute_value(self) -> Any:
        value = self._init * self._gamma ** numpy.floor(self._t / self._step)
        return _clamp(value, self._target, self._gamma > 1)
