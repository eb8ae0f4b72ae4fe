"""``WeightLink``: the base of the connection links that hold a weight ``W``, whose shape may
wait for the first input, and an optional bias ``b``.

Layer 8: imports initializers, link and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import initializers, link, variable

__all__ = ["WeightLink"]


class WeightLink(link.Link):
    """A link with a weight ``W`` and an optional bias ``b``, registered in that order.

    Subclasses call :meth:`_add_weight` then :meth:`_add_bias`, and define
    :meth:`_initialize_params`, which ``forward`` also calls while ``W`` has no data. The order
    is Chainer's: it fixes the npz keys and the order in which random initializers draw.

    Attributes:
        W: The weight parameter.
        b: The bias parameter, or None when the link has no bias.
    """

    W: variable.Parameter
    b: variable.Parameter | None

    def _add_weight(self, initialW: Any, in_size: Any = None) -> None:
        """Registers ``W``; ``initialW`` None means ``LeCunNormal()``.

        With ``in_size`` given, ``W`` is shaped now by ``_initialize_params(in_size)``;
        otherwise it waits for the subclass (or the first input) to do it.
        """
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW))
            if in_size is not None:
                # Inside the scope, as in Chainer, so that an override may register parameters.
                self._initialize_params(in_size)

    def _add_bias(self, nobias: bool, initial_bias: Any, size: Any = None) -> None:
        """Registers ``b`` (None when ``nobias``); ``initial_bias`` None means zeros.

        ``size`` None leaves ``b`` without data until the subclass initializes it.
        """
        with self.init_scope():
            if nobias:
                self.b = None
            else:
                if initial_bias is None:
                    initial_bias = 0
                self.b = variable.Parameter(initializers._get_initializer(initial_bias), size)

    def _initialize_params(self, *sizes: Any) -> None:
        """Shapes the parameters from the input's sizes; every subclass defines it."""
        raise NotImplementedError(
            f"{type(self).__name__} must define _initialize_params to shape its parameters")
