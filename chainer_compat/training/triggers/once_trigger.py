"""``OnceTrigger``: fires at its first call only (and optionally once more after resuming).

Layer 8: imports only ``serializers._checked``.
"""

from __future__ import annotations

import warnings
from typing import Any

from chainer_compat.serializers import _checked

__all__ = ["OnceTrigger"]


class OnceTrigger:
    """Fires at the first call, and at the first call after resuming if ``call_on_resume``.

    Args:
        call_on_resume: Whether to fire again once after the trainer is resumed.
    """

    def __init__(self, call_on_resume: bool = False) -> None:
        self._flag_first = True
        self._flag_resumed = call_on_resume

    @property
    def finished(self) -> bool:
        """Whether the trigger will never fire again."""
        return not (self._flag_first or self._flag_resumed)

    def __call__(self, trainer: Any) -> bool:
        """Returns ``True`` the first time (see the class docstring), ``False`` afterwards."""
        fire = not self.finished
        self._flag_resumed = False
        self._flag_first = False
        return fire

    def serialize(self, serializer: Any) -> None:
        """Saves or loads whether the first call has happened."""
        try:
            self._flag_first = bool(serializer("_flag_first", self._flag_first))
        except KeyError:
            warnings.warn(
                "The flag is not saved.OnceTrigger guess it is not first when resumed. If this "
                "trigger is resumed before first called, it may not work correctly.", stacklevel=2)
            if not _checked.checks_only(serializer):  # NOTE [all-or-nothing loading]
                self._flag_first = False
