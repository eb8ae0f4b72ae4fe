"""Our-only behaviour of AdaDelta, AdaGrad, CorrectedMomentumSGD, MSVAG, NesterovAG, RMSprop,
RMSpropGraves and SMORMS3: error wording, warnings, state kept in place, the CuPy path and the
module surface. The formulas themselves are pinned against NumPy references in
tests/conformance/test_more_optimizers_conformance.py.
"""

from __future__ import annotations

import importlib
import warnings

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import optimizer as optimizer_module
from chainer_compat import optimizers
from chainer_compat.optimizers import msvag, rmsprop, smorms3

# module: (optimizer class, rule class, state names)
MODULES = {
    "ada_delta": ("AdaDelta", "AdaDeltaRule", {"msg", "msdx"}),
    "ada_grad": ("AdaGrad", "AdaGradRule", {"h"}),
    "corrected_momentum_sgd": ("CorrectedMomentumSGD", "CorrectedMomentumSGDRule", {"v"}),
    "msvag": ("MSVAG", "MSVAGRule", {"m", "v"}),
    "nesterov_ag": ("NesterovAG", "NesterovAGRule", {"v"}),
    "rmsprop": ("RMSprop", "RMSpropRule", {"ms"}),
    "rmsprop_graves": ("RMSpropGraves", "RMSpropGravesRule", {"n", "g", "delta"}),
    "smorms3": ("SMORMS3", "SMORMS3Rule", {"mem", "g", "g2"}),
}


def _link(array):
    link = chainer.Link()
    with link.init_scope():
        link.w = chainer.Parameter(array)
    return link


def _module(name):
    return importlib.import_module(f"chainer_compat.optimizers.{name}")


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_exports_its_optimizer_and_rule(name):
    module = _module(name)
    optimizer_name, rule_name, _ = MODULES[name]
    assert sorted(module.__all__) == sorted([optimizer_name, rule_name])
    assert issubclass(getattr(module, optimizer_name), optimizer_module.GradientMethod)
    assert issubclass(getattr(module, rule_name), optimizer_module.UpdateRule)
    assert getattr(optimizers, optimizer_name) is getattr(module, optimizer_name)


def test_rmsprop_eps_error_names_the_dtype_and_the_fix():
    link = _link(numpy.ones(3, numpy.float16))
    rmsprop.RMSprop(eps=1e-9).setup(link)
    link.w.grad = numpy.ones(3, numpy.float16)
    with pytest.raises(ValueError) as info:
        link.w.update()
    message = str(info.value)
    assert message.startswith("eps of RMSprop optimizer is too small for float16 (1e-09)")
    assert "use_fp32_update()" in message
    # The failed update leaves the parameter as it was.
    numpy.testing.assert_array_equal(link.w.array, numpy.ones(3, numpy.float16))


def test_rmsprop_eps_zero_is_accepted_on_every_path():
    # compat note: Chainer's CUDA kernel also rejects eps == 0; we reject only an eps that
    # rounds to 0, on CPU and GPU alike.
    rule = rmsprop.RMSpropRule(eps=0.0)
    param = chainer.Parameter(numpy.ones(2, numpy.float32))
    param.grad = numpy.ones(2, numpy.float32)
    rule.update(param)
    assert numpy.all(param.array < 1)


def test_msvag_zero_gradient_elements_raise_no_runtime_warning():
    link = _link(numpy.ones((2, 2), numpy.float32))
    optimizer = msvag.MSVAG()
    optimizer.setup(link)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for _ in range(3):
            link.w.grad = numpy.array([[0, 1], [0, -1]], numpy.float32)
            optimizer.update()
    numpy.testing.assert_array_equal(link.w.array[:, 0], [1, 1])
    assert numpy.all(link.w.array[:, 1] != 1)


def test_msvag_beta_power_is_per_rule_and_fixed_at_construction():
    optimizer = msvag.MSVAG(beta=0.5)
    link = _link(numpy.ones(2, numpy.float32))
    optimizer.setup(link)
    optimizer.beta = 0.25  # reaches the decay of m and v, not the power's base
    link.w.grad = numpy.ones(2, numpy.float32)
    optimizer.update()
    assert link.w.update_rule.beta_power == 0.5 * 0.25


def test_smorms3_updates_its_state_arrays_in_place():
    link = _link(numpy.ones(3, numpy.float32))
    optimizer = smorms3.SMORMS3()
    optimizer.setup(link)
    link.w.grad = numpy.full(3, 0.5, numpy.float32)
    optimizer.update()
    state = link.w.update_rule.state
    arrays = {key: state[key] for key in ("mem", "g", "g2")}
    before = {key: array.copy() for key, array in arrays.items()}
    link.w.grad = numpy.full(3, -0.25, numpy.float32)
    optimizer.update()
    for key, array in arrays.items():
        assert state[key] is array
        assert not numpy.array_equal(array, before[key]), key


@pytest.mark.parametrize("name", sorted(MODULES))
def test_update_rule_state_follows_a_float64_parameter(name):
    optimizer_name, _, state_names = MODULES[name]
    link = _link(numpy.ones(4, numpy.float64))
    getattr(_module(name), optimizer_name)().setup(link)
    link.w.grad = numpy.full(4, 0.5)
    link.w.update()
    state = link.w.update_rule.state
    assert set(state) == state_names
    for key in state_names:
        assert state[key].dtype == numpy.float64
        assert state[key].shape == (4,)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_cupy_parameter_gets_cupy_state_and_matches_the_numpy_update(name, cupy):
    optimizer_name, _, state_names = MODULES[name]
    cls = getattr(_module(name), optimizer_name)
    rng = numpy.random.RandomState(1)
    param = rng.uniform(-1, 1, (5, 3)).astype(numpy.float32)
    grads = [rng.uniform(-1, 1, (5, 3)).astype(numpy.float32) for _ in range(3)]

    results = []
    for xp in (numpy, cupy):
        link = _link(xp.array(param))  # a copy: the NumPy run updates its array in place
        optimizer = cls()
        optimizer.setup(link)
        for grad in grads:
            link.w.grad = xp.asarray(grad)
            optimizer.update()
        results.append(link)
    cpu_link, gpu_link = results
    assert isinstance(gpu_link.w.array, cupy.ndarray)
    numpy.testing.assert_allclose(gpu_link.w.array.get(), cpu_link.w.array, rtol=1e-5,
                                  atol=1e-6)
    for key in state_names:
        state = gpu_link.w.update_rule.state[key]
        assert isinstance(state, cupy.ndarray)
        numpy.testing.assert_allclose(state.get(), cpu_link.w.update_rule.state[key],
                                      rtol=1e-5, atol=1e-6)
