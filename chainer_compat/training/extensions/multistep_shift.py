"""``MultistepShift``: multiplies an optimizer attribute by ``gamma`` at each listed call.

Layer 8: imports ``training.extension``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer_compat.training import extension

__all__ = ["MultistepShift"]


class MultistepShift(extension.Extension):
    """Sets ``optimizer.<attr>`` to ``init * gamma ** k``, ``k`` being the number of
    ``step_value`` points reached (at most one more per call).

    Args:
        attr: Name of the attribute.
        gamma: Factor per step.
        step_value: Increasing call counts at which a step happens.
        init: Initial value (set on ``initialize``); read from the optimizer when ``None``.
        optimizer: Optimizer to change; the updater's ``'main'`` one when ``None``.
    """

    def __init__(self, attr: str, gamma: float, step_value: Sequence[int], init: float | None,
                 optimizer: Any = None) -> None:
        self._attr = attr
        self._gamma = gamma
        self._step_value = step_value
        self._init = init
        self._optimizer = optimizer
        self._stepvalue_size = len(step_value)
        self._current_step = 0
        self._t = 0

    def _get_optimizer(self, trainer: Any) -> Any:
        return self._optimizer or trainer.updater.get_optimizer("main")

    def initialize(self, trainer: Any) -> None:
        """Sets ``init`` on the optimizer, or reads it when ``None``."""
        optimizer = self._get_optimizer(trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        else:
            setattr(optimizer, self._attr, self._init)

    def __call__(self, trainer: Any) -> None:
        """Advances by one call, steps if the next point is reached, and sets the value."""
        self._t += 1
        if (self._current_step < self._stepvalue_size
                and self._t >= self._step_value[self._current_step]):
            self._current_step += 1
        value = self._init * pow(self._gamma, self._current_step)  # type: ignore[operator]
        setattr(self._get_optimizer(trainer), self._attr, value)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads ``_t`` and ``_current_step``."""
        self._t = serializer("_t", self._t)
        self._current_step = serializer("_current_step", self._current_step)
