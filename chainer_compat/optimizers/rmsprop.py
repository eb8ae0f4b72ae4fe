"""RMSprop: steps divided by the root of a running mean of squared gradients (Tieleman & Hinton,
2012, COURSERA lecture 6.5).

Layer 8: imports backend, optimizer, _rule_helpers and (for annotations) variable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chainer_compat import backend, optimizer
from chainer_compat.optimizers._rule_helpers import add_zero_states, override_hyperparams

if TYPE_CHECKING:
    from chainer_compat.variable import Variable

__all__ = ["RMSprop", "RMSpropRule"]

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.alpha = 0.99
_default_hyperparam.eps = 1e-8
_default_hyperparam.eps_inside_sqrt = False


class RMSpropRule(optimizer.UpdateRule):
    """Update rule of RMSprop for one parameter.

    State: ``ms``, the running mean of squared gradients, zeros at the first update.

    Args:
        parent_hyperparam: Hyperparameter to fall back on; the module defaults when None.
        lr: Learning rate.
        alpha: Decay rate of ``ms``.
        eps: Added to the denominator for numerical stability.
        eps_inside_sqrt: When True the gradient is divided by ``sqrt(ms + eps)`` (as some other
            frameworks do); when False, by ``sqrt(ms) + eps``.

    Raises:
        ValueError: At an update, when a nonzero ``eps`` rounds to zero in the gradient's dtype.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 lr: float | None = None, alpha: float | None = None, eps: float | None = None,
                 eps_inside_sqrt: bool | None = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        override_hyperparams(self.hyperparam, lr=lr, alpha=alpha, eps=eps,
                             eps_inside_sqrt=eps_inside_sqrt)

    def init_state(self, param: Variable) -> None:
        add_zero_states(self.state, param, "ms")

    def update_core_cpu(self, param: Variable) -> None:
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        hp = self.hyperparam
        eps = grad.dtype.type(hp.eps)
        if hp.eps != 0 and eps == 0:
            # compat: Chainer's wording, then the fix.
            raise ValueError(
                f"eps of RMSprop optimizer is too small for {grad.dtype.name} ({hp.eps}): it "
                f"rounds to 0 there. Use a larger eps, or call use_fp32_update() on the "
                f"optimizer to update {grad.dtype.name} parameters in float32.")
        mean_square = self.state["ms"]
        mean_square *= hp.alpha
        mean_square += (1 - hp.alpha) * grad * grad
        if hp.eps_inside_sqrt:
            denominator = xp.sqrt(mean_square + eps)
        else:
            denominator = xp.sqrt(mean_square) + eps
        data = param.data
        data -= hp.lr * grad / denominator

    # The same array expressions run on CuPy arrays.
    update_core_gpu = update_core_cpu


class RMSprop(optimizer.GradientMethod):
    """RMSprop (Tieleman & Hinton, 2012, COURSERA: Neural Networks for Machine Learning, 6.5).

    Args:
        lr: Learning rate.
        alpha: Decay rate of the running mean of squared gradients.
        eps: Added to the denominator for numerical stability.
        eps_inside_sqrt: When True the gradient is divided by ``sqrt(ms + eps)``, which
            matches some other frameworks; when False (the default), by ``sqrt(ms) + eps``.
    """

    lr = optimizer.HyperparameterProxy("lr")
    alpha = optimizer.HyperparameterProxy("alpha")
    eps = optimizer.HyperparameterProxy("eps")
    eps_inside_sqrt = optimizer.HyperparameterProxy("eps_inside_sqrt")

    def __init__(self, lr: float = _default_hyperparam.lr,
                 alpha: float = _default_hyperparam.alpha,
                 eps: float = _default_hyperparam.eps,
                 eps_inside_sqrt: bool = _default_hyperparam.eps_inside_sqrt) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.alpha = alpha
        self.hyperparam.eps = eps
        self.hyperparam.eps_inside_sqrt = eps_inside_sqrt

    def create_update_rule(self) -> RMSpropRule:
        return RMSpropRule(self.hyperparam)
