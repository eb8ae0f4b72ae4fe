"""``Lasso``: L1 regularization, adding ``rate * sign(param)`` to each gradient.

Layer 8: imports backend and ``utils._numpy_scalars``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend
from chainer_compat.utils._numpy_scalars import weak_scalar_against

__all__ = ["Lasso"]


class Lasso:
    """Adds ``rate`` times the sign of the parameter to its gradient (L1 regularization).

    Args:
        rate: The regularization coefficient.

    Attributes:
        rate: The regularization coefficient.
        timing: ``'pre'``: the hook runs before the update.
        call_for_each_param: True: an optimizer calls it as ``hook(rule, param)``.
    """

    name = "Lasso"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def __call__(self, rule: Any, param: Any) -> None:
        data, grad = param.array, param.grad
        if data is None or grad is None:
            return
        xp = backend.get_array_module(data)
        with backend.using_device(backend.get_device_from_array(data)):
            # NOTE [NumPy scalars in updates]
            grad += weak_scalar_against(self.rate, grad) * xp.sign(data)
