"""How a graph is laid out in objects: few of them, and the documented views still hold.

A VariableNode is itself the weak reference to its Variable (NOTE [node as weak reference]),
and one-input, one-output nodes keep their links without 1-tuples (NOTE [compact links]).
These tests pin both the object count that makes large graphs cheap for CPython's cyclic
garbage collector and the public behaviour that must not change because of it.
"""

from __future__ import annotations

import copy
import gc
import weakref

import numpy
import pytest
from sample_functions import OldStyleSquare

import chainer_compat as C
from chainer_compat import FunctionNode, Variable
from chainer_compat.autograd import Function as CtxFunction


def f32(*values):
    return numpy.array(values, numpy.float32)


class Double(FunctionNode):
    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2.0,


class Split(FunctionNode):
    """Two inputs, two outputs: the tuple-backed form."""

    def forward(self, inputs):
        a, b = inputs
        return a + b, a - b

    def backward(self, indexes, grad_outputs):
        ga, gb = grad_outputs
        return ga + gb, ga - gb


class CtxDouble(CtxFunction):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, gy):
        return gy * 2


def _tracked_per_node(build, count=400):
    gc.collect()
    before = len(gc.get_objects())
    kept = build(count)
    gc.collect()
    after = len(gc.get_objects())
    del kept
    return (after - before) / count


def _chain(apply_one):
    def build(count):
        h = Variable(f32(0.0))  # stays 0: no overflow however long the chain
        for _ in range(count):
            h = apply_one(h)
        return h
    return build


# ---------------------------------------------------------------------- object counts
@pytest.mark.parametrize("style, limit", [
    # the FunctionNode, its output's VariableNode, the weak reference to that node
    ("node", 3),
    # plus the Function (which reaches its adapter through the output's weak reference)
    ("old_style", 4),
    # plus the ctx object
    ("ctx", 4),
])
def test_a_chain_node_leaves_few_objects_for_the_garbage_collector(no_gc, style, limit):
    apply_one = {
        "node": lambda h: Double().apply((h,))[0],
        "old_style": lambda h: OldStyleSquare()(h),
        "ctx": CtxDouble.apply,
    }[style]
    per_node = _tracked_per_node(_chain(apply_one))
    assert per_node <= limit + 0.05, (
        f"each {style} chain node must leave at most {limit} gc-tracked objects, got "
        f"{per_node:.2f}")


# ---------------------------------------------------------------------- nodes as weakrefs
def test_a_node_gives_its_variable_until_the_variable_is_collected():
    x = Variable(f32(1.0))
    node = x.node
    assert node.get_variable_or_none() is x and node.get_variable() is x
    del x
    assert node.get_variable_or_none() is None


def test_nodes_hash_and_compare_by_identity_even_once_their_variable_is_gone():
    x = Variable(f32(1.0))
    node, other = x.node, Variable(f32(1.0)).node
    del x  # a weakref.ref would now refuse to be hashed
    table = {node: "a", other: "b"}
    assert table[node] == "a" and table[other] == "b"
    assert node == node and node != other and not (node == other)
    assert hash(node) != hash(other)


def test_a_revived_variable_is_the_one_the_node_reports_and_backward_fills():
    x = Variable(f32(3.0))
    y = x * 2.0
    node = y.node
    node.retain_data()
    del y
    revived = node.get_variable()
    assert node.get_variable_or_none() is revived and node.get_variable() is revived
    z = revived * 5.0
    z.backward(retain_grad=True)
    assert revived.grad is not None and revived.grad.tolist() == [5.0]
    assert x.grad.tolist() == [10.0]


# ---------------------------------------------------------------------- inputs and outputs
def test_one_input_one_output_node_shows_tuples():
    x = Variable(f32(1.0))
    y, = (func := Double()).apply((x,))
    assert func.inputs == (x.node,) and type(func.inputs) is tuple
    assert type(func.outputs) is tuple and len(func.outputs) == 1
    assert func.outputs[0]() is y.node


def test_several_inputs_and_outputs_show_tuples_in_order():
    a, b = Variable(f32(1.0)), Variable(f32(2.0))
    func = Split()
    s, d = func.apply((a, b))
    assert func.inputs == (a.node, b.node)
    assert [ref() for ref in func.outputs] == [s.node, d.node]


def test_a_node_never_applied_has_no_links():
    func = Double()
    assert func.inputs is None and func.outputs is None


def test_links_assigned_by_hand_read_back_as_tuples_and_drive_backward():
    # Legacy code builds graphs by assigning inputs/outputs (as _OldStyleGradient does).
    x = Variable(f32(2.0))
    y = Variable(f32(4.0))
    func = Double()
    func.inputs = [x.node]
    func.outputs = [weakref.ref(y.node)]
    y.node.set_creator_node(func)
    assert func.inputs == (x.node,) and func.outputs[0]() is y.node
    y.grad = f32(1.0)
    y.backward()
    assert x.grad.tolist() == [2.0]
    func.inputs = None
    func.outputs = None
    assert func.inputs is None and func.outputs is None


def test_unchain_drops_both_links():
    x = Variable(f32(1.0))
    func = Double()
    y, = func.apply((x,))
    y.creator_node.unchain()
    assert func.inputs is None and func.outputs is None


def test_backprop_through_one_and_several_link_forms_matches_by_hand():
    a, b = Variable(f32(1.0)), Variable(f32(2.0))
    s, d = Split().apply((a, b))
    loss = Double().apply((s,))[0] * 3.0 + d
    loss.backward()
    # loss = 6 (a + b) + (a - b)
    assert a.grad.tolist() == [7.0] and b.grad.tolist() == [5.0]
    assert C.grad([loss], [a])[0].array.tolist() == [7.0]


# ---------------------------------------------------------------------- copying and repr
@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy])
def test_a_node_copies_refer_to_the_same_variable_and_keep_its_fields(copier):
    x = Variable(f32(1.0, 2.0), name="x")
    y, = Double().apply((x,))
    node = y.node
    copied = copier(node)
    assert copied is not node and type(copied) is type(node)
    assert copied.get_variable_or_none() is y  # the weak reference is shared, as Chainer's was
    assert copied.name == node.name and copied.rank == node.rank and copied.shape == node.shape
    assert (copied.creator_node is node.creator_node) is (copier is copy.copy)


def test_a_node_whose_variable_is_gone_copies_to_a_node_with_a_dead_reference():
    y, = Double().apply((Variable(f32(1.0)),))
    node = y.node
    node.retain_data()
    del y
    for copied in (copy.copy(node), copy.deepcopy(node)):
        assert copied.get_variable_or_none() is None
        numpy.testing.assert_array_equal(copied.data, node.data)


def test_a_graph_deep_copies_through_its_nodes():
    x = Variable(f32(3.0))
    y, = Double().apply((x,))
    func = copy.deepcopy(y.creator_node)
    assert func is not y.creator_node and func.inputs[0] is not x.node
    assert func.inputs[0].get_variable_or_none() is x


def test_a_node_reprs_as_a_graph_object_not_as_a_weak_reference():
    node = Variable(f32(1.0)).node
    assert repr(node).startswith("<chainer_compat.variable.VariableNode object at 0x")


# ---------------------------------------------------------------------- users' own attributes
class KeepsItsOwnInputs(FunctionNode):
    """A user function that names its own fields _inputs and _outputs, as legacy code may."""

    def forward(self, inputs):
        self._inputs = inputs
        self._outputs = (inputs[0] * inputs[1],)
        return self._outputs

    def backward(self, indexes, grad_outputs):
        a, b = self._inputs
        gy = grad_outputs[0]
        return gy * b, gy * a


def test_a_function_may_keep_its_own_inputs_and_outputs_fields():
    a, b = Variable(f32(2.0, 2.0)), Variable(f32(3.0, 3.0))
    y, = KeepsItsOwnInputs().apply((a, b))
    y.grad = f32(1.0, 1.0)
    y.backward()
    assert a.grad.tolist() == [3.0, 3.0] and b.grad.tolist() == [2.0, 2.0]
