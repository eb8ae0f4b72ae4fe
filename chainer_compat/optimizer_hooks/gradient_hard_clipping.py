"""``GradientHardClipping``: clips every gradient element into ``[lower_bound, upper_bound]``.

Layer 8: imports backend and ``utils._numpy_scalars``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend
from chainer_compat.utils._numpy_scalars import weak_scalar

__all__ = ["GradientHardClipping"]


class GradientHardClipping:
    """Clips each gradient element, in place, to lie within the bounds.

    Args:
        lower_bound: The smallest allowed gradient value.
        upper_bound: The largest allowed gradient value.

    Attributes:
        lower_bound: The smallest allowed gradient value.
        upper_bound: The largest allowed gradient value.
        timing: ``'pre'``: the hook runs before the update.
        call_for_each_param: True: an optimizer calls it as ``hook(rule, param)``.
    """

    name = "GradientHardClipping"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, lower_bound: float, upper_bound: float) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def __call__(self, rule: Any, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        with backend.using_device(backend.get_device_from_array(grad)):
            # NOTE [NumPy scalars in updates]
            xp.clip(grad, weak_scalar(self.lower_bound), weak_scalar(self.upper_bound), out=grad)
