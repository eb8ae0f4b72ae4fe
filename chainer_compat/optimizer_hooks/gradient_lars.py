"""``GradientLARS``: layer-wise adaptive rate scaling of each gradient.

Layer 8: imports backend and ``utils._numpy_scalars``.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.utils._numpy_scalars import weak_scalar

__all__ = ["GradientLARS"]


class GradientLARS:
    """Adds weight decay to the gradient, then scales it by the layer's trust ratio.

    With ``p`` the parameter and ``g`` its gradient, the gradient becomes
    ``(g + weight_decay * p) * rate`` where ``rate = |p| / (eps + |g| + weight_decay * |p|)``
    when ``|p| > threshold`` and 1 otherwise. From "Large Batch Training of Convolutional
    Networks" (https://arxiv.org/abs/1708.03888); the optimizer's ``lr`` plays the role of
    the global rate times the LARS coefficient.

    Args:
        threshold: The parameter norm above which the gradient is rescaled.
        weight_decay: The weight decay coefficient.
        eps: Added to the denominator for numerical stability.

    Attributes:
        threshold: The parameter norm above which the gradient is rescaled.
        weight_decay: The weight decay coefficient.
        eps: Added to the denominator.
        timing: ``'pre'``: the hook runs before the update.
        call_for_each_param: True: an optimizer calls it as ``hook(rule, param)``.
    """

    name = "GradientLARS"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, threshold: float = 1e-2, weight_decay: float = 0.0,
                 eps: float = 1e-9) -> None:
        self.threshold = threshold
        self.weight_decay = weight_decay
        self.eps = eps

    def __call__(self, rule: Any, param: Any) -> None:
        data, grad = param.array, param.grad
        if data is None or grad is None:
            return
        xp = backend.get_array_module(data)
        with backend.using_device(backend.get_device_from_array(data)):
            data_norm = xp.linalg.norm(data)
            grad_norm = xp.linalg.norm(grad)
            # Any: NumPy scalars below, whose stubs differ between NumPy releases.
            threshold: Any = self.threshold
            weight_decay: Any = self.weight_decay
            eps: Any = self.eps
            rate: Any
            if xp is numpy:
                # compat: Chainer (NumPy 1) combined these scalars by the ordinary promotion
                # rules, a Python float counting as float64 (so float32 norms with Python floats
                # give a float64 rate, and with NumPy float32 scalars a float32 one); then scaled
                # the gradient in its own dtype. NumPy 2 does the same with the Python floats made
                # float64 and the rate made a Python float (NOTE [NumPy scalars in updates]).
                threshold, weight_decay, eps = (
                    numpy.float64(value) if type(value) in (float, int) else value
                    for value in (threshold, weight_decay, eps))
                local_rate = data_norm / (eps + grad_norm + weight_decay * data_norm)
                rate = weak_scalar(local_rate if data_norm > threshold else 1.0)
            else:
                local_rate = data_norm / (eps + grad_norm + weight_decay * data_norm)
                rate = xp.where(data_norm > threshold, local_rate, 1.0)
            grad += weak_scalar(weight_decay) * data
            grad *= rate
