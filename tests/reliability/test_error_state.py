"""Clean state after errors: a failure in forward, backward, a hook or a type check changes nothing.

For every fault site the test records the state a user can observe (the leaves' gradients, the
thread's configuration as read and as it takes effect, the global hooks, the type-check mode),
makes the fault happen, and checks that the state is unchanged, that the arrays the failed graph
retained are freed with it, and that the next run, on the same graph or a new one, gives the
right gradients (accumulated exactly once).
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy
import pytest
from reliability.state import State, assert_next_run_correct

import chainer_compat as C
import chainer_compat.functions as F
from chainer_compat import FunctionHook, FunctionNode, Variable
from chainer_compat.autograd import Function as CtxFunction
from chainer_compat.function import Function
from chainer_compat.functions.activation.tanh import tanh
from chainer_compat.utils import type_check


class Boom(Exception):
    """The error raised on purpose."""


# ------------------------------------------------------------------------------ faulty nodes
# Each computes y = 2 x and raises at ``switch["site"]`` while ``switch["armed"]``.
def _maybe_fail(switch: dict, site: str) -> None:
    if switch["armed"] and switch["site"] == site:
        raise Boom(site)


class NewFault(FunctionNode):
    def __init__(self, switch):
        self.switch = switch

    def forward(self, inputs):
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        _maybe_fail(self.switch, "forward")
        if self.switch["armed"] and self.switch["site"] == "nan_forward":
            return numpy.full_like(inputs[0], numpy.nan),
        return inputs[0] * 2.0,

    def backward(self, indexes, grad_outputs):
        _maybe_fail(self.switch, "backward")
        x, = self.get_retained_inputs()
        if self.switch["armed"] and self.switch["site"] == "nan_backward":
            return Variable(numpy.full_like(x.array, numpy.nan)),
        return grad_outputs[0] * 2.0,


class AccumulateFault(NewFault):
    def backward_accumulate(self, target_input_indexes, grad_outputs, grad_inputs):
        _maybe_fail(self.switch, "backward")
        gx = grad_outputs[0] * 2.0
        before, = grad_inputs
        return (gx if before is None else gx + before),


class OldFault(Function):
    def __init__(self, switch):
        self.switch = switch

    def forward_cpu(self, inputs):
        self.retain_outputs((0,))
        _maybe_fail(self.switch, "forward")
        return inputs[0] * 2.0,

    def backward_cpu(self, inputs, grad_outputs):
        _maybe_fail(self.switch, "backward")
        return grad_outputs[0] * 2.0,


class CtxFault(CtxFunction):
    @staticmethod
    def forward(ctx, x, switch):
        ctx.switch = switch
        ctx.save_for_backward(x)
        _maybe_fail(switch, "forward")
        return x * 2.0

    @staticmethod
    def backward(ctx, gy):
        _maybe_fail(ctx.switch, "backward")
        ctx.saved_tensors  # noqa: B018 (read the saved input, as real backwards do)
        return gy * 2.0, None


class CheckedFault(NewFault):
    """Its type check fails with InvalidType, or with the user's own bug (a ValueError)."""

    def check_type_forward(self, in_types):
        if self.switch["armed"] and self.switch["site"] == "check_raises_value_error":
            raise ValueError("bug inside check_type_forward")
        type_check._argname(in_types, ("x",))
        x, = in_types
        if self.switch["armed"]:
            type_check.expect(x.ndim == 1)


class HookFault(FunctionHook):
    name = "fault_hook"

    def __init__(self, switch):
        self.switch = switch

    def forward_preprocess(self, function, in_data):
        _maybe_fail(self.switch, "forward_preprocess")

    def forward_postprocess(self, function, in_data):
        _maybe_fail(self.switch, "forward_postprocess")

    def backward_preprocess(self, function, in_data, out_grad):
        _maybe_fail(self.switch, "backward_preprocess")

    def backward_postprocess(self, function, in_data, out_grad):
        _maybe_fail(self.switch, "backward_postprocess")


def apply_fault(style: str, x: Variable, switch: dict) -> Variable:
    if style == "new":
        return NewFault(switch).apply((x,))[0]
    if style == "accumulate":
        return AccumulateFault(switch).apply((x,))[0]
    if style == "checked":
        return CheckedFault(switch).apply((x,))[0]
    if style == "old":
        return OldFault(switch)(x)
    return CtxFault.apply(x, switch)


# ------------------------------------------------------------------------------ the graph
def setup():
    rng = numpy.random.RandomState(0)
    x = Variable(rng.uniform(-1, 1, (2, 3)))
    W = Variable(rng.uniform(-1, 1, (2, 3)))
    x.grad = numpy.full((2, 3), 0.25)  # a gradient from an earlier step: must not be touched
    return x, W


def prefix(x: Variable, W: Variable) -> Variable:
    return tanh(x * W) * 1.0


def build(x: Variable, W: Variable, style: str, switch: dict,
          h: Variable | None = None) -> tuple[Variable, Any]:
    """loss = sum(f(h)^2) + sum(h), h = tanh(x * W): part of backward runs before the fault,
    part after. Returns the loss and a weak reference to an array the fault node retained."""
    if h is None:
        h = prefix(x, W)
    retained = weakref.ref(h.array)
    a = apply_fault(style, h, switch)
    return F.sum(a * a) + F.sum(h), retained


def expected_grads(x: Variable, W: Variable) -> tuple[Any, Any]:
    xr, Wr = Variable(x.array.copy()), Variable(W.array.copy())
    h = tanh(xr * Wr)
    (F.sum((2.0 * h) ** 2) + F.sum(h)).backward()
    return xr.grad, Wr.grad


STYLES = ["new", "accumulate", "old", "ctx"]


@pytest.mark.parametrize("style", STYLES)
def test_error_in_forward_changes_nothing(no_gc, style):
    x, W = setup()
    switch = {"armed": True, "site": "forward"}
    h = prefix(x, W)
    retained = weakref.ref(h.array)
    before = State.of([x, W, h])
    with pytest.raises(Boom):
        apply_fault(style, h, switch)
    State.of([x, W, h]).assert_same_as(before)
    del h
    assert retained() is None, "the failed node must not pin the array it retained"

    switch["armed"] = False
    loss, _ = build(x, W, style, switch)
    loss.backward()
    gx, gW = expected_grads(x, W)
    numpy.testing.assert_allclose(x.grad, 0.25 + gx, rtol=1e-12)
    numpy.testing.assert_allclose(W.grad, gW, rtol=1e-12)
    assert_next_run_correct()


@pytest.mark.parametrize("front_door", ["backward", "grad"])
@pytest.mark.parametrize("style", STYLES)
def test_error_in_backward_leaves_no_half_accumulated_gradient(no_gc, style, front_door):
    x, W = setup()
    switch = {"armed": True, "site": "backward"}
    loss, retained = build(x, W, style, switch)
    before = State.of([x, W])
    with pytest.raises(Boom):
        if front_door == "backward":
            loss.backward()
        else:
            C.grad([loss], [x, W], set_grad=True)
    State.of([x, W]).assert_same_as(before)

    # The same graph, once the fault is gone, gives the gradient exactly once.
    switch["armed"] = False
    loss.backward()
    gx, gW = expected_grads(x, W)
    numpy.testing.assert_allclose(x.grad, 0.25 + gx, rtol=1e-12)
    numpy.testing.assert_allclose(W.grad, gW, rtol=1e-12)
    del loss
    assert retained() is None, "the retained array must go with the graph"
    assert_next_run_correct()


HOOK_SITES = ["forward_preprocess", "forward_postprocess", "backward_preprocess",
              "backward_postprocess"]


@pytest.mark.parametrize("scope", ["global", "local"])
@pytest.mark.parametrize("site", HOOK_SITES)
def test_error_in_a_hook_leaves_no_hook_registered_and_no_state_changed(no_gc, site, scope):
    x, W = setup()
    switch = {"armed": True, "site": site}
    hook = HookFault(switch)
    h = prefix(x, W)
    before = State.of([x, W])
    node = NewFault({"armed": False, "site": None})
    with pytest.raises(Boom):
        if scope == "global":
            with hook:
                y, = node.apply((h,))
                F.sum(y * y).backward()
        else:
            handle = node.add_hook(hook)
            try:
                y, = node.apply((h,))
                F.sum(y * y).backward()
            finally:
                handle.remove()
    State.of([x, W]).assert_same_as(before)
    assert node.local_function_hooks == {}
    assert C.get_function_hooks() == {}

    switch["armed"] = False
    with hook:
        loss, _ = build(x, W, "new", {"armed": False, "site": None})
        loss.backward()
    assert C.get_function_hooks() == {}
    gx, _ = expected_grads(x, W)
    numpy.testing.assert_allclose(x.grad, 0.25 + gx, rtol=1e-12)
    assert_next_run_correct()


@pytest.mark.parametrize("site,error", [
    ("type_check", type_check.InvalidType),
    ("check_raises_value_error", ValueError),
])
def test_failed_type_check_changes_nothing(no_gc, site, error):
    x, W = setup()
    h = prefix(x, W)
    before = State.of([x, W, h])
    with pytest.raises(error):
        build(x, W, "checked", {"armed": True, "site": site}, h)
    State.of([x, W, h]).assert_same_as(before)
    assert not type_check.in_light_mode()

    loss, _ = build(x, W, "checked", {"armed": False, "site": None})
    loss.backward()
    gx, _ = expected_grads(x, W)
    numpy.testing.assert_allclose(x.grad, 0.25 + gx, rtol=1e-12)


@pytest.mark.parametrize("site", ["nan_forward", "nan_backward"])
def test_nan_found_in_debug_mode_changes_nothing(no_gc, site):
    x, W = setup()
    switch = {"armed": True, "site": site}
    h = prefix(x, W)
    with C.using_config("debug", True):
        if site == "nan_forward":
            before = State.of([x, W, h])
            with pytest.raises(RuntimeError, match="NaN is detected on forward"):
                build(x, W, "new", switch, h)
        else:
            loss, _ = build(x, W, "new", switch, h)
            before = State.of([x, W, h])
            with pytest.raises(RuntimeError, match="NaN is detected on backward"):
                loss.backward()
        State.of([x, W, h]).assert_same_as(before)

    switch["armed"] = False
    with C.using_config("debug", True):
        loss, _ = build(x, W, "new", switch)
        loss.backward()
    gx, _ = expected_grads(x, W)
    numpy.testing.assert_allclose(x.grad, 0.25 + gx, rtol=1e-12)


@pytest.mark.parametrize("context", [
    lambda: C.using_config("train", False),
    lambda: C.using_config("enable_backprop", False),
    lambda: C.no_backprop_mode(),
    lambda: C.force_backprop_mode(),
    lambda: C.using_config("type_check", False),
    lambda: C.using_config("lazy_grad_sum", True),
    lambda: C.DebugMode(True),
    lambda: C.using_config("user_defined_key", 3),
])
def test_exception_inside_a_config_block_restores_the_configuration(context):
    before = State.of([])
    with pytest.raises(Boom), context(), C.using_config("debug", True):
        raise Boom("inside")
    State.of([]).assert_same_as(before)


def test_exception_inside_a_backward_under_double_backprop_restores_enable_backprop():
    x, W = setup()
    switch = {"armed": True, "site": "backward"}
    loss, _ = build(x, W, "new", switch)
    before = State.of([x, W])
    with C.no_backprop_mode():
        with pytest.raises(Boom):
            loss.backward(enable_double_backprop=True)
        assert C.config.enable_backprop is False
        assert (x * 2.0).creator is None, "no_backprop_mode must still be in effect"
    State.of([x, W]).assert_same_as(before)


def test_old_style_function_reused_after_a_failed_call_keeps_its_first_graph(no_gc):
    switch = {"armed": False, "site": "forward"}
    f = OldFault(switch)
    x = Variable(numpy.ones(3))
    y = f(x)
    switch["armed"] = True
    with pytest.raises(Boom):
        f(Variable(numpy.ones(4)))
    switch["armed"] = False
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 2.0, 2.0])
    z = f(Variable(numpy.ones(4)))  # the Function still works afterwards
    assert z.shape == (4,)


def test_backward_after_a_failure_in_another_thread_of_work_is_unaffected():
    # A failed run leaves no engine state behind that a new, unrelated graph could trip on.
    x, W = setup()
    switch = {"armed": True, "site": "backward"}
    loss, _ = build(x, W, "accumulate", switch)
    with pytest.raises(Boom):
        loss.backward()
    shared = tanh(x * W)
    fresh_loss = F.sum(shared * shared)
    fresh_loss.backward()
    expected_x = Variable(x.array.copy())
    h = tanh(expected_x * W.array)
    F.sum(h * h).backward()
    numpy.testing.assert_allclose(x.grad, 0.25 + expected_x.grad, rtol=1e-12)
