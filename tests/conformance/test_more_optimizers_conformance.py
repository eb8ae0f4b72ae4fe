"""Chainer-visible behaviour of AdaDelta, AdaGrad, CorrectedMomentumSGD, MSVAG, NesterovAG,
RMSprop, RMSpropGraves and SMORMS3: defaults, each update formula over several steps against a
NumPy reference written here, state names, saved keys and float16 handling. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer 7.8.1 itself.
"""

from __future__ import annotations

import importlib
import inspect
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
serializers = importlib.import_module(chainer.__name__ + ".serializers")
optimizer_module = importlib.import_module(chainer.__name__ + ".optimizer")


def _module(name):
    return importlib.import_module(f"{chainer.__name__}.optimizers.{name}")


# ------------------------------------------------------------------------- NumPy references
# Each reference runs the optimizer's formula from zero state over the given gradients, in the
# dtype of the arrays it gets, and returns the final parameter and state. The formulas follow
# the papers / Chainer's documentation; the operation order matches Chainer's CPU code, so the
# results agree to a few ulps.


def _reference_ada_delta(param, grads, rho, eps):
    msg = numpy.zeros_like(param)
    msdx = numpy.zeros_like(param)
    for grad in grads:
        msg = msg * rho + (1 - rho) * grad * grad
        step = numpy.sqrt((msdx + eps) / (msg + eps)) * grad
        msdx = msdx * rho + (1 - rho) * step * step
        param = param - step
    return param, {"msg": msg, "msdx": msdx}


def _reference_ada_grad(param, grads, lr, eps):
    h = numpy.zeros_like(param)
    for grad in grads:
        h = h + grad * grad
        param = param - lr * grad / (numpy.sqrt(h) + eps)
    return param, {"h": h}


def _reference_corrected_momentum_sgd(param, grads, lr, momentum):
    v = numpy.zeros_like(param)
    for grad in grads:
        v = v * momentum - grad
        param = param + lr * v
    return param, {"v": v}


def _reference_msvag(param, grads, lr, beta, eta, weight_decay_rate):
    m = numpy.zeros_like(param)
    v = numpy.zeros_like(param)
    for t, grad in enumerate(grads, start=1):
        power = beta ** t
        rho = min((1 - beta) ** 2 * (1 - power ** 2) / ((1 - power) ** 2 * (1 - beta ** 2)),
                  0.9999)
        m = m + (1 - beta) * (grad - m)
        v = v + (1 - beta) * (grad * grad - v)
        mean = m / (1 - power)
        mean_square = v / (1 - power)
        variance = (mean_square - mean ** 2) / (1 - rho)
        with numpy.errstate(divide="ignore", invalid="ignore"):
            factor = numpy.clip(mean ** 2 / (mean ** 2 + rho * variance), 0, 1)
        factor = numpy.nan_to_num(factor, nan=0.0)
        param = param - eta * (lr * mean * factor + weight_decay_rate * param)
    return param, {"m": m, "v": v}


def _reference_nesterov_ag(param, grads, lr, momentum):
    v = numpy.zeros_like(param)
    for grad in grads:
        v = v * momentum - lr * grad
        param = param + momentum * momentum * v - (1 + momentum) * lr * grad
    return param, {"v": v}


def _reference_rmsprop(param, grads, lr, alpha, eps, eps_inside_sqrt):
    ms = numpy.zeros_like(param)
    for grad in grads:
        ms = ms * alpha + (1 - alpha) * grad * grad
        denominator = numpy.sqrt(ms + eps) if eps_inside_sqrt else numpy.sqrt(ms) + eps
        param = param - lr * grad / denominator
    return param, {"ms": ms}


def _reference_rmsprop_graves(param, grads, lr, alpha, momentum, eps):
    n = numpy.zeros_like(param)
    g = numpy.zeros_like(param)
    delta = numpy.zeros_like(param)
    for grad in grads:
        n = n * alpha + (1 - alpha) * grad * grad
        g = g * alpha + (1 - alpha) * grad
        delta = delta * momentum - lr * grad / numpy.sqrt(n - g * g + eps)
        param = param + delta
    return param, {"n": n, "g": g, "delta": delta}


def _reference_smorms3(param, grads, lr, eps):
    mem = numpy.ones_like(param)
    g = numpy.zeros_like(param)
    g2 = numpy.zeros_like(param)
    for grad in grads:
        r = 1 / (mem + 1)
        g = (1 - r) * g + r * grad
        g2 = (1 - r) * g2 + r * grad * grad
        with numpy.errstate(invalid="ignore"):  # 0 / 0 where eps rounds to 0 (float16)
            x = g * g / (g2 + eps)
        param = param - grad * numpy.minimum(x, lr) / (numpy.sqrt(g2) + eps)
        mem = 1 + mem * (1 - x)
    return param, {"mem": mem, "g": g, "g2": g2}


# name: (module, optimizer class, rule class, documented defaults, reference, custom values)
OPTIMIZERS = {
    "AdaDelta": ("ada_delta", "AdaDeltaRule", {"rho": 0.95, "eps": 1e-6},
                 _reference_ada_delta, {"rho": 0.8, "eps": 1e-4}),
    "AdaGrad": ("ada_grad", "AdaGradRule", {"lr": 0.001, "eps": 1e-8},
                _reference_ada_grad, {"lr": 0.1, "eps": 1e-4}),
    "CorrectedMomentumSGD": ("corrected_momentum_sgd", "CorrectedMomentumSGDRule",
                             {"lr": 0.01, "momentum": 0.9},
                             _reference_corrected_momentum_sgd, {"lr": 0.1, "momentum": 0.5}),
    "MSVAG": ("msvag", "MSVAGRule",
              {"lr": 0.1, "beta": 0.9, "eta": 1.0, "weight_decay_rate": 0},
              _reference_msvag, {"lr": 0.05, "beta": 0.8, "eta": 0.5, "weight_decay_rate": 0.01}),
    "NesterovAG": ("nesterov_ag", "NesterovAGRule", {"lr": 0.01, "momentum": 0.9},
                   _reference_nesterov_ag, {"lr": 0.1, "momentum": 0.7}),
    "RMSprop": ("rmsprop", "RMSpropRule",
                {"lr": 0.01, "alpha": 0.99, "eps": 1e-8, "eps_inside_sqrt": False},
                _reference_rmsprop, {"lr": 0.05, "alpha": 0.9, "eps": 1e-3,
                                     "eps_inside_sqrt": True}),
    "RMSpropGraves": ("rmsprop_graves", "RMSpropGravesRule",
                      {"lr": 1e-4, "alpha": 0.95, "momentum": 0.9, "eps": 1e-4},
                      _reference_rmsprop_graves,
                      {"lr": 0.01, "alpha": 0.9, "momentum": 0.5, "eps": 1e-3}),
    "SMORMS3": ("smorms3", "SMORMS3Rule", {"lr": 0.001, "eps": 1e-16},
                _reference_smorms3, {"lr": 0.01, "eps": 1e-8}),
}

STATE_NAMES = {
    "AdaDelta": {"msg", "msdx"},
    "AdaGrad": {"h"},
    "CorrectedMomentumSGD": {"v"},
    "MSVAG": {"m", "v"},
    "NesterovAG": {"v"},
    "RMSprop": {"ms"},
    "RMSpropGraves": {"n", "g", "delta"},
    "SMORMS3": {"mem", "g", "g2"},
}

NAMES = sorted(OPTIMIZERS)
STEPS = 4


def _optimizer_class(name):
    return getattr(_module(OPTIMIZERS[name][0]), name)


def _rule_class(name):
    return getattr(_module(OPTIMIZERS[name][0]), OPTIMIZERS[name][1])


def _hyperparameters(name, custom):
    defaults, custom_values = OPTIMIZERS[name][2], OPTIMIZERS[name][4]
    return dict(defaults, **custom_values) if custom else dict(defaults)


def _data(dtype, steps=STEPS, seed=0):
    """A (3, 4) parameter and `steps` gradients; element [0, 0] always gets a zero gradient."""
    rng = numpy.random.RandomState(seed)
    param = rng.uniform(-1, 1, (3, 4)).astype(dtype)
    grads = [rng.uniform(-1, 1, (3, 4)).astype(dtype) for _ in range(steps)]
    for grad in grads:
        grad[0, 0] = 0
    return param, grads


def _link(array):
    link = chainer.Link()
    with link.init_scope():
        link.w = chainer.Parameter(array)
    return link


def _run(optimizer, link, grads, xp=numpy):
    for grad in grads:
        link.w.grad = xp.asarray(grad)
        optimizer.update()


def _to_numpy(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


_TOLERANCE = {numpy.float16: {"rtol": 1e-2, "atol": 1e-3},
              numpy.float32: {"rtol": 1e-5, "atol": 1e-6},
              numpy.float64: {"rtol": 1e-12, "atol": 1e-14}}


# ------------------------------------------------------------------------------------ tests


@pytest.mark.parametrize("name", NAMES)
def test_optimizers_package_exports_each_optimizer(name):
    optimizers = importlib.import_module(chainer.__name__ + ".optimizers")
    assert getattr(optimizers, name) is _optimizer_class(name)


@pytest.mark.parametrize("name", NAMES)
def test_constructor_keywords_and_defaults_are_the_documented_hyperparameters(name):
    defaults = OPTIMIZERS[name][2]
    parameters = inspect.signature(_optimizer_class(name)).parameters
    assert list(parameters) == list(defaults)
    assert {key: parameter.default for key, parameter in parameters.items()} == defaults
    assert _optimizer_class(name)().hyperparam.get_dict() == defaults


@pytest.mark.parametrize("name", NAMES)
def test_each_hyperparameter_is_a_proxy_attribute_that_reaches_the_rules(name):
    cls = _optimizer_class(name)
    custom = OPTIMIZERS[name][4]
    optimizer = cls()
    optimizer.setup(_link(numpy.zeros(2, numpy.float32)))
    rule = optimizer.target.w.update_rule
    for key, value in custom.items():
        assert isinstance(vars(cls)[key], optimizer_module.HyperparameterProxy)
        setattr(optimizer, key, value)
        assert getattr(optimizer.hyperparam, key) == value
        assert getattr(rule.hyperparam, key) == value
    assert optimizer.hyperparam.get_dict() == _hyperparameters(name, custom=True)


@pytest.mark.parametrize("name", NAMES)
def test_rule_is_elementwise_and_takes_defaults_overrides_or_a_parent(name):
    rule_class = _rule_class(name)
    defaults, custom = OPTIMIZERS[name][2], OPTIMIZERS[name][4]
    assert rule_class.is_elementwise is True
    assert rule_class().hyperparam.get_dict() == defaults
    assert rule_class(**custom).hyperparam.get_dict() == dict(defaults, **custom)
    parent = optimizer_module.Hyperparameter()
    for key, value in custom.items():
        setattr(parent, key, value)
    rule = rule_class(parent)
    assert rule.hyperparam.parent is parent
    assert rule.hyperparam.get_dict() == custom
    assert isinstance(_optimizer_class(name)().create_update_rule(), rule_class)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("custom", [False, True], ids=["defaults", "custom"])
@pytest.mark.parametrize("name", NAMES)
def test_update_follows_the_formula_over_several_steps(name, custom, dtype, xp):
    hyperparameters = _hyperparameters(name, custom)
    param, grads = _data(dtype)
    expected_param, expected_state = OPTIMIZERS[name][3](param, grads, **hyperparameters)

    optimizer = _optimizer_class(name)(**hyperparameters)
    link = _link(xp.asarray(param))
    optimizer.setup(link)
    _run(optimizer, link, grads, xp)

    numpy.testing.assert_allclose(_to_numpy(link.w.array), expected_param, **_TOLERANCE[dtype])
    state = link.w.update_rule.state
    assert set(state) == STATE_NAMES[name]
    for key, expected in expected_state.items():
        assert state[key].dtype == dtype
        numpy.testing.assert_allclose(_to_numpy(state[key]), expected, **_TOLERANCE[dtype],
                                      err_msg=f"state {key!r}")
    assert link.w.update_rule.t == STEPS
    assert optimizer.t == STEPS


@pytest.mark.parametrize("name", NAMES)
def test_float16_with_fp32_update_keeps_a_float32_master_copy(name):
    hyperparameters = _hyperparameters(name, custom=True)
    param, grads = _data(numpy.float16)
    # The master copy starts from the float16 value and sees float16 gradients as float32.
    expected_master, expected_state = OPTIMIZERS[name][3](
        param.astype(numpy.float32), [g.astype(numpy.float32) for g in grads],
        **hyperparameters)

    optimizer = _optimizer_class(name)(**hyperparameters)
    link = _link(param.copy())
    optimizer.setup(link)
    optimizer.use_fp32_update()
    _run(optimizer, link, grads)

    assert link.w.dtype == numpy.float16
    numpy.testing.assert_allclose(link.w.array, expected_master.astype(numpy.float16),
                                  rtol=2e-3, atol=1e-4)
    for key, expected in expected_state.items():
        state = link.w.update_rule.state[key]
        assert state.dtype == numpy.float32
        numpy.testing.assert_allclose(state, expected, **_TOLERANCE[numpy.float32])


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("name", NAMES)
def test_float16_without_fp32_update_computes_in_float16(name):
    hyperparameters = _hyperparameters(name, custom=True)
    param, grads = _data(numpy.float16, steps=2)
    expected_param, _ = OPTIMIZERS[name][3](param, grads, **hyperparameters)

    optimizer = _optimizer_class(name)(**hyperparameters)
    link = _link(param.copy())
    optimizer.setup(link)
    _run(optimizer, link, grads)

    assert link.w.update_rule.state[sorted(STATE_NAMES[name])[0]].dtype == numpy.float16
    # SMORMS3's eps rounds to 0 in float16, so its always-zero-gradient element becomes NaN;
    # assert_allclose then checks that the NaNs sit in the same places.
    numpy.testing.assert_allclose(link.w.array, expected_param, **_TOLERANCE[numpy.float16])


def test_rmsprop_rejects_an_eps_that_rounds_to_zero_in_float16():
    RMSprop = _optimizer_class("RMSprop")
    param, grads = _data(numpy.float16, steps=1)
    link = _link(param.copy())
    RMSprop().setup(link)
    link.w.grad = grads[0]
    with pytest.raises(ValueError, match="eps of RMSprop optimizer is too small for float16"):
        link.w.update()

    # In float32 the same eps is representable, so the fp32 update path accepts it.
    link = _link(param.copy())
    optimizer = RMSprop()
    optimizer.setup(link)
    optimizer.use_fp32_update()
    _run(optimizer, link, grads)
    assert numpy.isfinite(link.w.array).all()
    assert not numpy.array_equal(link.w.array, param)


def test_rmsprop_accepts_eps_zero_on_cpu():
    param, grads = _data(numpy.float32, steps=1)
    grads[0][0, 0] = 1  # sqrt(ms) + 0 must not be zero anywhere
    expected, _ = _reference_rmsprop(param, grads, lr=0.01, alpha=0.99, eps=0.0,
                                     eps_inside_sqrt=False)
    optimizer = _optimizer_class("RMSprop")(eps=0.0)
    link = _link(param.copy())
    optimizer.setup(link)
    _run(optimizer, link, grads)
    numpy.testing.assert_allclose(link.w.array, expected, **_TOLERANCE[numpy.float32])


def test_corrected_momentum_sgd_rescales_the_whole_velocity_when_lr_changes():
    param, grads = _data(numpy.float64)
    optimizer = _optimizer_class("CorrectedMomentumSGD")(lr=0.1, momentum=0.9)
    link = _link(param.copy())
    optimizer.setup(link)
    expected = param.copy()
    velocity = numpy.zeros_like(param)
    for lr, grad in zip([0.1, 0.1, 0.01, 0.01], grads):
        optimizer.lr = lr
        link.w.grad = grad
        optimizer.update()
        velocity = velocity * 0.9 - grad
        expected = expected + lr * velocity
        numpy.testing.assert_allclose(link.w.array, expected, rtol=1e-12)


def test_corrected_momentum_sgd_matches_momentum_sgd_at_a_constant_lr():
    momentum_sgd = _module("momentum_sgd")
    param, grads = _data(numpy.float64)
    links = [_link(param.copy()), _link(param.copy())]
    optimizers = [_optimizer_class("CorrectedMomentumSGD")(lr=0.1, momentum=0.8),
                  momentum_sgd.MomentumSGD(lr=0.1, momentum=0.8)]
    for optimizer, link in zip(optimizers, links):
        optimizer.setup(link)
        _run(optimizer, link, grads)
    numpy.testing.assert_allclose(links[0].w.array, links[1].w.array, rtol=1e-12)
    # Their velocities differ by the factor lr: u (corrected) versus v = lr * u.
    numpy.testing.assert_allclose(0.1 * links[0].w.update_rule.state["v"],
                                  links[1].w.update_rule.state["v"], rtol=1e-12)


def test_msvag_takes_no_step_where_the_gradient_was_always_zero():
    param, grads = _data(numpy.float32)
    optimizer = _optimizer_class("MSVAG")()
    link = _link(param.copy())
    optimizer.setup(link)
    _run(optimizer, link, grads)
    assert link.w.array[0, 0] == param[0, 0]
    assert numpy.isfinite(link.w.array).all()


def test_msvag_bias_correction_power_starts_at_beta_and_grows_per_update():
    optimizer = _optimizer_class("MSVAG")(beta=0.5)
    link = _link(numpy.ones(2, numpy.float32))
    optimizer.setup(link)
    rule = link.w.update_rule
    assert rule.beta_power == 0.5
    _run(optimizer, link, [numpy.ones(2, numpy.float32)] * 3)
    assert rule.beta_power == 0.5 ** 4


@pytest.mark.parametrize("name", NAMES)
def test_save_npz_writes_t_epoch_and_each_state_under_the_parameter_path(name, tmp_path):
    param, grads = _data(numpy.float32, steps=2)
    optimizer = _optimizer_class(name)()
    link = _link(param.copy())
    optimizer.setup(link)
    _run(optimizer, link, grads)
    path = str(tmp_path / "optimizer.npz")
    serializers.save_npz(path, optimizer)

    with numpy.load(path) as saved:
        expected_keys = {"t", "epoch", "w/t"} | {f"w/{key}" for key in STATE_NAMES[name]}
        assert set(saved.files) == expected_keys
        assert int(saved["t"]) == 2 and int(saved["w/t"]) == 2
        for key in STATE_NAMES[name]:
            numpy.testing.assert_array_equal(saved[f"w/{key}"],
                                             link.w.update_rule.state[key])


@pytest.mark.parametrize("name", NAMES)
def test_load_npz_restores_the_state_so_updates_continue_identically(name, tmp_path):
    param, grads = _data(numpy.float32, steps=4)
    optimizer = _optimizer_class(name)(**_hyperparameters(name, custom=True))
    link = _link(param.copy())
    optimizer.setup(link)
    _run(optimizer, link, grads[:2])
    path = str(tmp_path / "optimizer.npz")
    serializers.save_npz(path, optimizer)

    restored = _optimizer_class(name)(**_hyperparameters(name, custom=True))
    restored_link = _link(link.w.array.copy())
    restored.setup(restored_link)
    serializers.load_npz(path, restored)
    rule = restored_link.w.update_rule
    assert restored.t == 2 and rule.t == 2
    assert set(rule.state) == STATE_NAMES[name]
    if name == "MSVAG":
        # beta_power is an attribute of the rule, not state, so it is not saved.
        assert rule.beta_power == OPTIMIZERS[name][4]["beta"]
        rule.beta_power = link.w.update_rule.beta_power

    _run(optimizer, link, grads[2:])
    _run(restored, restored_link, grads[2:])
    numpy.testing.assert_array_equal(restored_link.w.array, link.w.array)
    for key in STATE_NAMES[name]:
        numpy.testing.assert_array_equal(rule.state[key], link.w.update_rule.state[key])


@pytest.mark.parametrize("name", NAMES)
def test_update_with_a_loss_function_applies_the_backward_gradient(name):
    functions = importlib.import_module(chainer.__name__ + ".functions")
    hyperparameters = _hyperparameters(name, custom=True)
    param, _ = _data(numpy.float64)
    optimizer = _optimizer_class(name)(**hyperparameters)
    link = _link(param.copy())
    optimizer.setup(link)

    expected, grads = param, []
    for _ in range(3):
        optimizer.update(lambda: functions.sum(link.w * link.w))
        grads.append(2 * expected)  # d/dw sum(w * w) at the value before this step
        expected, _ = OPTIMIZERS[name][3](param, grads, **hyperparameters)
        numpy.testing.assert_allclose(link.w.array, expected, **_TOLERANCE[numpy.float64])


@pytest.mark.parametrize("name", NAMES)
def test_rule_update_without_a_gradient_creates_the_state_and_leaves_the_parameter(name):
    param, _ = _data(numpy.float32)
    link = _link(param.copy())
    _optimizer_class(name)().setup(link)
    rule = link.w.update_rule
    assert rule.state is None
    link.w.update()
    assert rule.t == 1
    assert set(rule.state) == STATE_NAMES[name]
    numpy.testing.assert_array_equal(link.w.array, param)
