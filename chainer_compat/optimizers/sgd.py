"""SGD: vanilla stochastic gradient descent, ``param -= lr * grad``.

Layer 8: imports optimizer, _rule_helpers and (for annotations) variable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chainer_compat import optimizer
from chainer_compat.optimizers._rule_helpers import override_hyperparams

if TYPE_CHECKING:
    from chainer_compat.variable import Variable

__all__ = ["SGD", "SGDRule"]

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01


class SGDRule(optimizer.UpdateRule):
    """Update rule of vanilla SGD for one parameter (no state).

    Args:
        parent_hyperparam: Hyperparameter to fall back on; the module defaults when None.
        lr: Learning rate.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 lr: float | None = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        override_hyperparams(self.hyperparam, lr=lr)

    def update_core_cpu(self, param: Variable) -> None:
        grad = param.grad
        if grad is None:
            return
        data = param.array
        data -= self.hyperparam.lr * grad

    # The same array expressions run on CuPy arrays.
    update_core_gpu = update_core_cpu


class SGD(optimizer.GradientMethod):
    """Vanilla stochastic gradient descent.

    Args:
        lr: Learning rate.
    """

    lr = optimizer.HyperparameterProxy("lr")

    def __init__(self, lr: float = _default_hyperparam.lr) -> None:
        super().__init__()
        self.hyperparam.lr = lr

    def create_update_rule(self) -> SGDRule:
        return SGDRule(self.hyperparam)
