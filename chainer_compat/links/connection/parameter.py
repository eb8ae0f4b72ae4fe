"""``Parameter`` (``chainer.links.Parameter``): a link that holds one array as its parameter
``W`` and returns it when called.

Layer 8: imports backend, functions and link.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, link, variable
from chainer_compat.functions.math.identity import identity

__all__ = ["Parameter"]


class Parameter(link.Link):
    """A link whose only parameter ``W`` is the given array, and whose output is ``W``.

    It puts a free-standing array under a link's care: the optimizers update it, serializers
    save it and device moves take it along.

    Args:
        array: The initial array (NumPy or CuPy). It becomes ``W.array`` without a copy; a CuPy
            array puts the link on that array's device.

    Attributes:
        W: The parameter.
    """

    W: variable.Parameter

    def __init__(self, array: Any) -> None:
        super().__init__()
        self.add_param("W", array.shape, dtype=array.dtype)
        self.W.array = array
        if backend.is_cupy_array(array):
            self.to_device(backend.get_device_from_array(array))

    def forward(self, volatile: Any = "off") -> variable.Variable:
        """Returns ``W`` as the output of an identity node, so gradients flow back into ``W``.

        Args:
            volatile: Ignored.
        """
        # compat: ``volatile`` is Chainer v1's no-backprop switch; Chainer 7 accepts it and
        # has no effect, so it is accepted and ignored here too.
        del volatile
        return identity(self.W)
