"""Alex Graves's RMSprop: steps divided by a running standard deviation of the gradient, with
momentum on the step (https://arxiv.org/abs/1308.0850, eqs. 38-41).

Layer 8: imports backend, optimizer, _rule_helpers and (for annotations) variable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chainer_compat import backend, optimizer
from chainer_compat.optimizers._rule_helpers import add_zero_states, override_hyperparams

if TYPE_CHECKING:
    from chainer_compat.variable import Variable

__all__ = ["RMSpropGraves", "RMSpropGravesRule"]

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 1e-4
_default_hyperparam.alpha = 0.95
_default_hyperparam.momentum = 0.9
_default_hyperparam.eps = 1e-4


class RMSpropGravesRule(optimizer.UpdateRule):
    """Update rule of Graves's RMSprop for one parameter.

    State: ``n`` and ``g``, running means of the squared gradient and of the gradient, and
    ``delta``, the previous step; all zeros at the first update.

    Args:
        parent_hyperparam: Hyperparameter to fall back on; the module defaults when None.
        lr: Learning rate.
        alpha: Decay rate of ``n`` and ``g``.
        momentum: Decay rate of ``delta``.
        eps: Added to the variance estimate ``n - g * g`` before its square root.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 lr: float | None = None, alpha: float | None = None,
                 momentum: float | None = None, eps: float | None = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        override_hyperparams(self.hyperparam, lr=lr, alpha=alpha, momentum=momentum, eps=eps)

    def init_state(self, param: Variable) -> None:
        add_zero_states(self.state, param, "n", "g", "delta")

    def update_core_cpu(self, param: Variable) -> None:
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        hp = self.hyperparam
        mean_square, mean, step = self.state["n"], self.state["g"], self.state["delta"]
        mean_square *= hp.alpha
        mean_square += (1 - hp.alpha) * grad * grad
        mean *= hp.alpha
        mean += (1 - hp.alpha) * grad
        step *= hp.momentum
        step -= hp.lr * grad / xp.sqrt(mean_square - mean * mean + hp.eps)
        data = param.data
        data += step

    # The same array expressions run on CuPy arrays.
    update_core_gpu = update_core_cpu


class RMSpropGraves(optimizer.GradientMethod):
    """Alex Graves's RMSprop (https://arxiv.org/abs/1308.0850).

    Args:
        lr: Learning rate.
        alpha: Decay rate of the running means of the gradient and of its square.
        momentum: Decay rate of the step.
        eps: Added to the variance estimate before its square root.
    """

    lr = optimizer.HyperparameterProxy("lr")
    alpha = optimizer.HyperparameterProxy("alpha")
    momentum = optimizer.HyperparameterProxy("momentum")
    eps = optimizer.HyperparameterProxy("eps")

    def __init__(self, lr: float = _default_hyperparam.lr,
                 alpha: float = _default_hyperparam.alpha,
                 momentum: float = _default_hyperparam.momentum,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.alpha = alpha
        self.hyperparam.momentum = momentum
        self.hyperparam.eps = eps

    def create_update_rule(self) -> RMSpropGravesRule:
        return RMSpropGravesRule(self.hyperparam)
