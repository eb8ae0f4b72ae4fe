"""Simon Funk's SMORMS3: RMSprop whose averaging window adapts per element to how consistent the
gradient is (http://sifter.org/~simon/journal/20150420.html).

Layer 8: imports backend, optimizer, _rule_helpers and (for annotations) variable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chainer_compat import backend, optimizer
from chainer_compat.optimizers._rule_helpers import override_hyperparams

if TYPE_CHECKING:
    from chainer_compat.variable import Variable

__all__ = ["SMORMS3", "SMORMS3Rule"]

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.001
_default_hyperparam.eps = 1e-16


class SMORMS3Rule(optimizer.UpdateRule):
    """Update rule of SMORMS3 for one parameter.

    State: ``mem`` (the effective window length, ones at the first update), ``g`` and ``g2``
    (running means of the gradient and of its square, zeros at the first update).

    Args:
        parent_hyperparam: Hyperparameter to fall back on; the module defaults when None.
        lr: Learning rate, also the cap on the per-element step factor.
        eps: Added to denominators for numerical stability.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 lr: float | None = None, eps: float | None = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        override_hyperparams(self.hyperparam, lr=lr, eps=eps)

    def init_state(self, param: Variable) -> None:
        device = param.device
        with backend.using_device(device):
            self.state["mem"] = device.xp.ones_like(param.data)
            self.state["g"] = device.xp.zeros_like(param.data)
            self.state["g2"] = device.xp.zeros_like(param.data)

    def update_core_cpu(self, param: Variable) -> None:
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        lr, eps = self.hyperparam.lr, self.hyperparam.eps
        window, mean, mean_square = self.state["mem"], self.state["g"], self.state["g2"]
        rate = 1 / (window + 1)
        # In place, so arrays taken from the state (or restored by a deserializer) stay live;
        # the arithmetic is the same as rebuilding them.
        mean *= 1 - rate
        mean += rate * grad
        mean_square *= 1 - rate
        mean_square += rate * grad * grad
        consistency = mean * mean / (mean_square + eps)
        data = param.data
        data -= grad * xp.minimum(consistency, lr) / (xp.sqrt(mean_square) + eps)
        window *= 1 - consistency
        window += 1

    # The same array expressions run on CuPy arrays.
    update_core_gpu = update_core_cpu


class SMORMS3(optimizer.GradientMethod):
    """Simon Funk's SMORMS3 (http://sifter.org/~simon/journal/20150420.html).

    Args:
        lr: Learning rate.
        eps: Added to denominators for numerical stability.
    """

    lr = optimizer.HyperparameterProxy("lr")
    eps = optimizer.HyperparameterProxy("eps")

    def __init__(self, lr: float = _default_hyperparam.lr,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.eps = eps

    def create_update_rule(self) -> SMORMS3Rule:
        return SMORMS3Rule(self.hyperparam)
