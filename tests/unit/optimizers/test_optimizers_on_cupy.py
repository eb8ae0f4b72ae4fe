"""On CuPy, every optimizer and every deterministic optimizer hook updates as on NumPy.

A two-layer float64 model is copied, one copy moved to the GPU, and both take the same three
steps (the same data, so the same gradients up to rounding). The parameters and everything the
optimizer serializes (its step count and each parameter's state) must agree afterwards.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy
import pytest

import chainer_compat
import chainer_compat.functions as F
import chainer_compat.links as L
from chainer_compat import optimizer_hooks, optimizers, serializers

OPTIMIZERS: dict[str, Callable[[], Any]] = {
    "SGD": lambda: optimizers.SGD(lr=0.1),
    "MomentumSGD": lambda: optimizers.MomentumSGD(lr=0.1),
    "NesterovAG": lambda: optimizers.NesterovAG(lr=0.1),
    "CorrectedMomentumSGD": lambda: optimizers.CorrectedMomentumSGD(lr=0.1),
    "AdaGrad": lambda: optimizers.AdaGrad(lr=0.1),
    "AdaDelta": lambda: optimizers.AdaDelta(),
    "Adam": lambda: optimizers.Adam(alpha=0.01),
    "Adam_weight_decay": lambda: optimizers.Adam(alpha=0.01, weight_decay_rate=0.1),
    "AdamW": lambda: optimizers.AdamW(alpha=0.01, weight_decay_rate=0.1),
    "AMSGrad": lambda: optimizers.AMSGrad(alpha=0.01),
    "AdaBound": lambda: optimizers.AdaBound(alpha=0.01),
    "AMSBound": lambda: optimizers.AMSBound(alpha=0.01),
    "RMSprop": lambda: optimizers.RMSprop(lr=0.01),
    "RMSpropGraves": lambda: optimizers.RMSpropGraves(lr=0.01),
    "SMORMS3": lambda: optimizers.SMORMS3(lr=0.01),
    "MSVAG": lambda: optimizers.MSVAG(lr=0.01),
}

HOOKS: dict[str, Callable[[], Any]] = {
    "WeightDecay": lambda: optimizer_hooks.WeightDecay(0.1),
    "Lasso": lambda: optimizer_hooks.Lasso(0.1),
    "GradientClipping": lambda: optimizer_hooks.GradientClipping(0.5),
    "GradientHardClipping": lambda: optimizer_hooks.GradientHardClipping(-0.05, 0.05),
    "GradientLARS": lambda: optimizer_hooks.GradientLARS(threshold=1e-3),
}


def _model() -> Any:
    numpy.random.seed(3)
    with chainer_compat.using_config("dtype", numpy.float64):
        return chainer_compat.Sequential(L.Linear(3, 4), F.tanh, L.Linear(4, 2))


def _steps(model: Any, optimizer: Any, xp: Any) -> dict[str, numpy.ndarray]:
    rng = numpy.random.default_rng(5)
    for _ in range(3):
        x = xp.asarray(rng.standard_normal((6, 3)))
        t = xp.asarray(rng.standard_normal((6, 2)))
        model.cleargrads()
        F.mean_squared_error(model(x), t).backward()
        optimizer.update()
    found = {}
    for target in (model, optimizer):
        serializer = serializers.DictionarySerializer()
        serializer.save(target)
        for key, value in serializer.target.items():
            found[f"{type(target).__name__}/{key}"] = (
                value.get() if hasattr(value, "get") else numpy.asarray(value))
    return found


def _compare(make_optimizer: Callable[[], Any], hook: Callable[[], Any] | None, cupy: Any
             ) -> None:
    results = []
    base = _model()
    for xp in (numpy, cupy):
        model = copy.deepcopy(base)
        if xp is cupy:
            model.to_device("@cupy:0")
        optimizer = make_optimizer()
        optimizer.setup(model)
        if hook is not None:
            optimizer.add_hook(hook())
        results.append(_steps(model, optimizer, xp))
    cpu, gpu = results
    assert gpu.keys() == cpu.keys()
    assert not numpy.allclose(cpu["Sequential/0/W"], base[0].W.array)  # the steps moved it
    for key in cpu:
        assert gpu[key].dtype == cpu[key].dtype, key
        numpy.testing.assert_allclose(gpu[key], cpu[key], rtol=1e-8, atol=1e-10, err_msg=key)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_an_optimizer_updates_on_cupy_as_on_numpy(name, cupy):
    _compare(OPTIMIZERS[name], None, cupy)


@pytest.mark.parametrize("name", sorted(HOOKS))
def test_a_hook_acts_on_cupy_as_on_numpy(name, cupy):
    _compare(OPTIMIZERS["MomentumSGD"], HOOKS[name], cupy)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_every_optimizer_row_runs_on_numpy(name):
    # The table itself, where there is no GPU: three steps move the parameters and leave
    # serializable state.
    model = _model()
    before = model[0].W.array.copy()
    optimizer = OPTIMIZERS[name]()
    optimizer.setup(model)
    found = _steps(model, optimizer, numpy)
    assert not numpy.allclose(found["Sequential/0/W"], before)
    assert any(key.startswith(type(optimizer).__name__) for key in found)


@pytest.mark.parametrize("name", sorted(HOOKS))
def test_every_hook_row_changes_the_steps_on_numpy(name):
    plain, hooked = _model(), _model()
    for model, hook in ((plain, None), (hooked, HOOKS[name])):
        optimizer = optimizers.MomentumSGD(lr=0.1)
        optimizer.setup(model)
        if hook is not None:
            optimizer.add_hook(hook())
        model.found = _steps(model, optimizer, numpy)
    assert not numpy.allclose(hooked.found["Sequential/0/W"], plain.found["Sequential/0/W"])
