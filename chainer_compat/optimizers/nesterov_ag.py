"""Nesterov's accelerated gradient in the reparametrized form of Bengio et al.
(https://arxiv.org/abs/1212.0901), which needs the gradient at the current parameter only.

Layer 8: imports optimizer, _rule_helpers and (for annotations) variable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chainer_compat import optimizer
from chainer_compat.optimizers._rule_helpers import add_zero_states, override_hyperparams

if TYPE_CHECKING:
    from chainer_compat.variable import Variable

__all__ = ["NesterovAG", "NesterovAGRule"]

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class NesterovAGRule(optimizer.UpdateRule):
    """Update rule of Nesterov's accelerated gradient for one parameter.

    State: ``v``, the velocity (``v = momentum * v - lr * grad``), zeros at the first update.
    The parameter moves by ``momentum ** 2 * v - (1 + momentum) * lr * grad``.

    Args:
        parent_hyperparam: Hyperparameter to fall back on; the module defaults when None.
        lr: Learning rate.
        momentum: Decay rate of the velocity.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 lr: float | None = None, momentum: float | None = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        override_hyperparams(self.hyperparam, lr=lr, momentum=momentum)

    def init_state(self, param: Variable) -> None:
        add_zero_states(self.state, param, "v")

    def update_core_cpu(self, param: Variable) -> None:
        grad = param.grad
        if grad is None:
            return
        lr, momentum = self.hyperparam.lr, self.hyperparam.momentum
        velocity = self.state["v"]
        velocity *= momentum
        velocity -= lr * grad
        data = param.data
        data += momentum * momentum * velocity
        data -= (1 + momentum) * lr * grad

    # The same array expressions run on CuPy arrays.
    update_core_gpu = update_core_cpu


class NesterovAG(optimizer.GradientMethod):
    """Nesterov's accelerated gradient (https://arxiv.org/abs/1212.0901).

    Args:
        lr: Learning rate.
        momentum: Decay rate of the velocity.
    """

    lr = optimizer.HyperparameterProxy("lr")
    momentum = optimizer.HyperparameterProxy("momentum")

    def __init__(self, lr: float = _default_hyperparam.lr,
                 momentum: float = _default_hyperparam.momentum) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.momentum = momentum

    def create_update_rule(self) -> NesterovAGRule:
        return NesterovAGRule(self.hyperparam)
