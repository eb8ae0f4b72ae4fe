"""FunctionNode: apply, forward dispatch, retention, hooks, and Chainer's errors."""

from __future__ import annotations

import collections
import importlib
import inspect
import pkgutil

import numpy
import pytest

import chainer_compat as C
import chainer_compat.functions
from chainer_compat import FunctionHook, FunctionNode, Variable
from chainer_compat.function_node import _DEVICE_FORWARD_CLASSES
from chainer_compat.utils import type_check


class Twice(FunctionNode):
    def forward_cpu(self, inputs):
        self.device_seen = "cpu"
        return inputs[0] * 2,

    def forward_gpu(self, inputs):
        self.device_seen = "gpu"
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2.0,


class Split(FunctionNode):
    """Two outputs; retains what the test asks for."""

    def __init__(self, retain_in=None, retain_out=None):
        self.retain_in = retain_in
        self.retain_out = retain_out

    def forward(self, inputs):
        x, w = inputs
        if self.retain_in is not None:
            self.retain_inputs(self.retain_in)
        if self.retain_out is not None:
            self.retain_outputs(self.retain_out)
        return x + w, x * w

    def backward(self, indexes, grad_outputs):
        return tuple(None for _ in indexes)


def arr(*values):
    return numpy.array(values, dtype=numpy.float32)


def test_apply_wraps_arrays_into_variables_that_need_no_grad():
    node = Twice()
    y, = node.apply((arr(1.0, 2.0),))
    assert isinstance(y, Variable)
    numpy.testing.assert_array_equal(y.array, [2.0, 4.0])
    assert node.inputs[0].requires_grad is False
    assert y.requires_grad is False


def test_forward_dispatches_to_forward_cpu_for_numpy(xp):
    node = Twice()
    node.apply((xp.ones(2, numpy.float32),))
    assert node.device_seen == ("cpu" if xp is numpy else "gpu")


def test_outputs_require_grad_when_an_input_does():
    x = Variable(arr(1.0))
    c = arr(2.0)
    y, z = Split().apply((x, c))
    assert y.requires_grad and z.requires_grad


def test_rank_is_largest_input_rank_and_outputs_get_one_more():
    x = Variable(arr(1.0))
    a, = Twice().apply((x,))
    b, = Twice().apply((a,))
    node = Split()
    y, _ = node.apply((b, x))
    assert (x.rank, a.rank, b.rank) == (0, 1, 2)
    assert node.rank == 2 and y.rank == 3


def test_graph_is_connected_only_when_backprop_is_enabled():
    x = Variable(arr(1.0))
    with C.no_backprop_mode():
        node = Twice()
        y, = node.apply((x,))
    assert y.creator is None and node.inputs is None
    with C.force_backprop_mode():
        y, = Twice().apply((x,))
    assert y.creator_node is not None


def test_outputs_are_weak_references_and_inputs_are_nodes():
    x = Variable(arr(1.0))
    node = Twice()
    y, = node.apply((x,))
    assert node.inputs == (x.node,)
    assert node.outputs[0]() is y.node


def test_forward_must_return_a_tuple():
    class ReturnsArray(FunctionNode):
        def forward(self, inputs):
            return inputs[0]

    class ReturnsList(FunctionNode):
        def forward(self, inputs):
            return [inputs[0]]

    for cls in (ReturnsArray, ReturnsList):
        with pytest.raises(TypeError, match=r"forward output must be a tuple \(" + cls.__name__):
            cls().apply((arr(1.0),))


def test_forward_returning_a_numpy_scalar_is_explained():
    class ReturnsScalar(FunctionNode):
        def forward(self, inputs):
            return numpy.float32(1.0),

    with pytest.raises(TypeError, match="force_array"):
        ReturnsScalar().apply((arr(1.0),))


@pytest.mark.parametrize("bad", [1.0, [1.0, 2.0], "x"])
def test_non_array_inputs_are_rejected_with_a_hint(bad):
    with pytest.raises(TypeError, match=r"(?s)incompatible array types are mixed in the forward "
                       r"input \(Twice\).*Inputs of Twice must be Variables or NumPy/CuPy arrays"):
        Twice().apply((bad,))


def test_none_input_reaches_forward_as_none():
    # compat: an optional input, as Chainer takes it (an uninitialized Variable, below, is not).
    seen = []

    class Optional(FunctionNode):
        def forward(self, inputs):
            seen.append(inputs[1])
            return inputs[0] * 2,

    y, = Optional().apply((arr(1.0), None))
    assert seen == [None]
    numpy.testing.assert_array_equal(y.array, arr(1.0) * 2)


def test_uninitialized_variable_input_is_explained():
    with pytest.raises(TypeError, match="uninitialized Variable"):
        Twice().apply((Variable(),))


def test_calling_a_function_node_says_to_use_apply():
    with pytest.raises(RuntimeError, match=r"Use apply\(\) method instead"):
        Twice()(arr(1.0))


def test_calling_a_builtin_function_node_says_to_use_apply():
    from chainer_compat.functions.math.exponential import Exp

    with pytest.raises(RuntimeError, match=r"Use FunctionNode.apply\(\) method instead"):
        Exp()(arr(1.0))


def test_nothing_is_retained_by_default():
    x = Variable(arr(1.0))
    node = Split()
    node.apply((x, arr(2.0)))
    assert node.get_retained_inputs() == ()
    assert node.get_retained_outputs() == ()
    assert all(n.data is None for n in node.inputs)


def test_retained_inputs_and_outputs_are_exactly_those_asked_for():
    x = Variable(arr(1.0))
    w = Variable(arr(2.0))
    node = Split(retain_in=(1,), retain_out=(0,))
    y, z = node.apply((x, w))
    assert node.inputs[0].data is None
    assert node.inputs[1].data is w.array
    ins = node.get_retained_inputs()
    assert len(ins) == 1 and ins[0] is w
    outs = node.get_retained_outputs()
    assert len(outs) == 1 and outs[0] is y
    assert z.node.data is None
    assert node.output_data[0] is y.array and node.output_data[1] is None


def test_retained_output_is_resurrected_after_its_variable_is_collected():
    x = Variable(arr(3.0))
    node = Split(retain_out=(1,))
    _, z = node.apply((x, arr(2.0)))
    expected = z.array.copy()
    del z
    out, = node.get_retained_outputs()
    numpy.testing.assert_array_equal(out.array, expected)
    assert out.creator_node is node
    assert node.outputs[1]() is out.node


def test_retain_called_before_apply_does_not_break_apply():
    # compat: Chainer's own tests call retain_* on a fresh node; apply resets them.
    node = Split()
    node.retain_inputs((0,))
    node.retain_outputs((0,))
    node.apply((Variable(arr(1.0)), arr(2.0)))
    assert node.get_retained_inputs() == ()


def test_retain_index_out_of_range_is_explained():
    with pytest.raises(IndexError, match=r"retain_inputs index of Split must be in range\(2\)"):
        Split(retain_in=(5,)).apply((Variable(arr(1.0)), arr(2.0)))


def test_unchain_makes_outputs_roots():
    x = Variable(arr(1.0))
    node = Twice()
    y, = node.apply((x,))
    node.unchain()
    assert y.creator is None and node.inputs is None and node.outputs is None


def test_label_defaults_to_class_name_and_fallback_for_chainerx():
    node = Twice()
    assert node.label == "Twice"
    assert node.forward_chainerx(()) is C.Fallback


def test_type_check_runs_only_when_enabled_and_overridden():
    calls = []

    class Checked(Twice):
        def check_type_forward(self, in_types):
            calls.append(1)
            type_check.expect(in_types[0].dtype == numpy.float32)

    Checked().apply((arr(1.0),))
    assert calls
    calls.clear()
    with C.using_config("type_check", False):
        Checked().apply((arr(1.0),))
    assert not calls


def test_type_check_failure_message_layout():
    class NeedsMatrix(Twice):
        def check_type_forward(self, in_types):
            type_check.expect(in_types[0].ndim == 2)

    with pytest.raises(type_check.InvalidType) as info:
        NeedsMatrix().apply((arr(1.0),))
    text = str(info.value)
    assert "Invalid operation is performed in: NeedsMatrix (Forward)" in text
    assert "Expect: in_types[0].ndim == 2" in text
    assert "Actual: 1 != 2" in text


def test_hooks_are_called_in_order_global_then_local():
    events = []

    class Recorder(FunctionHook):
        def __init__(self, name):
            self.name = name

        def forward_preprocess(self, function, in_data):
            events.append((self.name, "pre", function.label))

        def forward_postprocess(self, function, in_data):
            events.append((self.name, "post", function.label))

    node = Twice()
    handle = node.add_hook(Recorder("local"))
    with Recorder("global"):
        node.apply((arr(1.0),))
    assert events == [("global", "pre", "Twice"), ("local", "pre", "Twice"),
                      ("global", "post", "Twice"), ("local", "post", "Twice")]
    handle.remove()
    handle.remove()
    assert node.local_function_hooks == {}
    assert type(node.local_function_hooks) is collections.OrderedDict  # as Chainer's


def test_add_hook_rejects_duplicates_and_non_hooks():
    node = Twice()
    node.add_hook(FunctionHook())
    with pytest.raises(KeyError, match="already exists"):
        node.add_hook(FunctionHook())
    with pytest.raises(TypeError, match="FunctionHook"):
        node.add_hook(object())
    node.delete_hook("FunctionHook")
    with pytest.raises(KeyError, match="does not exist"):
        node.delete_hook("FunctionHook")


def test_global_hook_name_clash_leaves_first_hook_registered():
    first = FunctionHook()
    with first:
        with pytest.raises(KeyError, match="already exists"):
            with FunctionHook():
                pass
        assert C.get_function_hooks()["FunctionHook"] is first
    assert C.get_function_hooks() == {}


def test_hook_added_and_deleted_callbacks():
    calls = []

    class Hook(FunctionHook):
        def added(self, function):
            calls.append(("added", function))

        def deleted(self, function):
            calls.append(("deleted", function))

    node = Twice()
    with Hook():
        pass
    node.add_hook(Hook())
    node.delete_hook("FunctionHook")
    assert calls == [("added", None), ("deleted", None), ("added", node), ("deleted", node)]


def test_debug_mode_captures_the_stack():
    with C.using_config("debug", True):
        node = Twice()
        node.apply((arr(1.0),))
    assert node.stack is not None
    other = Twice()
    other.apply((arr(1.0),))
    assert other.stack is None


def test_get_error_message_names_function_and_shapes():
    x = Variable(arr(1.0, 2.0))
    node = Twice()
    node.apply((x,))
    text = node._get_error_message("bad")
    assert "function=Twice (Twice)" in text
    assert "input 0: shape=(2,) dtype=float32" in text


def test_output_data_without_retained_outputs_is_explained():
    node = Twice()
    node.apply((Variable(arr(1.0)),))
    with pytest.raises(RuntimeError, match="call retain_outputs"):
        node.output_data


def test_every_class_named_for_forward_by_device_exists_and_answers_forward_cpu():
    # NOTE [forward by device]: a misspelt or vanished name would silently do nothing.
    found = {}
    for info in pkgutil.walk_packages(chainer_compat.functions.__path__,
                                      "chainer_compat.functions."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, FunctionNode):
                found.setdefault(value.__name__, value)
    assert _DEVICE_FORWARD_CLASSES <= set(found)
    for name in _DEVICE_FORWARD_CLASSES:
        cls = found[name]
        assert cls.forward_cpu is not FunctionNode.forward_cpu, name
        assert cls.forward_gpu is not FunctionNode.forward_gpu, name


def test_layouts_other_than_the_standard_one_are_refused_by_the_default_check():
    class WithLayout:
        def __init__(self, layout):
            self.layout = layout

    node = Twice()
    node.output_layouts = ("NHWC",)  # what a forward sets is kept (memory_layouts.AsLayout)
    assert node.output_layouts == ("NHWC",)
    with pytest.raises(TypeError, match="must be a tuple"):
        node.output_layouts = [None]
    with pytest.raises(RuntimeError, match="non-standard layouts"):
        node.check_layout_forward((WithLayout(None), WithLayout("NHWC")))
    node.is_elementwise = True
    with pytest.raises(RuntimeError, match="mixed memory layouts"):
        node.check_layout_forward((WithLayout(None), WithLayout("NHWC")))
    assert node.check_layout_forward((WithLayout("NHWC"), WithLayout("NHWC"))) is None
