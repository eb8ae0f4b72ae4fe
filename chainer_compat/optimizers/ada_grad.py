"""AdaGrad: steps divided by the root of the sum of all past squared gradients.

Layer 8: imports backend, optimizer, _rule_helpers and (for annotations) variable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chainer_compat import backend, optimizer
from chainer_compat.optimizers._rule_helpers import add_zero_states, override_hyperparams

if TYPE_CHECKING:
    from chainer_compat.variable import Variable

__all__ = ["AdaGrad", "AdaGradRule"]

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.001
_default_hyperparam.eps = 1e-8


class AdaGradRule(optimizer.UpdateRule):
    """Update rule of AdaGrad for one parameter.

    State: ``h``, the sum of squared gradients, zeros at the first update.

    Args:
        parent_hyperparam: Hyperparameter to fall back on; the module defaults when None.
        lr: Learning rate.
        eps: Added to the root of ``h`` for numerical stability.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 lr: float | None = None, eps: float | None = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        override_hyperparams(self.hyperparam, lr=lr, eps=eps)

    def init_state(self, param: Variable) -> None:
        add_zero_states(self.state, param, "h")

    def update_core_cpu(self, param: Variable) -> None:
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        lr, eps = self.hyperparam.lr, self.hyperparam.eps
        squared_sum = self.state["h"]
        squared_sum += grad * grad
        data = param.data
        data -= lr * grad / (xp.sqrt(squared_sum) + eps)

    # The same array expressions run on CuPy arrays.
    update_core_gpu = update_core_cpu


class AdaGrad(optimizer.GradientMethod):
    """AdaGrad (http://jmlr.org/papers/v12/duchi11a.html).

    Args:
        lr: Learning rate.
        eps: Added to the root of the squared-gradient sum for numerical stability.
    """

    lr = optimizer.HyperparameterProxy("lr")
    eps = optimizer.HyperparameterProxy("eps")

    def __init__(self, lr: float = _default_hyperparam.lr,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.eps = eps

    def create_update_rule(self) -> AdaGradRule:
        return AdaGradRule(self.hyperparam)
