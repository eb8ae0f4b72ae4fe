"""The recurrent state shared by the stateful RNN links: its type check, its device moves, and
mixins owning ``h`` (GRU, MGU) or ``c`` and ``h`` (the LSTMs).

Layer 8: imports device_resident, utils and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.device_resident import DeviceResidentsVisitor
from chainer_compat.utils._assertions import AssertTypeError

__all__: list[str] = []


class StateTypeError(AssertTypeError):
    """A recurrent link's ``set_state`` got something other than a Variable.

    Compat: Chainer checks this with a bare ``assert``; deriving from ``AssertionError`` too
    keeps code that caught it working.
    """


def check_state(name: str, value: Any) -> None:
    """Raises :class:`StateTypeError` unless ``value`` is a Variable."""
    if not isinstance(value, variable.Variable):
        raise StateTypeError(
            f"{name} must be a chainer.Variable, got {type(value).__name__}; wrap the array "
            f"as chainer.Variable({name})")


def visit_state(visitor: DeviceResidentsVisitor, *states: variable.Variable | None) -> None:
    """Hands a recurrent state's Variables to a device visitor, with the link's parameters."""
    for state in states:
        if state is not None:
            visitor.visit_variable(state)


class HiddenStateMixin:
    """Owns the state ``h`` of a one-state recurrent link; list it before the link class.

    The link's ``__init__`` calls :meth:`reset_state`; ``h`` then moves with the link's
    parameters between devices.
    """

    h: variable.Variable | None
    device: Any

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)  # type: ignore[misc]
        visit_state(visitor, self.h)

    def set_state(self, h: variable.Variable) -> None:
        """Sets the state, moving it to the link's device.

        Raises:
            TypeError: If ``h`` is not a Variable (also an ``AssertionError``, as Chainer's).
        """
        check_state("h", h)
        h.to_device(self.device)
        self.h = h

    def reset_state(self) -> None:
        """Forgets the state, as at construction (the link says how its next call starts)."""
        self.h = None


class CellStateMixin:
    """Owns the cell state ``c`` and output ``h`` of an LSTM link; list it before the link class.

    The link's ``__init__`` calls :meth:`reset_state`; ``c`` and ``h`` then move with the
    link's parameters between devices. :class:`SettableCellStateMixin` adds ``set_state``.
    """

    c: variable.Variable | None
    h: variable.Variable | None

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)  # type: ignore[misc]
        visit_state(visitor, self.c, self.h)

    def reset_state(self) -> None:
        """Forgets the state: the next call starts from zeros."""
        self.c = self.h = None


class SettableCellStateMixin(CellStateMixin):
    """:class:`CellStateMixin` with ``set_state(c, h)``, for the LSTMs Chainer gives one."""

    device: Any

    def set_state(self, c: variable.Variable, h: variable.Variable) -> None:
        """Sets the state, moving it to the link's device.

        Args:
            c: The new cell state.
            h: The new output.

        Raises:
            TypeError: If ``c`` or ``h`` is not a Variable (the error is also an
                ``AssertionError``, as Chainer's).
        """
        check_state("c", c)
        check_state("h", h)
        c.to_device(self.device)
        h.to_device(self.device)
        self.c = c
        self.h = h
