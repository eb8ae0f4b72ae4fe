"""Leak-freedom: once the user drops their references, every kind of graph is freed.

Each scenario keeps all its references local and runs with the cyclic garbage collector off
(``reliability.leakcheck``): after a warm-up, repeated runs must leave the census of Variables,
nodes, Functions, ctx objects and hooks, and the total of gc-tracked objects, unchanged. So a
graph that needs the cycle collector to go, or leaves a single object behind, fails here.
"""

from __future__ import annotations

import weakref

import numpy
import pytest
import strategies
from reliability.leakcheck import assert_no_leak, survivors

import chainer_compat as C
import chainer_compat.functions as F
from chainer_compat import FunctionHook, FunctionNode, Variable
from chainer_compat.autograd import Function as CtxFunction
from chainer_compat.function import Function
from chainer_compat.functions.activation.tanh import tanh
from chainer_compat.functions.array.split_axis import split_axis
from chainer_compat.functions.connection.linear import linear
from chainer_compat.utils import type_check


class Boom(Exception):
    """The error the scenarios raise on purpose."""


def leaf(shape=(2, 3), seed=0):
    return Variable(numpy.random.RandomState(seed).uniform(-1, 1, shape))


# ------------------------------------------------------------------------------ nodes
class Cube(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 3,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 3.0 * x * x * grad_outputs[0],


class ExpKeepOutput(FunctionNode):
    def forward(self, inputs):
        self.retain_outputs((0,))
        return numpy.exp(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * y,


class OldSquare(Function):
    def forward_cpu(self, inputs):
        return inputs[0] * inputs[0],

    def backward_cpu(self, inputs, grad_outputs):
        return 2 * inputs[0] * grad_outputs[0],


class OldExpKeepOutput(Function):
    def forward_cpu(self, inputs):
        self.retain_inputs(())
        self.retain_outputs((0,))
        self.state = numpy.ones(3)  # legacy functions keep forward state on themselves
        return numpy.exp(inputs[0]),

    def backward_cpu(self, inputs, grad_outputs):
        return grad_outputs[0] * self.output_data[0],


class CtxSaveEverything(CtxFunction):
    """Saves an input, an output, a fresh array and a Variable: every kind of saved entry."""

    @staticmethod
    def forward(ctx, x, w):
        y = x * w
        ctx.save_for_backward(x, y, numpy.full_like(x, 2.0), None)
        ctx.note = numpy.ones(2)
        return y

    @staticmethod
    def backward(ctx, gy):
        x, y, two, _ = ctx.saved_tensors
        return gy * (y / x), gy * x * (two / 2.0)


class CtxArrays(CtxFunction):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 3.0

    @staticmethod
    def backward(ctx, gy):
        return gy.array * 3.0


class Raising(FunctionNode):
    """Raises in forward (after retaining) or backward, on request."""

    def __init__(self, where):
        self.where = where

    def forward(self, inputs):
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        if self.where == "forward":
            raise Boom("forward")
        return inputs[0] * 2.0,

    def backward(self, indexes, grad_outputs):
        if self.where == "backward":
            raise Boom("backward")
        return grad_outputs[0] * 2.0,


class OldRaising(Function):
    def __init__(self, where):
        self.where = where

    def forward_cpu(self, inputs):
        if self.where == "forward":
            raise Boom("forward")
        return inputs[0] * 2.0,

    def backward_cpu(self, inputs, grad_outputs):
        raise Boom("backward")


class CtxRaising(CtxFunction):
    @staticmethod
    def forward(ctx, x, where):
        ctx.save_for_backward(x)
        ctx.where = where
        if where == "forward":
            raise Boom("forward")
        return x * 2.0

    @staticmethod
    def backward(ctx, gy):
        raise Boom("backward")


class Checked(FunctionNode):
    def check_type_forward(self, in_types):
        type_check._argname(in_types, ("x",))
        x, = in_types
        type_check.expect(x.ndim == 1)

    def forward(self, inputs):
        return inputs[0] * 1.0,


class RaisingHook(FunctionHook):
    name = "raising_hook"

    def __init__(self, where):
        self.where = where

    def forward_preprocess(self, function, in_data):
        if self.where == "forward_preprocess":
            raise Boom(self.where)

    def forward_postprocess(self, function, in_data):
        if self.where == "forward_postprocess":
            raise Boom(self.where)

    def backward_preprocess(self, function, in_data, out_grad):
        if self.where == "backward_preprocess":
            raise Boom(self.where)

    def backward_postprocess(self, function, in_data, out_grad):
        if self.where == "backward_postprocess":
            raise Boom(self.where)


class RecordingHook(FunctionHook):
    """Records labels only: a hook that kept function nodes would keep the graph alive."""

    name = "recording_hook"

    def __init__(self):
        self.labels = []

    def backward_preprocess(self, function, in_data, out_grad):
        self.labels.append(function.label)


class HookAddingNode(FunctionNode):
    """Registers hooks while backprop runs: a global one, and local ones on its inputs' creators."""

    def forward(self, inputs):
        return inputs[0] * 1.0,

    def backward(self, indexes, grad_outputs):
        hook = RecordingHook()
        hook.name = "added_during_backward"
        with hook:
            for node in self.inputs:
                if node.creator_node is not None:
                    node.creator_node.add_hook(RecordingHook(), name="local_added_in_backward")
            return grad_outputs[0] * 1.0,


# ------------------------------------------------------------------------------ scenarios
def new_style_graph():
    x, W, b = leaf((3, 4)), leaf((5, 4), 1), leaf((5,), 2)
    h = tanh(linear(x, W, b))
    h, = Cube().apply((h,))
    a, c = split_axis(h, [2], axis=1)
    loss = F.sum(a * 2.0) + F.sum(c[:, ::-1] ** 2) + F.sum(F.exp(h) * h)
    loss.backward()
    assert W.grad is not None


def old_style_graph():
    x = leaf()
    h = OldSquare()(x)
    h = OldExpKeepOutput()(h * 0.5)
    f = OldSquare()
    y = f(h) + f(x)  # one Function applied twice, as legacy code does
    F.sum(y).backward()
    assert x.grad is not None


def ctx_graph():
    x, w = leaf(), leaf(seed=1)
    y = CtxSaveEverything.apply(x, w)
    z = CtxArrays.apply(y)
    F.sum(z * y).backward()
    assert w.grad is not None


def resurrected_outputs():
    x = leaf()
    y, = ExpKeepOutput().apply((x,))
    z = OldExpKeepOutput()(x)
    loss = F.sum(y * 2.0) + F.sum(z * 3.0)
    del y, z  # the retained outputs' Variables are gone: backward resurrects them
    loss.backward()
    assert x.grad is not None


def double_backprop_with_grad():
    x = leaf()
    y, = Cube().apply((x,))
    y = CtxSaveEverything.apply(y, x)
    gx, = C.grad([F.sum(y)], [x], enable_double_backprop=True)
    ggx, = C.grad([F.sum(gx * gx)], [x])
    assert ggx is not None


def double_backprop_with_backward():
    x = leaf()
    loss = F.sum(tanh(x) * x)
    loss.backward(enable_double_backprop=True)
    # x.grad_var carries the graph of the gradient; differentiate it again.
    gx = x.grad_var
    x.cleargrad()
    F.sum(gx * gx).backward()
    assert x.grad is not None


def retain_grad_and_debug():
    x = leaf()
    with C.using_config("debug", True):
        y = tanh(x) * 2.0
        F.sum(y * y).backward(retain_grad=True)
    assert y.grad is not None


def lazy_grad_sum_graph():
    x = leaf()
    with C.using_config("lazy_grad_sum", True):
        y = x * 2.0
        F.sum(y + y * y + tanh(y)).backward()


def no_backprop_graph():
    x = leaf()
    with C.no_backprop_mode():
        y = Cube().apply((x,))[0]
        y = OldSquare()(y) + CtxArrays.apply(y)
    assert y.creator is None


def unchained_graph():
    x = leaf()
    h = tanh(x) * 2.0
    h.unchain_backward()
    loss = F.sum(OldSquare()(h))
    loss.backward()
    assert x.grad is None


def grad_with_set_grad_and_grad_inputs():
    x = leaf()
    y = ExpKeepOutput().apply((x,))[0]
    gx, = C.grad([F.sum(y)], [x], grad_inputs=[Variable(numpy.ones((2, 3)))], set_grad=True)
    assert x.grad_var is gx


def hooks_added_during_backprop():
    x = leaf()
    h = tanh(x)
    y, = HookAddingNode().apply((h,))
    F.sum(y * 2.0).backward()
    assert "local_added_in_backward" in h.creator_node.local_function_hooks
    assert "added_during_backward" not in C.get_function_hooks()


def global_and_local_hooks():
    x = leaf()
    recorder = RecordingHook()
    with recorder:
        y, = Cube().apply((x,))
        y.creator_node.add_hook(RecordingHook(), name="local")
        handle = y.creator_node.add_hook(RecordingHook(), name="removed")
        handle.remove()
        F.sum(OldSquare()(y)).backward()
    assert recorder.labels


def error_in_forward():
    x = leaf()
    for node in (Raising("forward"), OldRaising("forward")):
        with pytest.raises(Boom):
            node.apply((tanh(x),)) if isinstance(node, FunctionNode) else node(tanh(x))
    with pytest.raises(Boom):
        CtxRaising.apply(tanh(x), "forward")


def error_in_backward():
    x = leaf()
    for make in (lambda h: Raising("backward").apply((h,))[0],
                 lambda h: OldRaising("backward")(h),
                 lambda h: CtxRaising.apply(h, "backward")):
        loss = F.sum(make(Cube().apply((x * 1.0,))[0]) * 2.0)
        with pytest.raises(Boom):
            loss.backward()
        with pytest.raises(Boom):
            C.grad([loss], [x])
    assert x.grad is None


def error_in_hooks():
    x = leaf()
    for where in ("forward_preprocess", "forward_postprocess"):
        with RaisingHook(where), pytest.raises(Boom):
            Cube().apply((x,))
    for where in ("backward_preprocess", "backward_postprocess"):
        loss = F.sum(Cube().apply((x,))[0])
        with RaisingHook(where), pytest.raises(Boom):
            loss.backward()


def error_in_type_check():
    x = leaf()
    with pytest.raises(type_check.InvalidType):
        Checked().apply((tanh(x),))
    with pytest.raises(type_check.InvalidType):
        F.matmul(x, x)


def error_in_debug_nan_check():
    x = leaf()
    with C.using_config("debug", True), numpy.errstate(invalid="ignore"), \
            pytest.raises(RuntimeError, match="NaN"):
        F.log(x - 5.0)


def random_mixed_graphs():
    for seed in range(6):
        recipe = strategies.recipe_from_seed(seed)
        leaves = [Variable(a) for a in strategies.leaf_arrays(recipe)]
        strategies.build(recipe, leaves).loss.backward()


SCENARIOS = [
    new_style_graph, old_style_graph, ctx_graph, resurrected_outputs, double_backprop_with_grad,
    double_backprop_with_backward, retain_grad_and_debug, lazy_grad_sum_graph, no_backprop_graph,
    unchained_graph, grad_with_set_grad_and_grad_inputs, hooks_added_during_backprop,
    global_and_local_hooks, error_in_forward, error_in_backward, error_in_hooks,
    error_in_type_check, error_in_debug_nan_check, random_mixed_graphs,
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.__name__ for s in SCENARIOS])
def test_graph_is_freed_by_reference_counting_alone(scenario):
    assert_no_leak(scenario)


def test_the_census_sees_a_single_leaked_node():
    # The detector itself: one node kept per run must show up.
    kept = []

    def leaky():
        x = leaf()
        y = tanh(x)
        F.sum(y).backward()
        kept.append(y.node)

    leaked = survivors(leaky, repeats=3)
    # Each kept node holds its creator, which holds its input's node: 2 nodes and 1 Tanh a run.
    assert leaked.get("VariableNode", 0) == 6
    assert leaked.get("Tanh", 0) == 3


@pytest.mark.parametrize("style", ["new", "old", "ctx"])
def test_retained_arrays_are_freed_with_the_graph(no_gc, style):
    x = leaf()
    if style == "new":
        y, = ExpKeepOutput().apply((x * 1.0,))
    elif style == "old":
        y = OldExpKeepOutput()(x * 1.0)
    else:
        y = CtxSaveEverything.apply(x * 1.0, x)
    retained = [weakref.ref(y.array)]
    loss = F.sum(y)
    del y
    loss.backward()
    assert retained[0]() is not None, "the graph must keep the retained output while alive"
    del loss
    assert retained[0]() is None


def test_failed_backward_frees_the_graph_once_the_exception_is_gone(no_gc):
    x = leaf()
    h = x * 1.0
    y, = Raising("backward").apply((h,))
    refs = [weakref.ref(h.node), weakref.ref(y.creator_node), weakref.ref(h.array)]
    loss = F.sum(y)
    del h, y
    try:
        loss.backward()
    except Boom:
        pass
    del loss
    assert [r() for r in refs] == [None, None, None]
