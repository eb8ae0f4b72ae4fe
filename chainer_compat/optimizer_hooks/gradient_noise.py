"""``GradientNoise``: adds (by default annealed Gaussian) noise to each gradient.

Layer 8: imports backend only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from chainer_compat import backend

__all__ = ["GradientNoise", "exponential_decay_noise"]


def exponential_decay_noise(xp: Any, shape: tuple[int, ...], dtype: Any, hook: GradientNoise,
                            opt: Any) -> Any:
    """Gaussian noise of variance ``hook.eta / (1 + opt.t) ** 0.55``.

    From "Adding Gradient Noise Improves Learning for Very Deep Networks"
    (https://arxiv.org/abs/1511.06807). ``opt`` is the update rule (or anything with ``t``).
    """
    std = numpy.sqrt(hook.eta / numpy.power(1 + opt.t, 0.55))
    return xp.random.normal(0, std, shape).astype(dtype)


class GradientNoise:
    """Adds ``noise_func(xp, shape, dtype, hook, rule)`` to each gradient, in place.

    Args:
        eta: Scale of the noise (0.01, 0.3 or 1.0 are the paper's choices).
        noise_func: The noise generator; by default :func:`exponential_decay_noise`.

    Attributes:
        eta: Scale of the noise.
        noise_func: The noise generator.
        timing: ``'pre'``: the hook runs before the update.
        call_for_each_param: True: an optimizer calls it as ``hook(rule, param)``.
    """

    name = "GradientNoise"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, eta: float,
                 noise_func: Callable[..., Any] = exponential_decay_noise) -> None:
        self.eta = eta
        self.noise_func = noise_func

    def __call__(self, rule: Any, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        with backend.using_device(backend.get_device_from_array(grad)):
            grad += self.noise_func(xp, grad.shape, grad.dtype, self, rule)
