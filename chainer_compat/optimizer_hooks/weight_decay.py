"""``WeightDecay``: L2 regularization, adding ``rate * param`` to each gradient.

Layer 8: imports backend and ``utils._numpy_scalars``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend
from chainer_compat.utils._numpy_scalars import weak_scalar_against

__all__ = ["WeightDecay"]


class WeightDecay:
    """Adds ``rate`` times the parameter to its gradient (L2 regularization).

    Register it on an optimizer (called for each parameter) or on one update rule.

    Args:
        rate: The decay coefficient.

    Attributes:
        rate: The decay coefficient.
        timing: ``'pre'``: the hook runs before the update.
        call_for_each_param: True: an optimizer calls it as ``hook(rule, param)``.
    """

    name = "WeightDecay"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def __call__(self, rule: Any, param: Any) -> None:
        data, grad = param.array, param.grad
        if data is None or grad is None:
            return
        rate = weak_scalar_against(self.rate, grad)  # NOTE [NumPy scalars in updates]
        if param._loss_scale is not None:
            # The gradient is still scaled by the loss scale here, so the decay must be too.
            rate *= param._loss_scale
        with backend.using_device(backend.get_device_from_array(data)):
            grad += rate * data
