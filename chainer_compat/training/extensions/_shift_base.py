"""The state every hyperparameter-shift extension shares: the attribute, the optimizer, the
call count ``_t`` and the last value set.

Layer 8: imports ``serializers._checked`` and ``training.extension``.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat.serializers import _checked
from chainer_compat.training import extension

__all__: list[str] = []


class _ShiftBase(extension.Extension):
    """Sets ``optimizer.<attr>`` to a value computed from the number of calls ``_t``.

    ``initialize`` restores the last value set (after resuming) or sets the initial value;
    ``serialize`` stores ``_t`` and ``_last_value``.
    """

    def __init__(self, attr: str, init: Any, optimizer: Any) -> None:
        self._attr = attr
        self._init = init
        self._optimizer = optimizer
        self._t = 0
        self._last_value: Any = None

    def _get_optimizer(self, trainer: Any) -> Any:
        return self._optimizer or trainer.updater.get_optimizer("main")

    def _update_value(self, optimizer: Any, value: Any) -> None:
        setattr(optimizer, self._attr, value)
        self._last_value = value

    def initialize(self, trainer: Any) -> None:
        """Sets the last value (after resuming) or the initial one (read from the optimizer
        when ``init`` is ``None``)."""
        optimizer = self._get_optimizer(trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        self._update_value(optimizer,
                           self._init if self._last_value is None else self._last_value)

    def __call__(self, trainer: Any) -> None:
        """Advances the schedule by one call and sets the new value."""
        self._t += 1
        self._update_value(self._get_optimizer(trainer), self._compute_value())

    def _compute_value(self) -> Any:
        raise NotImplementedError

    def serialize(self, serializer: Any) -> None:
        """Saves or loads ``_t`` and ``_last_value``."""
        self._t = serializer("_t", self._t)
        if _checked.checks_only(serializer) and self._last_value is None:
            # NOTE [all-or-nothing loading]: the array the real pass gets must be one value.
            loaded = serializer.peek("_last_value")
            if isinstance(loaded, numpy.ndarray):
                serializer.check(loaded.item)
            return
        self._last_value = serializer("_last_value", self._last_value)
        if isinstance(self._last_value, numpy.ndarray):
            self._last_value = self._last_value.item()


def _clamp(value: Any, target: Any, increasing: bool) -> Any:
    """``value`` stopped at ``target``: from above when the schedule decreases, from below when
    it increases."""
    if target is None:
        return value
    if increasing:
        return target if value / target > 1 else value
    return target if value / target < 1 else value
