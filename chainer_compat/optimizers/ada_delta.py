"""Zeiler's ADADELTA: steps scaled by the ratio of running RMS values of past steps and gradients,
so no learning rate is needed.

Layer 8: imports backend, optimizer, _rule_helpers and (for annotations) variable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chainer_compat import backend, optimizer
from chainer_compat.optimizers._rule_helpers import add_zero_states, override_hyperparams

if TYPE_CHECKING:
    from chainer_compat.variable import Variable

__all__ = ["AdaDelta", "AdaDeltaRule"]

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.rho = 0.95
_default_hyperparam.eps = 1e-6


class AdaDeltaRule(optimizer.UpdateRule):
    """Update rule of ADADELTA for one parameter.

    State: ``msg`` (running mean of squared gradients) and ``msdx`` (running mean of squared
    steps), both zeros at the first update.

    Args:
        parent_hyperparam: Hyperparameter to fall back on; the module defaults when None.
        rho: Decay rate of both running means.
        eps: Added inside the square roots for numerical stability.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 rho: float | None = None, eps: float | None = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        override_hyperparams(self.hyperparam, rho=rho, eps=eps)

    def init_state(self, param: Variable) -> None:
        add_zero_states(self.state, param, "msg", "msdx")

    def update_core_cpu(self, param: Variable) -> None:
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        rho, eps = self.hyperparam.rho, self.hyperparam.eps
        mean_square_grad, mean_square_step = self.state["msg"], self.state["msdx"]
        mean_square_grad *= rho
        mean_square_grad += (1 - rho) * grad * grad
        step = xp.sqrt((mean_square_step + eps) / (mean_square_grad + eps)) * grad
        mean_square_step *= rho
        mean_square_step += (1 - rho) * step * step
        data = param.data
        data -= step

    # The same array expressions run on CuPy arrays.
    update_core_gpu = update_core_cpu


class AdaDelta(optimizer.GradientMethod):
    """Zeiler's ADADELTA (https://arxiv.org/abs/1212.5701).

    Args:
        rho: Decay rate of the running means of squared gradients and squared steps.
        eps: Added inside the square roots for numerical stability.
    """

    rho = optimizer.HyperparameterProxy("rho")
    eps = optimizer.HyperparameterProxy("eps")

    def __init__(self, rho: float = _default_hyperparam.rho,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        self.hyperparam.rho = rho
        self.hyperparam.eps = eps

    def create_update_rule(self) -> AdaDeltaRule:
        return AdaDeltaRule(self.hyperparam)
