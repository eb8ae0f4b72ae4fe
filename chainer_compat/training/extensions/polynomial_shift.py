"""``PolynomialShift``: decays an optimizer attribute to zero over ``max_count`` calls as
``init * (1 - t / max_count) ** rate``.

Layer 8: imports ``training.extensions._shift_base``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.training.extensions._shift_base import _ShiftBase

__all__ = ["PolynomialShift"]


class PolynomialShift(_ShiftBase):
    """Sets ``optimizer.<attr>`` to ``init * max(1 - t / max_count, 0) ** rate`` at the
    ``t``-th call.

    Args:
        attr: Name of the attribute.
        rate: Exponent of the decay.
        max_count: Number of calls until the value reaches zero.
        init: Initial value; read from the optimizer when ``None``.
        target: Value the schedule stops at (from above when ``rate > 0``).
        optimizer: Optimizer to change; the updater's ``'main'`` one when ``None``.
    """

    # compat: a leftover of Chainer 1 that Chainer 7.8.1 still defines here (and nothing reads).
    invoke_before_training = True

    def __init__(self, attr: str, rate: float, max_count: int, init: float | None = None,
                 target: float | None = None, optimizer: Any = None) -> None:
        super().__init__(attr, init, optimizer)
        self._rate = rate
        self._max_count = max_count
        self._target = target

    def _compute_value(self) -> Any:
        decay = max(1 - self._t / self._max_count, 0)
        value = self._init * decay ** self._rate
        if self._target is not None:
            if self._rate > 0:
                if self._target / value > 1:
                    value = self._target
            elif self._target / value < 1:
                value = self._target
        return value
