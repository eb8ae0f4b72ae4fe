"""Adam and its variants: AdamW (decoupled weight decay), AMSGrad, AdaBound and AMSBound.

Layer 8: imports backend, optimizer, _rule_helpers and (for annotations) variable.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

import numpy

from chainer_compat import backend, optimizer
from chainer_compat.optimizers._rule_helpers import add_zero_states, override_hyperparams

if TYPE_CHECKING:
    from chainer_compat.variable import Variable

__all__ = ["AMSBound", "AMSGrad", "AdaBound", "Adam", "AdamRule", "AdamW"]

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.alpha = 0.001
_default_hyperparam.beta1 = 0.9
_default_hyperparam.beta2 = 0.999
_default_hyperparam.eps = 1e-8
_default_hyperparam.eta = 1.0
_default_hyperparam.weight_decay_rate = 0
_default_hyperparam.amsgrad = False
_default_hyperparam.adabound = False
_default_hyperparam.final_lr = 0.1
_default_hyperparam.gamma = 1e-3


class _StepSize:
    """``alpha_t`` and its deprecated alias ``lr``, read alike from :class:`Adam` and its rules.

    Needs the ``hyperparam`` and step count ``t`` of the class it is mixed into;
    ``_lr_owner`` names that class in the deprecation warning, as Chainer words it.
    """

    hyperparam: optimizer.Hyperparameter
    t: int
    _lr_owner: str

    @property
    def alpha_t(self) -> float:
        """The bias-corrected step size ``alpha * sqrt(1 - beta2**t) / (1 - beta1**t)``.

        Raises:
            RuntimeError: Before the first update (``t == 0``).
        """
        t = self.t
        if t == 0:
            raise RuntimeError(
                "Can't determine the learning rate of Adam optimizer because the update steps "
                "have not been started: t must be at least 1, got 0. Call update() first.")
        hp = self.hyperparam
        fix1 = 1.0 - math.pow(hp.beta1, t)
        fix2 = 1.0 - math.pow(hp.beta2, t)
        return float(hp.alpha * math.sqrt(fix2) / fix1)

    @property
    def lr(self) -> float:
        """Deprecated alias of :attr:`alpha_t` (renamed in Chainer v6)."""
        owner = self._lr_owner
        warnings.warn(f"{owner}.lr has been renamed to AdamRule.alpha_t. "
                      f"Use of {owner}.lr is deprecated in Chainer v6.", DeprecationWarning,
                      stacklevel=1)
        return self.alpha_t


class AdamRule(_StepSize, optimizer.UpdateRule):
    """Update rule of Adam (and its variants) for one parameter.

    With ``g`` the gradient: ``m += (1 - beta1) * (g - m)``, ``v += (1 - beta2) * (g*g - v)``,
    then ``param -= eta * (alpha_t * m / (sqrt(v) + eps) + weight_decay_rate * param)``.
    AMSGrad divides by the running maximum ``vhat`` of ``v`` instead; AdaBound clips the
    per-element step ``alpha_t / (sqrt(v) + eps)`` into :attr:`bounds`. A float16 parameter
    is computed in float32.

    State: ``m``, ``v`` and, with ``amsgrad``, ``vhat``; zeros at the first update.

    Args:
        parent_hyperparam: Hyperparameter to fall back on; the module defaults when None.
        alpha: Coefficient of the learning rate.
        beta1: Decay rate of the first moment.
        beta2: Decay rate of the second moment.
        eps: Added to the denominator for numerical stability.
        eta: Schedule multiplier (for warm restarts).
        weight_decay_rate: Decoupled weight decay rate (AdamW).
        amsgrad: Whether to use AMSGrad.
        adabound: Whether to use AdaBound.
        final_lr: The SGD learning rate AdaBound converges to.
        gamma: How fast AdaBound's bounds converge.

    Raises:
        ValueError: At an update, when a nonzero ``eps`` rounds to zero in the compute dtype.
    """

    is_elementwise = True
    _lr_owner = "AdamRule"

    # compat: set only when the rule is built with adabound on (bounds scale final_lr by the
    # ratio of the current alpha to this one).
    initial_alpha: float | None = None

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 alpha: float | None = None, beta1: float | None = None,
                 beta2: float | None = None, eps: float | None = None,
                 eta: float | None = None, weight_decay_rate: float | None = None,
                 amsgrad: bool | None = None, adabound: bool | None = None,
                 final_lr: float | None = None, gamma: float | None = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None else parent_hyperparam)
        override_hyperparams(self.hyperparam, alpha=alpha, beta1=beta1, beta2=beta2, eps=eps,
                             eta=eta, weight_decay_rate=weight_decay_rate, amsgrad=amsgrad,
                             adabound=adabound, final_lr=final_lr, gamma=gamma)
        if self.hyperparam.adabound:
            self.initial_alpha = self.hyperparam.alpha

    def init_state(self, param: Variable) -> None:
        add_zero_states(self.state, param, "m", "v")
        if self.hyperparam.amsgrad:
            add_zero_states(self.state, param, "vhat")

    def update_core_cpu(self, param: Variable) -> None:
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        data = param.array
        xp = backend.get_array_module(data)
        # float16 is too coarse for the moments' arithmetic: compute in float32.
        dtype = numpy.float32 if data.dtype == numpy.float16 else data.dtype.type
        if hp.eps != 0 and dtype(hp.eps) == 0:
            raise ValueError(
                f"eps of Adam optimizer is too small for {numpy.dtype(dtype).name} ({hp.eps}): "
                f"eps must be representable in {numpy.dtype(dtype).name}, got 0 after rounding")
        grad = grad.astype(dtype, copy=False)
        first, second = self.state["m"], self.state["v"]
        first += (1.0 - hp.beta1) * (grad - first)
        second += (1.0 - hp.beta2) * (grad * grad - second)
        if hp.amsgrad:
            denominator_source = self.state["vhat"]
            xp.maximum(denominator_source, second, out=denominator_source)
        else:
            denominator_source = second
        step = self.alpha_t / (xp.sqrt(denominator_source.astype(dtype, copy=False)) + hp.eps)
        if hp.adabound:
            lower, upper = self.bounds
            step = xp.clip(step, lower, upper)
        decay = 1.0 - hp.eta * hp.weight_decay_rate
        if decay == 1:
            data += -hp.eta * (step * first)
        else:
            data[...] = decay * data - hp.eta * (step * first)

    # The same array expressions run on CuPy arrays.
    update_core_gpu = update_core_cpu

    @property
    def bounds(self) -> tuple[float, float]:
        """AdaBound's ``(lower, upper)`` clip of the per-element step at step :attr:`t`.

        Raises:
            RuntimeError: Before the first update (``t == 0``).
        """
        if self.t == 0:
            raise RuntimeError(
                "Can't determine the bounds of AdaBound optimizer because the update steps "
                "have not been started: t must be at least 1, got 0. Call update() first.")
        hp = self.hyperparam
        if self.initial_alpha is None:
            # adabound was switched on after the rule was built: start the ratio here.
            self.initial_alpha = hp.alpha
        final_lr = hp.final_lr * hp.alpha / self.initial_alpha
        lower = final_lr * (1.0 - 1.0 / (hp.gamma * self.t + 1))
        upper = final_lr * (1.0 + 1.0 / (hp.gamma * self.t))
        return lower, upper


class Adam(_StepSize, optimizer.GradientMethod):
    """Adam (Kingma & Ba, https://arxiv.org/abs/1412.6980), with optional variants.

    ``weight_decay_rate`` and ``eta`` give AdamW's decoupled weight decay (Loshchilov &
    Hutter); ``amsgrad`` gives AMSGrad (Reddi et al.); ``adabound`` gives AdaBound (Luo et
    al.), and both flags together AMSBound. With the defaults it is plain Adam.

    Args:
        alpha: Coefficient of the learning rate.
        beta1: Decay rate of the first moment.
        beta2: Decay rate of the second moment.
        eps: Added to the denominator for numerical stability.
        eta: Schedule multiplier (for warm restarts).
        weight_decay_rate: Decoupled weight decay rate.
        amsgrad: Whether to use AMSGrad.
        adabound: Whether to use AdaBound.
        final_lr: The SGD learning rate AdaBound converges to.
        gamma: How fast AdaBound's bounds converge.
    """

    _lr_owner = "Adam"

    alpha = optimizer.HyperparameterProxy("alpha")
    beta1 = optimizer.HyperparameterProxy("beta1")
    beta2 = optimizer.HyperparameterProxy("beta2")
    eps = optimizer.HyperparameterProxy("eps")
    eta = optimizer.HyperparameterProxy("eta")
    weight_decay_rate = optimizer.HyperparameterProxy("weight_decay_rate")
    amsgrad = optimizer.HyperparameterProxy("amsgrad")
    adabound = optimizer.HyperparameterProxy("adabound")
    final_lr = optimizer.HyperparameterProxy("final_lr")
    gamma = optimizer.HyperparameterProxy("gamma")

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta,
                 weight_decay_rate: float = _default_hyperparam.weight_decay_rate,
                 amsgrad: bool = _default_hyperparam.amsgrad,
                 adabound: bool = _default_hyperparam.adabound,
                 final_lr: float = _default_hyperparam.final_lr,
                 gamma: float = _default_hyperparam.gamma) -> None:
        super().__init__()
        hp = self.hyperparam
        hp.alpha = alpha
        hp.beta1 = beta1
        hp.beta2 = beta2
        hp.eps = eps
        hp.eta = eta
        hp.weight_decay_rate = weight_decay_rate
        hp.amsgrad = amsgrad
        hp.adabound = adabound
        hp.final_lr = final_lr
        hp.gamma = gamma

    def create_update_rule(self) -> AdamRule:
        return AdamRule(self.hyperparam)


class AdamW(Adam):
    """Adam with decoupled weight decay: :class:`Adam` taking only its AdamW arguments."""

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta,
                 weight_decay_rate: float = _default_hyperparam.weight_decay_rate) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         weight_decay_rate=weight_decay_rate)


class AMSGrad(Adam):
    """AMSGrad: :class:`Adam` with ``amsgrad=True``."""

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta, amsgrad=True)


class AdaBound(Adam):
    """AdaBound: :class:`Adam` with ``adabound=True`` (note the argument order)."""

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 final_lr: float = _default_hyperparam.final_lr,
                 gamma: float = _default_hyperparam.gamma,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         amsgrad=False, adabound=True, final_lr=final_lr, gamma=gamma)


class AMSBound(Adam):
    """AMSBound: :class:`Adam` with ``amsgrad=True`` and ``adabound=True``."""

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 final_lr: float = _default_hyperparam.final_lr,
                 gamma: float = _default_hyperparam.gamma,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         amsgrad=True, adabound=True, final_lr=final_lr, gamma=gamma)
