"""Adam and its variants (AdamW, AMSGrad, AdaBound, AMSBound) against a float64 NumPy reference."""

from __future__ import annotations

import math
import warnings

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import optimizers
from chainer_compat.optimizers.adam import AdamRule

STEPS = 6
SHAPE = (3, 4)


class Tiny(chainer.Link):
    def __init__(self, dtype, xp=numpy):
        super().__init__()
        rng = numpy.random.RandomState(0)
        with self.init_scope():
            self.w = chainer.Parameter(xp.asarray(rng.uniform(-1, 1, SHAPE).astype(dtype)))


def grads(dtype, steps=STEPS):
    rng = numpy.random.RandomState(3)
    return [rng.uniform(-1, 1, SHAPE).astype(dtype) for _ in range(steps)]


def host(array):
    return array if isinstance(array, numpy.ndarray) else array.get()


def reference(param, gradients, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8, eta=1.0,
              weight_decay_rate=0.0, amsgrad=False, adabound=False, final_lr=0.1, gamma=1e-3):
    """Adam written from the papers' formulas, in float64."""
    param = param.astype(numpy.float64)
    m = numpy.zeros_like(param)
    v = numpy.zeros_like(param)
    vhat = numpy.zeros_like(param)
    for t, grad in enumerate(gradients, start=1):
        grad = grad.astype(numpy.float64)
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad * grad
        vhat = numpy.maximum(vhat, v)
        alpha_t = alpha * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        step = alpha_t / (numpy.sqrt(vhat if amsgrad else v) + eps)
        if adabound:
            lower = final_lr * (1 - 1 / (gamma * t + 1))
            upper = final_lr * (1 + 1 / (gamma * t))
            step = numpy.clip(step, lower, upper)
        param = param - eta * (step * m + weight_decay_rate * param)
    return param, m, v, vhat


VARIANTS = {
    "adam": (optimizers.Adam, dict(alpha=0.01)),
    "adam_w": (optimizers.AdamW, dict(alpha=0.01, eta=0.5, weight_decay_rate=0.1)),
    "adam_with_decay_args": (optimizers.Adam, dict(alpha=0.02, weight_decay_rate=0.05)),
    "amsgrad": (optimizers.AMSGrad, dict(alpha=0.01, beta2=0.9)),
    "adabound": (optimizers.AdaBound, dict(alpha=0.01, final_lr=0.05, gamma=0.1)),
    "amsbound": (optimizers.AMSBound, dict(alpha=0.01, beta2=0.9, final_lr=0.05, gamma=0.1)),
}
FLAGS = {"amsgrad": dict(amsgrad=True), "adabound": dict(adabound=True),
         "amsbound": dict(amsgrad=True, adabound=True)}


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_adam_variants_match_numpy_reference_over_steps(variant, dtype, xp):
    cls, kwargs = VARIANTS[variant]
    link = Tiny(dtype, xp)
    gradients = grads(dtype)
    expected, m, v, vhat = reference(host(link.w.array), gradients,
                                     **kwargs, **FLAGS.get(variant, {}))
    opt = cls(**kwargs).setup(link)
    for grad in gradients:
        link.w.grad = xp.asarray(grad)
        opt.update()
    tolerance = 2e-5 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(host(link.w.array), expected, rtol=tolerance, atol=tolerance)
    state = link.w.update_rule.state
    numpy.testing.assert_allclose(host(state["m"]), m, rtol=tolerance, atol=tolerance)
    numpy.testing.assert_allclose(host(state["v"]), v, rtol=tolerance, atol=tolerance)
    if "vhat" in state:
        numpy.testing.assert_allclose(host(state["vhat"]), vhat, rtol=tolerance, atol=tolerance)
    assert link.w.array.dtype == dtype


@pytest.mark.parametrize("variant", ["adam", "amsbound"])
def test_adam_float16_with_fp32_update_tracks_a_float32_master(variant):
    cls, kwargs = VARIANTS[variant]
    link = Tiny(numpy.float16)
    gradients = grads(numpy.float16)
    expected, *_ = reference(link.w.array, gradients, **kwargs, **FLAGS.get(variant, {}))
    opt = cls(**kwargs)
    opt.use_fp32_update()
    opt.setup(link)
    for grad in gradients:
        link.w.grad = grad
        opt.update()
    master = link.w.update_rule._fp32_param.array
    assert master.dtype == numpy.float32
    assert link.w.update_rule.state["m"].dtype == numpy.float32
    numpy.testing.assert_allclose(master, expected, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_array_equal(link.w.array, master.astype(numpy.float16))


def test_adam_float16_without_fp32_update_computes_in_float32_keeps_float16_state():
    link = Tiny(numpy.float16)
    gradients = grads(numpy.float16, steps=2)
    expected, *_ = reference(link.w.array, gradients, alpha=0.01)
    opt = optimizers.Adam(alpha=0.01).setup(link)
    for grad in gradients:
        link.w.grad = grad
        opt.update()
    assert link.w.array.dtype == numpy.float16
    assert link.w.update_rule.state["v"].dtype == numpy.float16
    numpy.testing.assert_allclose(link.w.array, expected, rtol=2e-3, atol=2e-3)


def test_alpha_t_is_bias_corrected_and_lr_is_its_deprecated_alias():
    link = Tiny(numpy.float32)
    opt = optimizers.Adam(alpha=0.1, beta1=0.8, beta2=0.99).setup(link)
    with pytest.raises(RuntimeError, match="update steps have not been started"):
        opt.alpha_t
    for t in (1, 2, 3):
        link.w.grad = numpy.ones(SHAPE, numpy.float32)
        opt.update()
        expected = 0.1 * math.sqrt(1 - 0.99 ** t) / (1 - 0.8 ** t)
        assert opt.alpha_t == pytest.approx(expected, rel=1e-12)
        assert link.w.update_rule.alpha_t == pytest.approx(expected, rel=1e-12)
    with pytest.warns(DeprecationWarning, match="Adam.lr has been renamed"):
        assert opt.lr == opt.alpha_t
    with pytest.warns(DeprecationWarning, match="AdamRule.lr has been renamed"):
        assert link.w.update_rule.lr == opt.alpha_t


def test_amsgrad_state_has_vhat_and_plain_adam_does_not():
    for amsgrad, keys in ((False, {"m", "v"}), (True, {"m", "v", "vhat"})):
        link = Tiny(numpy.float32)
        opt = optimizers.Adam(amsgrad=amsgrad).setup(link)
        link.w.grad = numpy.ones(SHAPE, numpy.float32)
        opt.update()
        assert set(link.w.update_rule.state) == keys


def test_adabound_bounds_need_a_step_and_follow_alpha_changes():
    rule = AdamRule(adabound=True, alpha=0.01, final_lr=0.1, gamma=0.5)
    assert rule.initial_alpha == 0.01
    with pytest.raises(RuntimeError, match="bounds of AdaBound"):
        rule.bounds
    rule.t = 2
    lower, upper = rule.bounds
    assert lower == pytest.approx(0.1 * (1 - 1 / (0.5 * 2 + 1)))
    assert upper == pytest.approx(0.1 * (1 + 1 / (0.5 * 2)))
    rule.hyperparam.alpha = 0.005  # e.g. a learning-rate schedule halving alpha
    assert rule.bounds[0] == pytest.approx(lower / 2)


def test_eps_that_rounds_to_zero_is_a_value_error():
    link = Tiny(numpy.float32)
    opt = optimizers.Adam(eps=1e-60).setup(link)
    link.w.grad = numpy.ones(SHAPE, numpy.float32)
    with pytest.raises(ValueError, match="eps of Adam optimizer is too small for float32"):
        opt.update()


def test_defaults_proxies_and_variant_flags():
    opt = optimizers.Adam()
    assert (opt.alpha, opt.beta1, opt.beta2, opt.eps, opt.eta) == (0.001, 0.9, 0.999, 1e-8, 1.0)
    assert (opt.weight_decay_rate, opt.amsgrad, opt.adabound) == (0, False, False)
    assert (opt.final_lr, opt.gamma) == (0.1, 1e-3)
    assert optimizers.AMSGrad().amsgrad and not optimizers.AMSGrad().adabound
    assert optimizers.AdaBound().adabound and not optimizers.AdaBound().amsgrad
    assert optimizers.AMSBound().amsgrad and optimizers.AMSBound().adabound
    assert optimizers.AdamW(weight_decay_rate=0.3).weight_decay_rate == 0.3
    # AdaBound takes final_lr and gamma positionally before eps, as in Chainer.
    bound = optimizers.AdaBound(0.01, 0.8, 0.9, 0.2, 0.4)
    assert (bound.final_lr, bound.gamma) == (0.2, 0.4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.alpha = 0.2  # plain proxies never warn
    assert opt.hyperparam.alpha == 0.2
