"""``GradientClipping``: rescales all gradients together so their L2 norm is at most a threshold.

Layer 8: imports backend and ``utils._numpy_scalars``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.utils._numpy_scalars import (
    as_numpy1_scalar,
    is_numpy1_scalar,
    weak_scalar,
)

__all__ = ["GradientClipping"]


def _squared_norm(params: list[Any]) -> tuple[Any, Any]:
    """The squared L2 norm of all gradients and the device it lives on.

    CuPy gradients on one device are summed there (no host transfer); NumPy dots are summed
    as Python floats; sums from several devices are added on the host and the device is None.
    """
    sums: dict[str, Any] = {}
    devices: dict[str, Any] = {}
    for param in params:
        grad = param.grad.ravel()
        device = backend.get_device_from_array(grad)
        with backend.using_device(device):
            dot = grad.dot(grad)
        if device.xp is numpy:
            # compat: Chainer's sum (under NumPy 1) accumulates the dots in float64.
            dot = float(dot)
        sums[device.name] = dot if device.name not in sums else sums[device.name] + dot
        devices[device.name] = device
    if len(sums) == 1:
        (name, total), = sums.items()
        return total, devices[name]
    return sum(float(total) for total in sums.values()), None


class GradientClipping:
    """Scales every gradient by ``threshold / norm`` when the total L2 norm exceeds ``threshold``.

    The norm is taken over the gradients of all initialized parameters of the optimizer's
    target, so this hook is called once per update as ``hook(optimizer)``.

    Args:
        threshold: The largest allowed L2 norm.

    Attributes:
        threshold: The largest allowed L2 norm.
        timing: ``'pre'``: the hook runs before the update.
    """

    name = "GradientClipping"
    timing = "pre"

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold

    def __call__(self, opt: Any) -> None:
        params = [param for param in opt.target.params(False) if param.grad is not None]
        if not params:
            return
        squared_norm, device = _squared_norm(params)
        if device is None:
            device = backend.CpuDevice()
        xp = device.xp
        with backend.using_device(device):
            rate: Any
            if xp is numpy:
                norm = math.sqrt(squared_norm)
                if norm == 0:
                    return  # nothing to clip (and no division by zero)
                # A Python float scales each gradient in its own dtype, as Chainer does.
                rate = weak_scalar(self.threshold) / norm  # NOTE [NumPy scalars in updates]
                if rate >= 1:
                    return
            else:
                # Stay on the device: a rate above 1 becomes 1 instead of a host check.
                rate = (self.threshold / xp.sqrt(squared_norm)).clip(None, 1)
        for param in params:
            grad = param.grad
            if is_numpy1_scalar(grad):
                grad = as_numpy1_scalar(grad)  # NOTE [0-d arrays in updates]
            with backend.using_device(backend.get_device_from_array(grad)):
                grad *= rate
