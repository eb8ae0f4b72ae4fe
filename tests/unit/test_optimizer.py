"""chainer.optimizer: Hyperparameter, UpdateRule, Optimizer and GradientMethod behaviour."""

from __future__ import annotations

import copy
import io
import pickle

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import optimizer, optimizer_hooks, optimizers, serializers
from chainer_compat.optimizer import (
    GradientMethod,
    Hyperparameter,
    HyperparameterProxy,
    Optimizer,
    UpdateRule,
)


class Tiny(chainer.Link):
    def __init__(self, dtype=numpy.float64):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.arange(1, 7, dtype=dtype).reshape(2, 3))
            self.b = chainer.Parameter(numpy.zeros(3, dtype))


class Nested(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.inner = Tiny()
            self.u = chainer.Parameter()  # never initialized


class Recorder:
    """A named hook that logs its calls into a shared list."""

    def __init__(self, log, name, timing=None, per_param=False):
        self.log = log
        self.name = name
        if timing is not None:
            self.timing = timing
        self.call_for_each_param = per_param

    def __call__(self, *args):
        self.log.append((self.name, args))


class AddOneRule(UpdateRule):
    """param += grad + 1, counting init_state calls; keeps one state array 'count'."""

    def init_state(self, param):
        self.state["count"] = numpy.zeros_like(param.array)

    def update_core_cpu(self, param):
        if param.grad is None:
            return
        self.state["count"] += 1
        param.array[...] += param.grad + 1


# ------------------------------------------------------------------------ Hyperparameter
def test_hyperparameter_falls_back_to_parent_and_own_entries_win():
    parent = Hyperparameter()
    parent.lr = 0.1
    parent.momentum = 0.9
    child = Hyperparameter(parent)
    child.lr = 0.5
    assert child.parent is parent
    assert (child.lr, child.momentum) == (0.5, 0.9)
    parent.momentum = 0.3
    assert child.momentum == 0.3
    assert child.get_dict() == {"lr": 0.5, "momentum": 0.3}
    assert parent.get_dict() == {"lr": 0.1, "momentum": 0.3}
    assert repr(child) == "Hyperparameter(lr=0.5, momentum=0.3)"


def test_hyperparameter_missing_entry_is_an_attribute_error_naming_it():
    hp = Hyperparameter(Hyperparameter())
    with pytest.raises(AttributeError, match="'lr'"):
        hp.lr
    assert getattr(hp, "lr", "default") == "default"


def test_hyperparameter_copies_and_pickles():
    parent = Hyperparameter()
    parent.lr = 0.1
    child = Hyperparameter(parent)
    child.eps = 1e-3
    for clone in (copy.deepcopy(child), pickle.loads(pickle.dumps(child)), copy.copy(child)):
        assert clone.get_dict() == {"lr": 0.1, "eps": 1e-3}


def test_hyperparameter_proxy_reads_and_writes_the_entry():
    class Opt:
        lr = HyperparameterProxy("lr")

        def __init__(self):
            self.hyperparam = Hyperparameter()

    opt = Opt()
    opt.lr = 0.25
    assert opt.hyperparam.lr == 0.25 and opt.lr == 0.25
    assert isinstance(Opt.lr, HyperparameterProxy)
    assert "hyperparam.lr" in Opt.lr.__doc__


# ------------------------------------------------------------------------ UpdateRule
def test_update_rule_updates_counts_steps_and_inits_state_once():
    rule = AddOneRule()
    param = chainer.Parameter(numpy.zeros(2))
    assert rule.state is None and rule.t == 0
    for step in (1, 2):
        param.grad = numpy.ones(2)
        rule.update(param)
        assert rule.t == step
    numpy.testing.assert_array_equal(param.array, [4.0, 4.0])
    numpy.testing.assert_array_equal(rule.state["count"], [2.0, 2.0])


def test_disabled_rule_does_nothing_and_keeps_t():
    rule = AddOneRule()
    rule.enabled = False
    param = chainer.Parameter(numpy.zeros(2))
    param.grad = numpy.ones(2)
    rule.update(param)
    assert rule.t == 0 and rule.state is None
    numpy.testing.assert_array_equal(param.array, [0.0, 0.0])


def test_rule_with_grad_none_or_uninitialized_param_skips_the_update():
    rule = AddOneRule()
    param = chainer.Parameter(numpy.zeros(2))
    param.grad = None
    rule.update(param)
    numpy.testing.assert_array_equal(param.array, [0.0, 0.0])
    assert rule.t == 1
    uninitialized = chainer.Parameter()
    uninitialized.cleargrad()  # without it, reading its grad raises (as in Chainer)
    other = AddOneRule()
    other.update(uninitialized)
    assert other.t == 1 and other.state is None and uninitialized.array is None


def test_rule_reading_the_unset_grad_of_an_uninitialized_param_raises():
    # compat: Chainer's optimizer.update() before a lazily initialized link's first forward
    # raises this RuntimeError, from the rule's read of param.grad.
    uninitialized = chainer.Parameter()
    with pytest.raises(RuntimeError, match="Cannot retrieve Variable.grad"):
        AddOneRule().update(uninitialized)
    assert uninitialized.array is None


def test_base_rule_needs_an_update_core():
    rule = UpdateRule()
    param = chainer.Parameter(numpy.zeros(2))
    param.grad = numpy.ones(2)
    with pytest.raises(NotImplementedError, match="update_core"):
        rule.update(param)


def test_rule_hooks_run_in_order_around_update_core():
    log = []

    class LoggingRule(UpdateRule):
        def update_core_cpu(self, param):
            log.append(("core", (self, param)))

    rule = LoggingRule()
    param = chainer.Parameter(numpy.zeros(2))
    param.grad = numpy.ones(2)
    rule.add_hook(Recorder(log, "post1"), timing="post")
    rule.add_hook(Recorder(log, "pre1"), timing="pre")
    rule.add_hook(Recorder(log, "auto_post", timing="post"))  # 'auto' reads hook.timing
    rule.add_hook(Recorder(log, "pre2"))  # no timing attribute: 'auto' means 'pre'
    rule.update(param)
    assert [name for name, _ in log] == ["pre1", "pre2", "core", "post1", "auto_post"]
    assert all(args == (rule, param) for _, args in log)
    rule.remove_hook("pre1")
    log.clear()
    rule.update(param)
    assert [name for name, _ in log] == ["pre2", "core", "post1", "auto_post"]


def test_rule_hook_misuse_errors():
    rule = UpdateRule()
    with pytest.raises(ValueError, match=r"timing must be one of \('pre', 'post', 'auto'\)"):
        rule.add_hook(lambda r, p: None, timing="later")
    with pytest.raises(TypeError, match="hook function must be callable"):
        rule.add_hook(3, name="three")
    rule.add_hook(Recorder([], "h"))
    with pytest.raises(KeyError, match='hook "h" already exists'):
        rule.add_hook(Recorder([], "h"), timing="post")
    with pytest.raises(KeyError):
        rule.remove_hook("missing")


def test_rule_hook_with_invalid_own_timing_goes_post_as_in_chainer():
    log = []
    rule = AddOneRule()
    rule.add_hook(Recorder(log, "odd", timing="sometime"))
    assert "odd" in rule._hookable._post_update_hooks


def test_gradient_is_divided_by_the_loss_scale_before_the_hooks():
    seen = []
    rule = AddOneRule()
    rule.add_hook(lambda r, p: seen.append(p.grad.copy()), name="look")
    param = chainer.Parameter(numpy.zeros(2))
    param.grad = numpy.full(2, 8.0)
    param._loss_scale = 4.0
    rule.update(param)
    numpy.testing.assert_array_equal(seen[0], [2.0, 2.0])
    numpy.testing.assert_array_equal(param.array, [3.0, 3.0])


def test_fp32_update_hands_a_float32_copy_to_hooks_and_update_core():
    seen = []
    rule = AddOneRule()
    rule.use_fp32_update()
    rule.add_hook(lambda r, p: seen.append((p.array.dtype, p.grad.dtype)), name="look")
    param = chainer.Parameter(numpy.zeros(2, numpy.float16))
    param.grad = numpy.full(2, 0.5, numpy.float16)
    rule.update(param)
    assert seen == [(numpy.dtype(numpy.float32), numpy.dtype(numpy.float32))]
    assert param.array.dtype == numpy.float16
    numpy.testing.assert_array_equal(param.array, [1.5, 1.5])
    assert rule.state["count"].dtype == numpy.float32
    assert rule._fp32_param.grad is None  # released after the update


def test_fp32_update_leaves_other_dtypes_alone():
    rule = AddOneRule()
    rule.use_fp32_update()
    param = chainer.Parameter(numpy.zeros(2, numpy.float64))
    param.grad = numpy.ones(2)
    rule.update(param)
    assert rule._fp32_param is None
    assert rule.state["count"].dtype == numpy.float64


def test_rule_serialize_round_trip_and_load_into_a_fresh_rule():
    rule = AddOneRule()
    param = chainer.Parameter(numpy.zeros(2))
    param.grad = numpy.ones(2)
    rule.update(param)
    rule.update(param)
    saved = serializers.DictionarySerializer()
    rule.serialize(saved)
    assert set(saved.target) == {"t", "count"}
    fresh = AddOneRule()
    fresh.serialize(serializers.NpzDeserializer(saved.target))
    assert fresh.t == 2
    numpy.testing.assert_array_equal(fresh.state["count"], [2.0, 2.0])


def test_loading_missing_state_keys_raises_for_enabled_and_waits_for_disabled_rule():
    only_t = {"t": numpy.asarray(3)}
    with pytest.raises(KeyError):
        AddOneRule().serialize(serializers.NpzDeserializer(only_t))
    disabled = AddOneRule()
    disabled.enabled = False
    disabled.serialize(serializers.NpzDeserializer(only_t))
    assert disabled.t == 3 and disabled.state is None


# ------------------------------------------------------------------------ Optimizer
def test_setup_returns_self_and_rejects_non_links():
    opt = optimizers.SGD()
    link = Tiny()
    assert opt.setup(link) is opt and opt.target is link
    with pytest.raises(TypeError, match="optimization target must be a link"):
        opt.setup(numpy.zeros(3))


def test_setup_resets_counters_and_hooks():
    link = Tiny()
    opt = optimizers.SGD().setup(link)
    opt.add_hook(optimizer_hooks.WeightDecay(0.1))
    opt.t, opt.epoch = 5, 2
    opt.setup(link)
    assert (opt.t, opt.epoch) == (0, 0)
    opt.add_hook(optimizer_hooks.WeightDecay(0.1))  # the old registration is gone


@pytest.mark.parametrize("call", [
    lambda opt: opt.add_hook(optimizer_hooks.WeightDecay(0.1)),
    lambda opt: opt.remove_hook("WeightDecay"),
    lambda opt: opt.call_hooks(),
])
def test_hooks_before_setup_are_a_runtime_error(call):
    with pytest.raises(RuntimeError, match=r"Optimizer is not set up. Call `setup` method."):
        call(optimizers.SGD())


def test_update_or_serialize_before_setup_says_to_call_setup():
    opt = optimizers.SGD()
    with pytest.raises(AttributeError, match=r"setup\(link\) before update"):
        opt.update()
    with pytest.raises(AttributeError, match=r"setup\(link\) before serialize"):
        serializers.save_npz(io.BytesIO(), opt)


def test_optimizer_hook_misuse_errors_match_chainer():
    opt = optimizers.SGD().setup(Tiny())
    opt.add_hook(optimizer_hooks.WeightDecay(0.1))
    with pytest.raises(KeyError, match='hook "WeightDecay" already exists'):
        opt.add_hook(optimizer_hooks.WeightDecay(0.2))
    with pytest.raises(ValueError, match="timing must be one of"):
        opt.add_hook(optimizer_hooks.Lasso(0.1), timing="during")
    with pytest.raises(TypeError, match="hook function must be callable"):
        opt.add_hook("not a hook", name="x")
    nameless = type("Nameless", (), {"__call__": lambda self, o: None})()
    with pytest.raises(ValueError, match="the name of the hook function is not specified"):
        opt.add_hook(nameless)
    with pytest.raises(ValueError, match="timing must be either 'pre' or 'post'"):
        opt.call_hooks("auto")
    with pytest.raises(KeyError):
        opt.remove_hook("nope")


def test_optimizer_hook_with_invalid_own_timing_warns_and_goes_pre():
    opt = optimizers.SGD().setup(Tiny())
    with pytest.warns(UserWarning, match="defaulting timing to 'pre'"):
        opt.add_hook(Recorder([], "odd", timing="sometime"))
    assert "odd" in opt._hookable._pre_update_hooks


def test_function_hook_is_named_after_the_function():
    log = []

    def my_hook(opt):
        log.append(opt.t)

    opt = optimizers.SGD().setup(Tiny())
    opt.add_hook(my_hook)
    opt.update()
    assert len(log) == 1
    opt.remove_hook("my_hook")  # registered under the function's name, or KeyError
    opt.update()
    assert len(log) == 1


def test_new_epoch_and_the_auto_flag():
    opt = optimizers.SGD().setup(Tiny())
    opt.new_epoch()
    opt.new_epoch()
    assert opt.epoch == 2
    with pytest.raises(RuntimeError, match="invalid new_epoch call with auto=True"):
        opt.new_epoch(auto=True)
    opt.use_auto_new_epoch = True
    opt.new_epoch(auto=True)
    assert opt.epoch == 3
    with pytest.raises(RuntimeError, match="duplicated new_epoch with the updater"):
        opt.new_epoch()


def test_subclass_may_skip_super_init():
    class Custom(Optimizer):
        def __init__(self):  # compat: Chainer tolerates no super().__init__()
            self.calls = 0

        def update(self, lossfun=None, *args, **kwds):
            self.calls += 1
            self.t += 1

    opt = Custom().setup(Tiny())
    assert (opt.t, opt.epoch, opt.use_auto_new_epoch) == (0, 0, False)
    opt.update()
    opt.new_epoch()
    assert (opt.t, opt.epoch) == (1, 1) and opt.is_safe_to_update()
    with pytest.raises(NotImplementedError):
        Optimizer().update()


# ------------------------------------------------------------------------ GradientMethod
def test_update_runs_pre_hooks_then_rules_then_post_hooks():
    log = []
    link = Tiny()
    opt = optimizers.SGD(lr=1.0).setup(link)

    class WatchRule(optimizers.sgd.SGDRule):
        def update_core_cpu(self, param):
            log.append(("rule", (opt.t,)))
            super().update_core_cpu(param)

    for param in link.params():
        param.update_rule = WatchRule(opt.hyperparam)
    opt.add_hook(Recorder(log, "post_once", timing="post"))
    opt.add_hook(Recorder(log, "pre_each", per_param=True))
    opt.add_hook(Recorder(log, "pre_once"), timing="pre")
    link.w.grad = numpy.ones((2, 3))
    link.b.grad = numpy.ones(3)
    opt.update()
    names = [name for name, _ in log]
    assert names == ["pre_each", "pre_each", "pre_once", "rule", "rule", "post_once"]
    params = list(link.params())
    assert [args for name, args in log if name == "pre_each"] == [
        (p.update_rule, p) for p in params]
    assert [args for name, args in log if name == "pre_once"] == [(opt,)]
    # t is incremented after the pre hooks and before the rules.
    assert [args for name, args in log if name == "rule"] == [(1,), (1,)]


def test_update_with_lossfun_clears_stale_grads_and_calls_backward():
    link = Tiny()
    opt = optimizers.SGD(lr=0.1).setup(link)
    link.w.grad = numpy.full((2, 3), 100.0)  # stale: must not leak into the step
    link.b.grad = numpy.full(3, 100.0)
    x = numpy.arange(6, dtype=numpy.float64).reshape(2, 3)
    w0 = link.w.array.copy()
    received = []

    def lossfun(data, scale=1.0):
        received.append((data is x, scale))
        product = link.w * data * scale
        return chainer.functions.sum(product) + chainer.functions.sum(link.b)

    opt.update(lossfun, x, scale=2.0)
    assert received == [(True, 2.0)]
    numpy.testing.assert_allclose(link.w.grad, 2.0 * x)
    numpy.testing.assert_allclose(link.w.array, w0 - 0.1 * 2.0 * x)
    numpy.testing.assert_allclose(link.b.array, -0.1 * numpy.ones(3))
    assert opt.t == 1


def test_params_without_grad_are_skipped_or_zero_filled():
    link = Nested()
    opt = optimizers.MomentumSGD(lr=1.0).setup(link)
    link.inner.w.grad = numpy.ones((2, 3))
    link.inner.b.grad = None
    b0 = link.inner.b.array.copy()
    link.u.cleargrad()  # an uninitialized parameter's grad must be cleared before it is read
    opt.update()
    # An initialized parameter without grad gets a zero grad (as Chainer), so no change.
    numpy.testing.assert_array_equal(link.inner.b.grad, numpy.zeros(3))
    numpy.testing.assert_array_equal(link.inner.b.array, b0)
    # The uninitialized one is skipped: no array, no grad, no state, but its rule counted.
    assert link.u.array is None and link.u.grad is None
    assert link.u.update_rule.state is None and link.u.update_rule.t == 1


def test_static_loss_scale_scales_backward_and_unscales_the_step():
    link = Tiny()
    opt = optimizers.SGD(lr=0.1).setup(link)
    opt.set_loss_scale(16.0)
    seen = []
    link.w.update_rule.add_hook(lambda rule, p: seen.append(p.grad.copy()), name="g")
    w0 = link.w.array.copy()
    opt.update(lambda: chainer.functions.sum(link.w * 3.0))
    numpy.testing.assert_allclose(seen[0], numpy.full((2, 3), 3.0))
    numpy.testing.assert_allclose(link.w.array, w0 - 0.3)


def test_loss_scaling_arguments_are_checked():
    opt = optimizers.SGD()
    with pytest.raises(ValueError, match="interval must be greater than or equal to 1"):
        opt.loss_scaling(interval=0)
    with pytest.raises(ValueError, match="loss_scale must be a positive number"):
        opt.loss_scaling(scale=0)


def test_dynamic_loss_scaling_skips_non_finite_steps_and_adapts_the_scale():
    link = Tiny()
    opt = optimizers.SGD(lr=0.1).setup(link)
    opt.loss_scaling(interval=2)
    w0 = link.w.array.copy()
    link.w.grad = numpy.full((2, 3), numpy.inf)
    link.b.grad = numpy.zeros(3)
    with pytest.warns(UserWarning, match="Non finite number found in param.grad of /w"):
        opt.update()
    assert not opt.is_safe_to_update()
    numpy.testing.assert_array_equal(link.w.array, w0)
    assert opt._loss_scale == 1.0  # halved, but never below 1
    link.w.grad = numpy.ones((2, 3))
    opt.update()
    assert opt.is_safe_to_update()
    assert opt._loss_scale == pytest.approx(2 ** 0.5)  # 2 ** (1 / interval) after overflow


def test_use_cleargrads_is_deprecated_and_false_uses_zerograds():
    link = Tiny()
    opt = optimizers.SGD(lr=0.0).setup(link)
    with pytest.warns(DeprecationWarning, match="GradientMethod.use_cleargrads is deprecated"):
        opt.use_cleargrads(False)
    # Each update then calls the deprecated zerograds, which warns as in Chainer.
    with pytest.warns(DeprecationWarning) as warned:
        opt.update(lambda: chainer.functions.sum(link.w))
    messages = {str(warning.message) for warning in warned}
    assert "Link.zerograds is deprecated. Use Link.cleargrads instead." in messages
    assert "Variable.zerograd is deprecated. Use Variable.cleargrad instead." in messages
    numpy.testing.assert_array_equal(link.w.grad, numpy.ones((2, 3)))


def test_use_fp32_update_before_or_after_setup_reaches_every_rule():
    before = optimizers.SGD()
    before.use_fp32_update()
    before.setup(Tiny(numpy.float16))
    after = optimizers.SGD().setup(Tiny(numpy.float16))
    after.use_fp32_update()
    for opt in (before, after):
        assert all(p.update_rule._use_fp32_update for p in opt.target.params())


def test_bare_gradient_method_needs_create_update_rule():
    with pytest.raises(NotImplementedError, match="create_update_rule"):
        GradientMethod().setup(Tiny())


def test_optimizer_round_trips_through_save_npz_and_continues_identically(tmp_path):
    def make():
        model = Nested()
        model.u.initialize((2,))
        model.u.array[...] = 0.5
        return model

    def step(model, opt, seed):
        rng = numpy.random.RandomState(seed)
        for param in model.params():
            param.grad = rng.uniform(-1, 1, param.shape).astype(param.dtype)
        opt.update()

    model = make()
    opt = optimizers.Adam(alpha=0.05, amsgrad=True).setup(model)
    for seed in range(3):
        step(model, opt, seed)
    opt.new_epoch()
    serializers.save_npz(tmp_path / "opt.npz", opt)
    serializers.save_npz(tmp_path / "model.npz", model)
    with numpy.load(tmp_path / "opt.npz") as npz:
        keys = set(npz.files)
    assert keys == {"t", "epoch"} | {f"{p}/{k}" for p in ("inner/w", "inner/b", "u")
                                     for k in ("t", "m", "v", "vhat")}

    restored_model = make()
    serializers.load_npz(tmp_path / "model.npz", restored_model)
    restored = optimizers.Adam(alpha=0.05, amsgrad=True).setup(restored_model)
    serializers.load_npz(tmp_path / "opt.npz", restored)
    assert (restored.t, restored.epoch) == (3, 1)
    assert restored_model.inner.w.update_rule.t == 3
    step(model, opt, 7)
    step(restored_model, restored, 7)
    for (name, a), (_, b) in zip(model.namedparams(), restored_model.namedparams(),
                                 strict=True):
        numpy.testing.assert_array_equal(a.array, b.array, err_msg=name)


def test_set_up_optimizer_survives_deepcopy_and_pickle():
    link = Tiny()
    opt = optimizers.Adam(alpha=0.1).setup(link)
    opt.add_hook(optimizer_hooks.WeightDecay(0.01))
    link.w.grad = numpy.ones((2, 3))
    link.b.grad = numpy.ones(3)
    opt.update()
    for clone in (copy.deepcopy(opt), pickle.loads(pickle.dumps(opt))):
        assert clone.t == 1 and clone.alpha == 0.1
        rule = clone.target.w.update_rule
        assert rule.hyperparam.parent is clone.hyperparam
        numpy.testing.assert_array_equal(rule.state["m"], link.w.update_rule.state["m"])
        assert "WeightDecay" in clone._hookable._pre_update_hooks
        clone.target.w.grad = numpy.ones((2, 3))
        clone.target.b.grad = numpy.ones(3)
        clone.update()
        assert clone.target.w.update_rule.t == 2 and link.w.update_rule.t == 1


# ------------------------------------------------------------------------ deprecated aliases
@pytest.mark.parametrize("name, args", [
    ("WeightDecay", (0.1,)), ("Lasso", (0.1,)), ("GradientClipping", (1.0,)),
    ("GradientHardClipping", (-1.0, 1.0)), ("GradientNoise", (0.1,)),
])
def test_deprecated_hook_aliases_warn_and_still_work(name, args):
    with pytest.warns(DeprecationWarning, match=f"chainer.optimizer.{name} is deprecated"):
        hook = getattr(optimizer, name)(*args)
    assert isinstance(hook, getattr(optimizer_hooks, name))
    assert hook.name == name


def test_hyperparameter_keeps_numpy_scalars_as_python_numbers():
    # NOTE [NumPy scalars in updates]: NumPy 2 would compute lr * grad in float64.
    optimizer = optimizers.SGD(numpy.float64(0.25))
    assert type(optimizer.lr) is float and optimizer.lr == 0.25
    optimizer.hyperparam.momentum = numpy.float32(0.5)
    assert type(optimizer.hyperparam.momentum) is float
    array_entry = numpy.ones(2)
    optimizer.hyperparam.scale = array_entry  # arrays are kept as they are
    assert optimizer.hyperparam.scale is array_entry
