"""A hyperparameter or an optimizer hook's rate given as a NumPy float64 scalar or 0-d array
(a schedule computed with numpy, say) updates the parameters exactly as the same Python float
does, as on Chainer under NumPy 1. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on
Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
L = importlib.import_module(chainer.__name__ + ".links")
optimizers = importlib.import_module(chainer.__name__ + ".optimizers")
hooks = importlib.import_module(chainer.__name__ + ".optimizer_hooks")

OPTIMIZERS = [("SGD", "lr"), ("MomentumSGD", "lr"), ("NesterovAG", "lr"),
              ("CorrectedMomentumSGD", "lr"), ("RMSprop", "lr"), ("RMSpropGraves", "lr"),
              ("AdaGrad", "lr"), ("SMORMS3", "lr"), ("Adam", "alpha"), ("AMSGrad", "alpha"),
              ("MSVAG", "lr"), ("AdaDelta", "rho")]
HOOKS = {
    "WeightDecay": lambda number: hooks.WeightDecay(number(1e-3)),
    "Lasso": lambda number: hooks.Lasso(number(1e-3)),
    "GradientClipping": lambda number: hooks.GradientClipping(number(0.123456)),
    "GradientHardClipping": lambda number: hooks.GradientHardClipping(number(-0.0123),
                                                                      number(0.0123)),
    "GradientLARS": lambda number: hooks.GradientLARS(
        threshold=number(0.01), weight_decay=number(1e-4), eps=number(1e-9)),
}


def _trained_weight(make_optimizer, hook=None):
    numpy.random.seed(0)
    link = L.Linear(50, 40)
    optimizer = make_optimizer()
    optimizer.setup(link)
    if hook is not None:
        optimizer.add_hook(hook)
    x = numpy.random.randn(8, 50).astype(numpy.float32)
    for _ in range(3):
        link.cleargrads()
        F.sum(link(x) ** 2).backward()
        optimizer.update()
    return link.W.array


@pytest.mark.parametrize("name, keyword", OPTIMIZERS)
@pytest.mark.parametrize("numpy_number", [numpy.float64, numpy.array], ids=["scalar", "0-d"])
def test_numpy_scalar_hyperparameter_updates_as_a_python_float(name, keyword, numpy_number):
    value = 0.95 if keyword == "rho" else 0.0123456
    cls = getattr(optimizers, name)
    python = _trained_weight(lambda: cls(**{keyword: value}))
    numpy64 = _trained_weight(lambda: cls(**{keyword: numpy_number(value)}))
    numpy.testing.assert_array_equal(numpy64, python)


@pytest.mark.parametrize("name", sorted(HOOKS))
def test_numpy_scalar_hook_rate_updates_as_a_python_float(name):
    python = _trained_weight(lambda: optimizers.SGD(0.0123456), HOOKS[name](float))
    numpy64 = _trained_weight(lambda: optimizers.SGD(numpy.float64(0.0123456)),
                              HOOKS[name](numpy.float64))
    numpy.testing.assert_array_equal(numpy64, python)
