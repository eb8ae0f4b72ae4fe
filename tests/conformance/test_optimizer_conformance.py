"""Optimizers as Chainer 7.8.1 users see them: the NPZ keys of an optimizer's state, update and
hook order, errors for misuse, and that a state saved by Chainer itself resumes here to the same
numbers. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os
import pathlib
import subprocess
import sys
import textwrap
import warnings

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
optimizer = importlib.import_module(chainer.__name__ + ".optimizer")
optimizers = importlib.import_module(chainer.__name__ + ".optimizers")
optimizer_hooks = importlib.import_module(chainer.__name__ + ".optimizer_hooks")
serializers = importlib.import_module(chainer.__name__ + ".serializers")

CHAINER_PYTHON = pathlib.Path("/tmp/chvenv/bin/python")


class Leaf(chainer.Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
            self.b = chainer.Parameter(numpy.zeros(3, numpy.float32))


class Model(chainer.Chain):
    def __init__(self, uninitialized=True):
        super().__init__()
        with self.init_scope():
            self.l1 = Leaf()
            if uninitialized:
                self.u = chainer.Parameter()  # stays uninitialized
                self.u.cleargrad()  # Chainer refuses to read the grad of one never cleared


def fill_grads(model, seed):
    rng = numpy.random.RandomState(seed)
    for _, param in sorted(model.namedparams()):
        if param.array is not None:
            param.grad = rng.uniform(-1, 1, param.shape).astype(param.dtype)


MAKERS = {
    "sgd": lambda: optimizers.SGD(lr=0.1),
    "momentum_sgd": lambda: optimizers.MomentumSGD(lr=0.1, momentum=0.8),
    "adam": lambda: optimizers.Adam(alpha=0.01),
    "amsbound": lambda: optimizers.AMSBound(alpha=0.01),
    "adamw": lambda: optimizers.AdamW(alpha=0.01, weight_decay_rate=0.1),
}
STATE_KEYS = {"sgd": set(), "momentum_sgd": {"v"}, "adam": {"m", "v"},
              "amsbound": {"m", "v", "vhat"}, "adamw": {"m", "v"}}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_npz_keys_are_t_epoch_and_each_param_path_with_its_state(name, tmp_path):
    model = Model()
    opt = MAKERS[name]().setup(model)
    fill_grads(model, 0)
    opt.update()
    serializers.save_npz(tmp_path / "opt.npz", opt)
    with numpy.load(tmp_path / "opt.npz") as npz:
        keys = set(npz.files)
        assert npz["t"].dtype.kind == "i" and int(npz["t"]) == 1
    expected = {"t", "epoch", "u/t"} | {f"l1/{p}/{k}" for p in ("W", "b")
                                        for k in STATE_KEYS[name] | {"t"}}
    assert keys == expected


def test_loading_stateful_rules_needs_their_state_keys(tmp_path):
    # The uninitialized parameter's rule saved only 't'; a fresh enabled rule wants 'm' too.
    model = Model()
    opt = optimizers.Adam().setup(model)
    fill_grads(model, 0)
    opt.update()
    serializers.save_npz(tmp_path / "opt.npz", opt)
    fresh = optimizers.Adam().setup(Model())
    with pytest.raises(KeyError):
        serializers.load_npz(tmp_path / "opt.npz", fresh)
    disabled = Model()
    restored = optimizers.Adam().setup(disabled)
    disabled.u.update_rule.enabled = False
    serializers.load_npz(tmp_path / "opt.npz", restored)
    assert disabled.u.update_rule.t == 1 and disabled.u.update_rule.state is None
    assert disabled.l1.W.update_rule.t == 1
    assert set(disabled.l1.W.update_rule.state) == {"m", "v"}


def test_uninitialized_param_rule_counts_steps_but_has_no_state():
    model = Model()
    opt = optimizers.Adam().setup(model)
    fill_grads(model, 0)
    opt.update()
    assert model.u.update_rule.t == 1 and model.u.update_rule.state is None
    assert set(model.l1.W.update_rule.state) == {"m", "v"}


def test_hooks_pre_run_before_t_increments_and_post_after_the_rules():
    log = []

    def pre(opt):
        log.append(("pre", opt.t))

    def post(opt):
        log.append(("post", opt.t, float(opt.target.l1.b.array[0])))

    model = Model()
    opt = optimizers.SGD(lr=1.0).setup(model)
    opt.add_hook(post, timing="post")
    opt.add_hook(pre)
    model.l1.W.grad = numpy.zeros((2, 3), numpy.float32)
    model.l1.b.grad = numpy.ones(3, numpy.float32)
    opt.update()
    assert log == [("pre", 0), ("post", 1, -1.0)]


def test_per_param_hooks_get_rule_and_param_for_every_param():
    seen = []

    class Hook:
        name = "each"
        call_for_each_param = True

        def __call__(self, rule, param):
            seen.append((rule is param.update_rule, param.shape if param.array is not None
                         else None))

    model = Model()
    opt = optimizers.SGD().setup(model)
    opt.add_hook(Hook())
    fill_grads(model, 0)
    opt.update()
    assert sorted(seen, key=str) == sorted([(True, (2, 3)), (True, (3,)), (True, None)], key=str)


def test_cleared_grad_is_zero_filled_and_param_updated_with_it():
    model = Model()
    opt = optimizers.SGD(lr=1.0).setup(model)
    model.l1.W.grad = numpy.ones((2, 3), numpy.float32)
    model.l1.b.cleargrad()
    opt.update()
    numpy.testing.assert_array_equal(model.l1.b.grad, numpy.zeros(3, numpy.float32))
    numpy.testing.assert_array_equal(model.l1.b.array, numpy.zeros(3, numpy.float32))


def test_update_with_lossfun_clears_then_backprops():
    model = Model()
    opt = optimizers.SGD(lr=0.5).setup(model)
    model.l1.W.grad = numpy.full((2, 3), 9.0, numpy.float32)
    model.l1.b.grad = numpy.full(3, 9.0, numpy.float32)
    functions = importlib.import_module(chainer.__name__ + ".functions")
    opt.update(lambda k: functions.sum(model.l1.W * k), 2.0)
    numpy.testing.assert_array_equal(model.l1.W.grad, numpy.full((2, 3), 2.0, numpy.float32))
    numpy.testing.assert_array_equal(model.l1.b.grad, numpy.zeros(3, numpy.float32))


def test_misuse_exception_types():
    opt = optimizers.SGD()
    with pytest.raises(RuntimeError):
        opt.add_hook(optimizer_hooks.WeightDecay(0.1))
    with pytest.raises(AttributeError):
        opt.update()
    with pytest.raises(TypeError):
        opt.setup(object())
    opt.setup(Model())
    opt.add_hook(optimizer_hooks.WeightDecay(0.1))
    with pytest.raises(KeyError):
        opt.add_hook(optimizer_hooks.WeightDecay(0.1))
    with pytest.raises(ValueError):
        opt.add_hook(optimizer_hooks.Lasso(0.1), timing="never")
    with pytest.raises(ValueError):
        opt.call_hooks("auto")
    with pytest.raises(KeyError):
        opt.remove_hook("Lasso")
    with pytest.raises(RuntimeError):
        opt.new_epoch(auto=True)
    with pytest.raises(RuntimeError):
        optimizers.Adam().setup(Model()).alpha_t


def test_hook_attributes():
    expected = {
        "WeightDecay": ("pre", True), "Lasso": ("pre", True),
        "GradientHardClipping": ("pre", True), "GradientNoise": ("pre", True),
        "GradientLARS": ("pre", True), "GradientClipping": ("pre", False),
    }
    for name, (timing, per_param) in expected.items():
        cls = getattr(optimizer_hooks, name)
        assert (cls.name, cls.timing) == (name, timing)
        assert getattr(cls, "call_for_each_param", False) is per_param


def test_deprecated_aliases_in_optimizer_module():
    for name in ("WeightDecay", "Lasso", "GradientClipping", "GradientHardClipping",
                 "GradientNoise"):
        alias = getattr(optimizer, name)
        assert issubclass(alias, getattr(optimizer_hooks, name))
        with pytest.warns(DeprecationWarning):
            alias(*((-1.0, 1.0) if name == "GradientHardClipping" else (0.1,)))
    assert not hasattr(optimizer, "GradientLARS")


def test_hyperparameter_proxy_and_rule_fallback():
    opt = optimizers.MomentumSGD(lr=0.2).setup(Model())
    rule = opt.target.l1.W.update_rule
    assert rule.hyperparam.parent is opt.hyperparam
    opt.momentum = 0.5
    assert rule.hyperparam.momentum == 0.5
    assert rule.hyperparam.get_dict() == {"lr": 0.2, "momentum": 0.5}


# A script for Chainer's own interpreter: train 3 steps, save model and optimizer, then take a
# 4th step and save the resulting parameters, which a resumed optimizer here must reproduce.
_CHAINER_SCRIPT = textwrap.dedent("""
    import sys, numpy, chainer
    from chainer import optimizers, optimizer_hooks, serializers
    exec(sys.argv[2])
    out = sys.argv[1]
    for name, make in MAKERS.items():
        model = Model(uninitialized=False)
        opt = make().setup(model)
        opt.add_hook(optimizer_hooks.GradientClipping(1.0))
        for seed in range(3):
            fill_grads(model, seed)
            opt.update()
        opt.new_epoch()
        serializers.save_npz(f"{out}/{name}-model.npz", model)
        serializers.save_npz(f"{out}/{name}-opt.npz", opt)
        fill_grads(model, 3)
        opt.update()
        serializers.save_npz(f"{out}/{name}-next.npz", model)
""")


def _shared_source():
    """The model, grads and optimizers above, as source for Chainer's interpreter."""
    import inspect

    source = "\n".join(inspect.getsource(obj) for obj in (Leaf, Model, fill_grads))
    makers = inspect.getsource(sys.modules[__name__]).split("MAKERS = {", 1)[1].split("}\n", 1)[0]
    return source + "\nMAKERS = {" + makers + "}\n"


@pytest.fixture(scope="module")
def chainer_saved(tmp_path_factory):
    if not CHAINER_PYTHON.exists():
        pytest.skip(f"Chainer 7.8.1 interpreter not found at {CHAINER_PYTHON}: cannot produce "
                    f"a Chainer-saved optimizer state to load")
    out = tmp_path_factory.mktemp("chainer_saved")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    subprocess.run([str(CHAINER_PYTHON), "-c", _CHAINER_SCRIPT, str(out), _shared_source()],
                   check=True, env=env, timeout=120, capture_output=True)
    return out


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_state_saved_by_chainer_resumes_to_chainers_next_step(name, chainer_saved):
    model = Model(uninitialized=False)
    opt = MAKERS[name]().setup(model)
    opt.add_hook(optimizer_hooks.GradientClipping(1.0))
    serializers.load_npz(chainer_saved / f"{name}-model.npz", model)
    serializers.load_npz(chainer_saved / f"{name}-opt.npz", opt)
    assert (opt.t, opt.epoch) == (3, 1)
    assert model.l1.W.update_rule.t == 3
    fill_grads(model, 3)
    opt.update()
    expected = Model(uninitialized=False)
    serializers.load_npz(chainer_saved / f"{name}-next.npz", expected)
    for (path, param), (_, reference) in zip(sorted(model.namedparams()),
                                             sorted(expected.namedparams()), strict=True):
        if reference.array is None:
            assert param.array is None, path
        else:
            numpy.testing.assert_allclose(param.array, reference.array, rtol=1e-6, atol=1e-7,
                                          err_msg=path)


def test_dynamic_loss_scale_doubles_then_halves_then_grows_by_interval_root():
    model = Model(uninitialized=False)
    opt = optimizers.SGD(lr=0.1).setup(model)
    opt.loss_scaling(interval=4)
    scales = []
    for bad in (False, False, True, False):
        fill_grads(model, 0)
        if bad:
            model.l1.W.grad[0, 0] = numpy.nan
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opt.update()
        scales.append(opt._loss_scale)
    assert scales == pytest.approx([2.0, 4.0, 2.0, 2.0 * 2 ** 0.25])
    assert opt.t == 4


# Trains every optimizer here (float16/32/64, with and without fp32 update and hooks); the
# same source runs under Chainer's interpreter to give the numbers to match.
_TRAINING_SOURCE = textwrap.dedent("""
    def train_all(chainer, optimizers, optimizer_hooks):
        import numpy

        class Net(chainer.Link):
            def __init__(self, dtype):
                super().__init__()
                rng = numpy.random.RandomState(0)
                with self.init_scope():
                    self.W = chainer.Parameter(rng.randn(3, 4).astype(dtype))
                    self.b = chainer.Parameter(rng.randn(4).astype(dtype))

        makers = {
            "sgd": lambda: optimizers.SGD(lr=0.1),
            "momentum_sgd": lambda: optimizers.MomentumSGD(lr=0.1, momentum=0.8),
            "adam": lambda: optimizers.Adam(alpha=0.01),
            "adamw": lambda: optimizers.AdamW(alpha=0.01, weight_decay_rate=0.1, eta=0.5),
            "amsgrad": lambda: optimizers.AMSGrad(alpha=0.01),
            "adabound": lambda: optimizers.AdaBound(alpha=0.01, final_lr=0.05),
            "amsbound": lambda: optimizers.AMSBound(alpha=0.01),
        }
        results = {}
        for dtype in ("float16", "float32", "float64"):
            for name, make in makers.items():
                for fp32 in (False, True):
                    for hooks in (False, True):
                        net = Net(dtype)
                        opt = make()
                        if fp32:
                            opt.use_fp32_update()
                        opt.setup(net)
                        if hooks:
                            opt.add_hook(optimizer_hooks.WeightDecay(0.01))
                            opt.add_hook(optimizer_hooks.Lasso(0.02))
                            opt.add_hook(optimizer_hooks.GradientHardClipping(-0.5, 0.5))
                            opt.add_hook(optimizer_hooks.GradientClipping(1.0))
                            opt.add_hook(optimizer_hooks.GradientLARS(0.1, 0.01), timing="post")
                        rng = numpy.random.RandomState(1)
                        for _ in range(5):
                            net.W.grad = rng.randn(3, 4).astype(dtype)
                            net.b.grad = rng.randn(4).astype(dtype)
                            opt.update()
                        key = f"{dtype}-{name}-fp32_{fp32}-hooks_{hooks}"
                        results[key + "-W"] = net.W.array
                        results[key + "-b"] = net.b.array
        return results
""")


@pytest.fixture(scope="module")
def chainer_trained(tmp_path_factory):
    if not CHAINER_PYTHON.exists():
        pytest.skip(f"Chainer 7.8.1 interpreter not found at {CHAINER_PYTHON}: cannot compute "
                    f"Chainer's numbers to compare with")
    out = tmp_path_factory.mktemp("chainer_trained") / "trained.npz"
    script = _TRAINING_SOURCE + textwrap.dedent("""
        import sys, numpy, chainer
        from chainer import optimizers, optimizer_hooks
        numpy.savez(sys.argv[1], **train_all(chainer, optimizers, optimizer_hooks))
    """)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    subprocess.run([str(CHAINER_PYTHON), "-c", script, str(out)], check=True, env=env,
                   timeout=120, capture_output=True)
    with numpy.load(out) as npz:
        return {key: npz[key] for key in npz.files}


def test_training_matches_chainer_for_every_dtype_variant_and_hook(chainer_trained):
    namespace: dict = {}
    exec(_TRAINING_SOURCE, namespace)
    ours = namespace["train_all"](chainer, optimizers, optimizer_hooks)
    assert set(ours) == set(chainer_trained)
    tolerance = {"float16": 1e-3, "float32": 1e-6, "float64": 1e-13}
    for key, expected in chainer_trained.items():
        assert ours[key].dtype == expected.dtype, key
        rtol = tolerance[key.split("-")[0]]
        numpy.testing.assert_allclose(ours[key], expected, rtol=rtol, atol=rtol, err_msg=key)
