"""GradientLARS: weight decay, then the layer's trust ratio scales the gradient."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import optimizer_hooks, optimizers


def reference(data, grad, threshold, weight_decay, eps):
    data_norm = numpy.linalg.norm(data)
    grad_norm = numpy.linalg.norm(grad)
    rate = data_norm / (eps + grad_norm + weight_decay * data_norm)
    if data_norm <= threshold:
        rate = 1.0
    return (grad + weight_decay * data) * rate


def test_attributes_and_defaults():
    hook = optimizer_hooks.GradientLARS()
    assert (hook.name, hook.timing, hook.call_for_each_param) == ("GradientLARS", "pre", True)
    assert (hook.threshold, hook.weight_decay, hook.eps) == (1e-2, 0.0, 1e-9)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("threshold", [0.01, 100.0])
def test_gradient_matches_reference(dtype, threshold):
    rng = numpy.random.RandomState(0)
    data = rng.uniform(-1, 1, (4, 3))
    grad = rng.uniform(-1, 1, (4, 3))
    param = chainer.Parameter(data.astype(dtype))
    param.grad = grad.astype(dtype)
    optimizer_hooks.GradientLARS(threshold=threshold, weight_decay=0.1, eps=1e-6)(None, param)
    expected = reference(data.astype(dtype).astype(numpy.float64),
                         grad.astype(dtype).astype(numpy.float64), threshold, 0.1, 1e-6)
    numpy.testing.assert_allclose(param.grad, expected, rtol=1e-5)


def test_as_an_optimizer_hook_it_scales_each_parameter_separately():
    class Tiny(chainer.Link):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.w = chainer.Parameter(numpy.full(4, 3.0))
                self.b = chainer.Parameter(numpy.full(2, 0.001))  # norm below threshold

    link = Tiny()
    opt = optimizers.SGD(lr=0.0).setup(link)
    opt.add_hook(optimizer_hooks.GradientLARS(threshold=0.01))
    link.w.grad = numpy.ones(4)
    link.b.grad = numpy.ones(2)
    opt.update()
    numpy.testing.assert_allclose(link.w.grad, reference(numpy.full(4, 3.0), numpy.ones(4),
                                                         0.01, 0.0, 1e-9))
    numpy.testing.assert_array_equal(link.b.grad, numpy.ones(2))
