"""Pins: the graph is freed by reference counting alone (Chainer frees it the same way)."""

from __future__ import annotations

import weakref

import numpy
import pytest

import chainer_compat as C
import chainer_compat.functions as F
from chainer_compat import FunctionNode, Variable


class Square(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] * inputs[0],

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 2.0 * x * grad_outputs[0],


class KeepOutput(FunctionNode):
    def forward(self, inputs):
        self.retain_outputs((0,))
        return inputs[0] * 3,

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * 3.0,


def graph_refs(y):
    """Weak references to every function node and variable node reachable from y."""
    refs = []
    pending = [y.creator_node]
    seen = set()
    while pending:
        func = pending.pop()
        if func is None or func in seen:
            continue
        seen.add(func)
        refs.append(weakref.ref(func))
        for node in func.inputs:
            refs.append(weakref.ref(node))
            pending.append(node.creator_node)
    return refs


def assert_all_dead(refs):
    alive = [r() for r in refs if r() is not None]
    assert not alive, f"{len(alive)} graph objects still alive: {alive[:3]}"


def test_chain_is_freed_when_the_loss_is_dropped(no_gc):
    x = Variable(numpy.ones(3, numpy.float32))
    h = x
    for _ in range(50):
        h, = Square().apply((h,))
    loss = F.sum(h)
    refs = graph_refs(loss)
    loss.backward()
    del h, loss
    # Only x's own node survives: x is still referenced by the test.
    refs = [r for r in refs if r() is not x.node]
    assert_all_dead(refs)


def test_fan_in_graph_is_freed(no_gc):
    x = Variable(numpy.ones(2, numpy.float32))
    a = x * 2.0
    b = a * a
    c = a + b
    loss = F.sum(c * b)
    refs = graph_refs(loss)
    loss.backward()
    del a, b, c, loss
    assert_all_dead([r for r in refs if r() is not x.node])


def test_resurrected_output_does_not_leak(no_gc):
    x = Variable(numpy.ones(2, numpy.float32))
    y, = KeepOutput().apply((x,))
    z = F.sum(y)
    node = y.creator_node
    node_ref = weakref.ref(node)
    del y
    z.backward()  # resurrects the retained output
    refs = graph_refs(z)
    del z, node
    assert node_ref() is None
    assert_all_dead([r for r in refs if r() is not x.node])


def test_double_backprop_graph_is_freed(no_gc):
    x = Variable(numpy.array([1.0, 2.0], numpy.float32))
    y = F.sum(x ** 3)
    y.backward(enable_double_backprop=True)
    gx = x.grad_var
    refs = graph_refs(y) + graph_refs(gx)
    x.cleargrad()
    F.sum(gx).backward()
    x.cleargrad()
    del y, gx
    assert_all_dead([r for r in refs if r() is not x.node])


def test_global_hook_keeps_no_node_alive(no_gc):
    class Remember(C.FunctionHook):
        def forward_postprocess(self, function, in_data):
            self.last = weakref.ref(function)

    hook = Remember()
    with hook:
        x = Variable(numpy.ones(1, numpy.float32))
        y = x * 2.0
        y.backward()
        del y
    assert hook.last() is None


@pytest.mark.parametrize("retain_grad", [False, True])
def test_backward_leaves_no_reference_from_the_engine(no_gc, retain_grad):
    x = Variable(numpy.ones(2, numpy.float32))
    h = x * 2.0
    loss = F.sum(h * h)
    refs = graph_refs(loss)
    loss.backward(retain_grad=retain_grad)
    del h, loss
    assert_all_dead([r for r in refs if r() is not x.node])
