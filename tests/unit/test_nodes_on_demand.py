"""Gradients computed without a graph get their VariableNode when first needed.

NOTE [nodes made on demand] (chainer_compat/variable.py): such a Variable starts with a shared
stand-in that answers only the hot paths' reads. These tests pin that the stand-in is used where
it saves work, and that no public view, graph or gradient can tell it from a made node.
"""

from __future__ import annotations

import copy
import pickle

import numpy
import pytest
from sample_functions import OldStyleSquare

import chainer_compat as C
from chainer_compat import FunctionNode, Variable
from chainer_compat.autograd import Function as CtxFunction
from chainer_compat.variable import VariableNode, _PendingNode


def f32(*values):
    return numpy.array(values, numpy.float32)


class Triple(FunctionNode):
    def forward(self, inputs):
        return inputs[0] * 3,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 3.0,


class CtxTriple(CtxFunction):
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, gy):
        return gy.array * 3  # an array: the Function wraps it


def _is_pending(variable):
    return type(variable._node) is _PendingNode


def _gradient_of(kind):
    """x's gradient after a backward through one function of the given kind."""
    x = Variable(f32(1.0, 2.0))
    if kind == "node":
        y, = Triple().apply((x,))
    elif kind == "old_style":
        y = OldStyleSquare()(x)
    elif kind == "ctx":
        y = CtxTriple.apply(x)
    elif kind == "fan_in":  # two gradients summed inline by the engine
        y = x * 2.0 + x * 3.0
    else:
        y = C.functions.relu(x)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    return x, x.grad_var


@pytest.mark.parametrize("kind", ["node", "old_style", "ctx", "fan_in", "relu"])
def test_gradients_start_without_a_node_and_make_an_exact_one(kind):
    x, g = _gradient_of(kind)
    assert _is_pending(g), "a gradient computed without a graph must not make its node"
    node = g.node
    assert type(node) is VariableNode
    assert node() is g and node.get_variable() is g
    assert (node.shape, node.dtype, node.creator, node.rank) == (x.shape, x.dtype, None, 0)
    assert g.node is node and g._node is node  # made once, then kept
    assert not _is_pending(g)


def test_requires_grad_is_kept_through_the_stand_in():
    # Old-style gradients require grad (as in Chainer); a ctx backward's arrays do not.
    _, old_style = _gradient_of("old_style")
    _, ctx = _gradient_of("ctx")
    assert _is_pending(old_style) and _is_pending(ctx)
    assert old_style.requires_grad is True and ctx.requires_grad is False
    assert old_style.node.requires_grad is True and ctx.node.requires_grad is False


def test_reading_the_graph_fields_does_not_make_the_node():
    _, g = _gradient_of("node")
    assert (g.creator_node, g.rank, g.name, g.requires_grad) == (None, 0, None, True)
    assert _is_pending(g)


def test_two_gradients_applied_together_get_their_own_nodes():
    # If both kept the shared stand-in, the engine would file their gradients under one key.
    _, a = _gradient_of("node")
    _, b = _gradient_of("fan_in")
    assert _is_pending(a) and _is_pending(b)
    z = a * b
    assert z.creator.inputs == (a.node, b.node) and a.node is not b.node
    z.grad = numpy.ones_like(z.array)
    z.backward()
    numpy.testing.assert_array_equal(a.grad, b.array)
    numpy.testing.assert_array_equal(b.grad, a.array)


def test_grad_accepts_gradients_as_inputs_and_outputs():
    _, g = _gradient_of("node")
    y = g * g
    gx, = C.grad([y], [g])
    numpy.testing.assert_array_equal(gx.array, 2 * g.array)
    _, h = _gradient_of("node")
    assert C.grad([h], [h])[0].array.tolist() == [1.0, 1.0]


def test_naming_a_gradient_names_only_it():
    _, g = _gradient_of("node")
    _, other = _gradient_of("node")
    g.name = "g"
    assert g.name == "g" and g.node.name == "g" and g.label == "(2), float32"
    assert other.name is None and _is_pending(other)
    assert _PendingNode(True).name is None


def test_a_new_array_is_what_the_node_describes():
    _, g = _gradient_of("node")
    g.array = numpy.zeros((3, 4), numpy.float64)
    g.to_cpu()
    assert _is_pending(g)
    assert (g.node.shape, g.node.dtype) == ((3, 4), numpy.float64)


def test_graph_edits_make_the_node_first():
    _, g = _gradient_of("node")
    g.retain_data()
    assert g.node.data is g.array
    _, h = _gradient_of("node")
    creator = Triple()
    h.creator_node = creator
    assert h.node.creator_node is creator and h.rank == 1
    _, k = _gradient_of("node")
    k.unchain()
    assert k.creator_node is None and type(k._node) is VariableNode


def test_copies_and_pickles_of_a_gradient():
    _, g = _gradient_of("old_style")
    for clone in (copy.copy(g), copy.deepcopy(g), pickle.loads(pickle.dumps(g))):
        numpy.testing.assert_array_equal(clone.array, g.array)
        assert clone.requires_grad is True
        assert clone.node is not g.node and clone.node() is clone


def test_double_backprop_still_builds_graph_nodes():
    # With the graph recorded, a gradient is an output of a gradient node, never pending.
    x = Variable(f32(1.0, 2.0))
    y = x * x * x
    y.grad = numpy.ones_like(y.array)
    y.backward(enable_double_backprop=True)
    gx = x.grad_var
    assert not _is_pending(gx) and gx.creator is not None
    gx.grad = numpy.ones_like(gx.array)
    x.cleargrad()
    gx.backward()
    numpy.testing.assert_allclose(x.grad, 6 * x.array)


def test_the_stand_in_refuses_what_a_node_would_store():
    # Code that forgets to make the node fails loudly instead of writing to shared state.
    stand_in = _PendingNode(True)
    with pytest.raises(AttributeError):
        stand_in.name = "shared"
    with pytest.raises(AttributeError):
        stand_in.shape  # noqa: B018
    _, g = _gradient_of("node")
    with pytest.raises(AttributeError, match="shared and read-only"):
        g._node._requires_grad = False
    assert g.requires_grad is True and _gradient_of("node")[1].requires_grad is True


def test_without_a_graph_a_gradient_keeps_its_stand_in():
    _, g = _gradient_of("node")
    with C.no_backprop_mode():
        y, = Triple().apply((g,))
    assert _is_pending(g) and _is_pending(y) is False
    numpy.testing.assert_array_equal(y.array, 3 * g.array)
    assert y.requires_grad is True and y.creator is None


def test_two_threads_making_one_node_get_the_same_node(monkeypatch):
    # The window between "still pending?" and "store the node" is widened on purpose: without
    # the lock both threads make a node, and g's gradient is filed under two keys.
    import threading
    import time

    from chainer_compat import variable as variable_module

    _, g = _gradient_of("node")
    assert _is_pending(g)
    make = variable_module._node_for

    def slow_make(*args):
        time.sleep(0.05)
        return make(*args)

    monkeypatch.setattr(variable_module, "_node_for", slow_make)
    outputs = [None, None]

    def apply_twice(slot):
        outputs[slot], = Triple().apply((g,))

    threads = [threading.Thread(target=apply_twice, args=(slot,)) for slot in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    first, second = (y.creator_node.inputs[0] for y in outputs)
    assert first is second is g.node
    total = outputs[0] + outputs[1]
    total.grad = numpy.ones_like(total.array)
    total.backward()
    numpy.testing.assert_array_equal(g.grad, [6.0, 6.0])
