"""GradientNoise: adds noise from ``noise_func`` (annealed Gaussian by default) to each gradient."""

from __future__ import annotations

import numpy

import chainer_compat as chainer
from chainer_compat import optimizer_hooks, optimizers
from chainer_compat.optimizer_hooks.gradient_noise import exponential_decay_noise


class Tiny(chainer.Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.zeros((3, 2), numpy.float32))


def test_attributes():
    hook = optimizer_hooks.GradientNoise(0.3)
    assert (hook.name, hook.timing, hook.call_for_each_param, hook.eta) == (
        "GradientNoise", "pre", True, 0.3)
    assert hook.noise_func is exponential_decay_noise


def test_noise_func_gets_xp_shape_dtype_hook_and_rule_and_its_result_is_added():
    calls = []

    def noise(xp, shape, dtype, hook, rule):
        calls.append((xp, shape, dtype, hook, rule))
        return xp.full(shape, 0.25, dtype)

    link = Tiny()
    opt = optimizers.SGD(lr=1.0).setup(link)
    hook = optimizer_hooks.GradientNoise(1.0, noise_func=noise)
    opt.add_hook(hook)
    link.w.grad = numpy.ones((3, 2), numpy.float32)
    opt.update()
    assert calls == [(numpy, (3, 2), numpy.dtype(numpy.float32), hook, link.w.update_rule)]
    numpy.testing.assert_allclose(link.w.array, -1.25)


def test_default_noise_has_the_annealed_standard_deviation():
    class Rule:
        t = 3

    numpy.random.seed(0)
    hook = optimizer_hooks.GradientNoise(0.5)
    noise = exponential_decay_noise(numpy, (20000,), numpy.float64, hook, Rule())
    expected_std = numpy.sqrt(0.5 / (1 + 3) ** 0.55)
    assert noise.dtype == numpy.float64
    assert abs(noise.std() - expected_std) < 0.02 * expected_std
    assert abs(noise.mean()) < 0.05 * expected_std


def test_skips_a_parameter_without_grad():
    param = chainer.Parameter(numpy.ones(3))
    param.grad = None
    optimizer_hooks.GradientNoise(0.1)(None, param)
    assert param.grad is None
