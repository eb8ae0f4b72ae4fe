"""Pins Chainer's ownership swap between an old-style Function and its FunctionAdapter.

Before a Function is applied it owns its adapter; once applied, the adapter (and so the graph)
owns the Function, which keeps only a weak reference back. Every test runs with the cyclic
garbage collector off: these objects must be freed by reference counting alone.
"""

from __future__ import annotations

import weakref

import numpy
import pytest

import chainer_compat as C
import chainer_compat.functions as F
from chainer_compat import utils
from chainer_compat.function import Function, FunctionAdapter

pytestmark = pytest.mark.usefixtures("no_gc")


class Square(Function):
    def forward_cpu(self, inputs):
        return utils.force_array(inputs[0] * inputs[0]),

    def backward_cpu(self, inputs, grad_outputs):
        return utils.force_array(2 * inputs[0] * grad_outputs[0]),


class Stateful(Function):
    """Keeps forward state on itself, as many legacy functions did (a dropout mask)."""

    def forward_cpu(self, inputs):
        x, = inputs
        self.retain_inputs(())
        self.mask = (x > 0).astype(x.dtype)
        return utils.force_array(x * self.mask),

    def backward_cpu(self, inputs, grad_outputs):
        return utils.force_array(grad_outputs[0] * self.mask),


class Failing(Function):
    def forward_cpu(self, inputs):
        raise ValueError("forward failed")


def test_function_dropped_after_the_call_still_backprops():
    x = C.Variable(numpy.array([-1.0, 2.0, 3.0]))
    f = Stateful()
    function_ref = weakref.ref(f)
    y = f(x)
    del f
    assert function_ref() is not None, "the graph must keep an applied Function alive"
    assert y.creator is function_ref()
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 1.0, 1.0])


def test_applied_adapter_owns_the_function_strongly():
    f = Square()
    y = f(C.Variable(numpy.ones(2)))
    adapter = y.creator_node
    assert adapter.function is f
    assert adapter._function is f
    assert f._owned_node is None


def test_applied_function_refers_to_its_adapter_weakly():
    f = Square()
    y = f(C.Variable(numpy.ones(2)))
    adapter_ref = weakref.ref(y.creator_node)
    del y
    assert adapter_ref() is None, "the Function must not keep its applied adapter alive"
    assert f.node is not None and f.node is not adapter_ref()


def test_dropping_the_graph_frees_the_adapter_and_the_function():
    x = C.Variable(numpy.array([1.0, 2.0]))
    f = Square()
    y = f(x)
    refs = [weakref.ref(f), weakref.ref(y.creator_node)]
    del f, y
    assert [ref() for ref in refs] == [None, None]


def test_dropping_the_graph_after_backward_frees_the_adapter_and_the_function():
    x = C.Variable(numpy.array([1.0, 2.0]))
    f = Square()
    y = F.sum(f(x))
    y.backward()
    refs = [weakref.ref(f), weakref.ref(f.node)]
    del f, y
    assert [ref() for ref in refs] == [None, None]
    numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])


def test_a_chain_of_old_style_functions_is_freed_with_its_output():
    x = C.Variable(numpy.array([0.5]))
    h = x
    refs = []
    for _ in range(200):
        f = Square()
        refs.append(weakref.ref(f))
        h = f(h)
    del f
    assert all(ref() is not None for ref in refs)
    del h
    assert all(ref() is None for ref in refs)


def test_never_applied_function_owns_its_adapter():
    f = Square()
    adapter_ref = weakref.ref(f.node)
    assert adapter_ref() is not None, "an unapplied Function must keep its adapter"
    assert f.node is adapter_ref()
    assert isinstance(adapter_ref(), FunctionAdapter)


def test_never_applied_function_frees_its_adapter_with_it():
    f = Square()
    function_ref, adapter_ref = weakref.ref(f), weakref.ref(f.node)
    del f
    assert function_ref() is None
    assert adapter_ref() is None


def test_unapplied_adapter_refers_to_its_function_weakly():
    f = Square()
    adapter = f.node
    function_ref = weakref.ref(f)
    del f
    assert function_ref() is None
    assert adapter.function is None
    assert adapter.label == "FunctionAdapter"


def test_retained_input_arrays_are_freed_with_the_graph():
    array = numpy.array([1.0, 2.0])
    array_ref = weakref.ref(array)
    y = Square()(C.Variable(array))
    del array
    assert array_ref() is not None, "old-style functions retain their inputs by default"
    del y
    assert array_ref() is None


def test_double_backprop_gradients_free_the_graph_with_them():
    x = C.Variable(numpy.array([1.0, 2.0]))
    f = Square()
    loss = F.sum(f(x))
    gx, = C.grad([loss], [x], enable_double_backprop=True)
    refs = [weakref.ref(f), weakref.ref(f.node), weakref.ref(gx.creator_node)]
    del f
    assert all(ref() is not None for ref in refs)
    del loss, gx
    assert [ref() for ref in refs] == [None, None, None]


def test_a_failing_forward_leaves_no_adapter_behind():
    f = Failing()
    with pytest.raises(ValueError, match="forward failed"):
        f(numpy.ones(1))
    adapter_ref = weakref.ref(f.node)
    function_ref = weakref.ref(f)
    del f
    assert function_ref() is None and adapter_ref() is None


def test_creator_set_from_an_unapplied_function_follows_chainer():
    # Chainer's documented caveat: the variable keeps the adapter, which keeps the
    # Function only weakly until it is applied.
    f = Square()
    v = C.Variable(numpy.ones(1))
    v.creator = f
    assert v.creator is f
    del f
    assert v.creator is None
    assert isinstance(v.creator_node, FunctionAdapter)
