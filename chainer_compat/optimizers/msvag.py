"""M-SVAG: momentum SGD whose step is damped per element by the estimated variance of the
gradient (Balles & Hennig, https://arxiv.org/abs/1705.07774), with decoupled weight decay.

Layer 8: imports backend, optimizer, _rule_helpers and (for annotations) variable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy

from chainer_compat import backend, optimizer
from chainer_compat.optimizers._rule_helpers import add_zero_states, override_hyperparams

if TYPE_CHECKING:
    from chainer_compat.variable import Variable

__all__ = ["MSVAG", "MSVAGRule"]

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.1
_default_hyperparam.beta = 0.9
_default_hyperparam.eta = 1.0
_default_hyperparam.weight_decay_rate = 0

# The variance correction divides by 1 - rho; rho is capped below 1 so that stays finite.
_MAX_RHO = 0.9999


class MSVAGRule(optimizer.UpdateRule):
    """Update rule of M-SVAG for one parameter.

    State: ``m`` and ``v``, running means of the gradient and of its square, zeros at the
    first update. The bias-correction power ``beta_power`` (``beta ** t`` before the update)
    is an attribute, not state: it starts at the ``beta`` seen when the rule is built and is
    not serialized.

    Args:
        parent_hyperparam: Hyperparameter to fall back on; the module defaults when None.
        lr: Learning rate.
        beta: Decay rate of both running means.
        eta: Schedule multiplier of the whole step, weight decay included.
        weight_decay_rate: Decoupled weight decay rate.

    Attributes:
        beta_power: ``beta`` raised to the number of updates made plus one.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 lr: float | None = None, beta: float | None = None, eta: float | None = None,
                 weight_decay_rate: float | None = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        override_hyperparams(self.hyperparam, lr=lr, beta=beta, eta=eta,
                             weight_decay_rate=weight_decay_rate)
        # compat: Chainer fixes the power's base here, so a beta changed after setup() only
        # changes the decay of m and v, not the bias correction.
        self.beta_power: float = self.hyperparam.beta

    def init_state(self, param: Variable) -> None:
        add_zero_states(self.state, param, "m", "v")

    def update_core_cpu(self, param: Variable) -> None:
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        hp = self.hyperparam
        beta, beta_power = hp.beta, self.beta_power
        # rho: how much averaging shrinks the variance of the bias-corrected mean, for iid grads.
        rho = ((1.0 - beta) ** 2 * (1.0 - beta_power ** 2)
               / ((1.0 - beta_power) ** 2 * (1.0 - beta ** 2)))
        rho = min(rho, _MAX_RHO)

        mean, mean_square = self.state["m"], self.state["v"]
        mean += (1 - beta) * (grad - mean)
        mean_square += (1 - beta) * (grad * grad - mean_square)
        corrected_mean = mean / (1 - beta_power)
        corrected_mean_square = mean_square / (1 - beta_power)
        mean_squared = corrected_mean * corrected_mean
        variance = (corrected_mean_square - mean_squared) / (1 - rho)

        # Where m and v are both 0 the ratio is 0/0; such elements take no step.
        with numpy.errstate(divide="ignore", invalid="ignore"):
            factor = xp.clip(mean_squared / (mean_squared + rho * variance), 0, 1)
        factor = xp.where(xp.isnan(factor), 0, factor)

        data = param.data
        data -= hp.eta * (hp.lr * corrected_mean * factor + hp.weight_decay_rate * data)
        self.beta_power = beta_power * beta

    # The same array expressions run on CuPy arrays.
    update_core_gpu = update_core_cpu


class MSVAG(optimizer.GradientMethod):
    """M-SVAG (https://arxiv.org/abs/1705.07774) with decoupled weight decay.

    As in AdamW (https://arxiv.org/abs/1711.05101), ``eta`` scales the whole step and
    ``weight_decay_rate`` shrinks the parameter directly instead of adding to its gradient.

    Args:
        lr: Learning rate.
        beta: Decay rate of the running means of the gradient and of its square.
        eta: Schedule multiplier, e.g. for warm restarts.
        weight_decay_rate: Decoupled weight decay rate.
    """

    lr = optimizer.HyperparameterProxy("lr")
    beta = optimizer.HyperparameterProxy("beta")
    eta = optimizer.HyperparameterProxy("eta")
    weight_decay_rate = optimizer.HyperparameterProxy("weight_decay_rate")

    def __init__(self, lr: float = _default_hyperparam.lr,
                 beta: float = _default_hyperparam.beta,
                 eta: float = _default_hyperparam.eta,
                 weight_decay_rate: float = _default_hyperparam.weight_decay_rate) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.beta = beta
        self.hyperparam.eta = eta
        self.hyperparam.weight_decay_rate = weight_decay_rate

    def create_update_rule(self) -> MSVAGRule:
        return MSVAGRule(self.hyperparam)
