"""Minimal gated units: ``StatelessMGU`` and ``StatefulMGU``, one forget gate per unit.

Layer 8: imports backend, configuration, functions, link, links.connection.linear,
links.rnn._state and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, link, variable
from chainer_compat.configuration import get_dtype
from chainer_compat.functions.activation.sigmoid import sigmoid
from chainer_compat.functions.activation.tanh import tanh
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.math.linear_interpolate import linear_interpolate
from chainer_compat.links.connection.linear import Linear
from chainer_compat.links.rnn._state import HiddenStateMixin

__all__ = ["MGUBase", "StatefulMGU", "StatelessMGU"]


class MGUBase(link.Chain):
    """The two layers of a minimal gated unit, shared by the stateless and stateful links.

    Both ``W_f`` and ``W_h`` are ``Linear(n_inputs + n_units, n_units)`` applied to the
    previous state and the input concatenated in that order. One step is
    ``f = sigmoid(W_f [h, x])``, ``h_bar = tanh(W_h [f * h, x])`` and
    ``h_new = f * h_bar + (1 - f) * h``.

    Args:
        n_inputs: Input size.
        n_units: State size.
    """

    W_f: Linear
    W_h: Linear

    def __init__(self, n_inputs: int, n_units: int) -> None:
        super().__init__()
        with self.init_scope():
            self.W_f = Linear(n_inputs + n_units, n_units)
            self.W_h = Linear(n_inputs + n_units, n_units)

    def _call_mgu(self, h: Any, x: Any) -> variable.Variable:
        """One step from state ``h`` and input ``x``; returns the new state."""
        f = sigmoid(self.W_f(concat((h, x))))
        h_bar = tanh(self.W_h(concat((f * h, x))))
        return linear_interpolate(f, h_bar, h)


class StatelessMGU(MGUBase):
    """An MGU layer that takes its previous state as an argument; see :class:`MGUBase`."""

    def forward(self, h: Any, x: Any) -> variable.Variable:
        """Runs one step.

        Args:
            h: The previous state, of shape ``(B, n_units)``.
            x: The input, of shape ``(B, n_inputs)``.

        Returns:
            The new state.
        """
        return self._call_mgu(h, x)


class StatefulMGU(HiddenStateMixin, MGUBase):
    """An MGU layer that keeps its state ``h``; see :class:`MGUBase`.

    The first call after :meth:`reset_state` starts from a zero state of the default dtype
    (``chainer.config.dtype``).

    Args:
        in_size: Input size.
        out_size: State size.

    Attributes:
        h: The state Variable, or None before the first call.
    """

    h: variable.Variable | None

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__(in_size, out_size)
        self._state_size = out_size
        self.reset_state()

    def forward(self, x: Any) -> variable.Variable:
        """Runs one step and updates the state.

        Args:
            x: The input, of shape ``(B, in_size)``.

        Returns:
            The new state, also kept as ``h``.
        """
        h = self.h
        if h is None:
            # compat: the zero state has the configured default dtype, not x's, as in Chainer.
            with backend.using_device(self.device):
                h = variable.Variable(
                    self.xp.zeros((x.shape[0], self._state_size), dtype=get_dtype()))
        self.h = self._call_mgu(h, x)
        return self.h
