"""Momentum SGD with the learning rate applied after the momentum sum, so changing ``lr`` mid-run
rescales the whole velocity (Goyal et al., https://arxiv.org/abs/1706.02677, section 3).

Layer 8: imports optimizer, _rule_helpers and (for annotations) variable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chainer_compat import optimizer
from chainer_compat.optimizers._rule_helpers import add_zero_states, override_hyperparams

if TYPE_CHECKING:
    from chainer_compat.variable import Variable

__all__ = ["CorrectedMomentumSGD", "CorrectedMomentumSGDRule"]

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class CorrectedMomentumSGDRule(optimizer.UpdateRule):
    """Update rule of corrected momentum SGD for one parameter.

    State: ``v``, the momentum sum of negated gradients without the learning rate
    (``v = momentum * v - grad``; the parameter moves by ``lr * v``).

    Args:
        parent_hyperparam: Hyperparameter to fall back on; the module defaults when None.
        lr: Learning rate.
        momentum: Decay rate of ``v``.
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
        velocity = self.state["v"]
        velocity *= self.hyperparam.momentum
        velocity -= grad
        data = param.data
        data += self.hyperparam.lr * velocity

    # The same array expressions run on CuPy arrays.
    update_core_gpu = update_core_cpu


class CorrectedMomentumSGD(optimizer.GradientMethod):
    """Momentum SGD with momentum correction.

    :class:`MomentumSGD` keeps ``lr`` inside its velocity (``v = m v - lr g``), so a changed
    learning rate only reaches the velocity gradually. This optimizer keeps the velocity free of
    ``lr`` (``u = m u - g``) and moves the parameter by ``lr * u``, which is the same as rescaling
    the velocity by ``lr_new / lr_old`` whenever the learning rate changes. With a constant ``lr``
    both give the same trajectory.

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

    def create_update_rule(self) -> CorrectedMomentumSGDRule:
        return CorrectedMomentumSGDRule(self.hyperparam)
