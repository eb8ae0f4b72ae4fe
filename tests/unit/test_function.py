"""Old-style ``chainer.Function`` through ``FunctionAdapter``: legacy functions run unchanged.

The functions at the top are written the way Chainer users wrote them (CPU/GPU method pairs,
several outputs, None gradients, ``retain_inputs(())``, ``retain_outputs`` with ``output_data``,
``check_type_forward``); the tests run them alone and mixed with new-style FunctionNodes.
"""

from __future__ import annotations

import weakref

import numpy
import pytest

import chainer_compat as C
import chainer_compat.functions as F
from chainer_compat import function, function_node, gradient_check, utils
from chainer_compat.backends import cuda
from chainer_compat.configuration import using_config
from chainer_compat.function import Function, FunctionAdapter, FunctionHook
from chainer_compat.utils import type_check


# ------------------------------------------------------------------------------------------------
# Legacy functions, as users wrote them
# ------------------------------------------------------------------------------------------------
class LinearFunction(function.Function):
    """y = x W^T (+ b): optional third input, a type check, xp-agnostic forward/backward."""

    def check_type_forward(self, in_types):
        n_in = in_types.size()
        type_check.expect(2 <= n_in, n_in <= 3)
        x_type, w_type = in_types[:2]
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype == x_type.dtype,
            x_type.ndim == 2,
            w_type.ndim == 2,
            x_type.shape[1] == w_type.shape[1],
        )
        if type_check.eval(n_in) == 3:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[0],
            )

    def forward(self, inputs):
        x, W = inputs[:2]
        y = x.dot(W.T).astype(x.dtype, copy=False)
        if len(inputs) == 3:
            y += inputs[2]
        return y,

    def backward(self, inputs, grad_outputs):
        x, W = inputs[:2]
        gy = grad_outputs[0]
        gx = gy.dot(W).astype(x.dtype, copy=False)
        gW = gy.T.dot(x).astype(W.dtype, copy=False)
        if len(inputs) == 3:
            return gx, gW, gy.sum(0)
        return gx, gW


class ReLU(function.Function):
    """Keeps no input, only its output, and reads it back through ``output_data``."""

    def __init__(self):
        self.backward_inputs = None

    def forward_cpu(self, x):
        self.retain_inputs(())
        self.retain_outputs((0,))
        return utils.force_array(numpy.maximum(x[0], 0, dtype=x[0].dtype)),

    def forward_gpu(self, x):
        self.retain_inputs(())
        self.retain_outputs((0,))
        return cuda.cupy.maximum(x[0], 0),

    def backward_cpu(self, x, gy):
        self.backward_inputs = x
        y = self.output_data[0]
        return utils.force_array(gy[0] * (y > 0)),

    def backward_gpu(self, x, gy):
        self.backward_inputs = x
        y = self.output_data[0]
        return cuda.elementwise(
            "T y, T gy", "T gx", "gx = y > 0 ? gy : (T)0", "relu_bwd")(y, gy[0]),


class SinCos(function.Function):
    """Two outputs; backward copes with a None gradient for either of them."""

    def __init__(self):
        self.grad_outputs_seen = None

    def forward(self, inputs):
        xp = cuda.get_array_module(*inputs)
        x, = inputs
        return utils.force_array(xp.sin(x)), utils.force_array(xp.cos(x))

    def backward(self, inputs, grad_outputs):
        self.grad_outputs_seen = grad_outputs
        xp = cuda.get_array_module(*inputs)
        x, = inputs
        gsin, gcos = grad_outputs
        gx = xp.zeros_like(x)
        if gsin is not None:
            gx += gsin * xp.cos(x)
        if gcos is not None:
            gx -= gcos * xp.sin(x)
        return gx,


class EmbedIDFunction(function.Function):
    """Integer ids select rows of W; the ids get no gradient (None)."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        x_type, w_type = in_types
        type_check.expect(x_type.dtype.kind == "i", w_type.ndim == 2)

    def forward(self, inputs):
        x, W = inputs
        self.retain_inputs((0,))  # W is not needed, only its shape
        self._w_shape = W.shape
        return W.take(x, axis=0),

    def backward(self, inputs, grad_outputs):
        xp = cuda.get_array_module(*grad_outputs)
        x, W = inputs
        assert W is None, "W was not retained"
        gy = grad_outputs[0]
        gW = xp.zeros(self._w_shape, gy.dtype)
        xp.add.at(gW, x, gy)
        return None, gW


class Square(function.Function):
    def forward_cpu(self, inputs):
        return utils.force_array(inputs[0] * inputs[0]),

    def backward_cpu(self, inputs, grad_outputs):
        return utils.force_array(2 * inputs[0] * grad_outputs[0]),


class Recorder(function.Function):
    """Identity that records which implementation ran and what backward received."""

    def __init__(self):
        self.calls = []
        self.backward_args = None

    def forward_cpu(self, inputs):
        self.calls.append("forward_cpu")
        return tuple(x.copy() for x in inputs)

    def forward_gpu(self, inputs):
        self.calls.append("forward_gpu")
        return tuple(x.copy() for x in inputs)

    def backward_cpu(self, inputs, grad_outputs):
        self.calls.append("backward_cpu")
        self.backward_args = (inputs, grad_outputs)
        return grad_outputs

    def backward_gpu(self, inputs, grad_outputs):
        self.calls.append("backward_gpu")
        self.backward_args = (inputs, grad_outputs)
        return grad_outputs


class Twice(C.FunctionNode):
    """A new-style node to mix with the old-style ones."""

    def forward(self, inputs):
        return utils.force_array(inputs[0] * 2),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2,


def twice(x):
    return Twice().apply((x,))[0]


# ------------------------------------------------------------------------------------------------
# Helpers
# ------------------------------------------------------------------------------------------------
def _numerical_grads(fn, arrays, grad_output, eps=1e-6):
    """Central differences of sum(grad_output * fn(*arrays)) for float64 arrays."""
    grads = []
    for array in arrays:
        grad = numpy.zeros_like(array)
        for index in numpy.ndindex(array.shape):
            original = array[index]
            array[index] = original + eps
            plus = numpy.sum(grad_output * fn(*arrays))
            array[index] = original - eps
            minus = numpy.sum(grad_output * fn(*arrays))
            array[index] = original
            grad[index] = (plus - minus) / (2 * eps)
        grads.append(grad)
    return grads


def _random(*shape, seed=0):
    return numpy.random.default_rng(seed + len(shape)).uniform(-1, 1, shape)


class RecordingHook(FunctionHook):
    name = "RecordingHook"

    def __init__(self):
        self.log = []

    def forward_preprocess(self, function, in_data):
        self.log.append(("forward", function.label))

    def backward_preprocess(self, function, in_data, out_grad):
        self.log.append(("backward", function.label))


# ------------------------------------------------------------------------------------------------
# Calling and dispatch
# ------------------------------------------------------------------------------------------------
def test_call_returns_a_variable_for_one_output_and_a_tuple_for_several():
    x = C.Variable(_random(3))
    y = Square()(x)
    outputs = SinCos()(x)
    assert isinstance(y, C.Variable)
    numpy.testing.assert_array_equal(y.array, x.array ** 2)
    assert type(outputs) is tuple and len(outputs) == 2
    numpy.testing.assert_allclose(outputs[0].array, numpy.sin(x.array))
    numpy.testing.assert_allclose(outputs[1].array, numpy.cos(x.array))


def test_call_accepts_raw_arrays_as_inputs_that_need_no_gradient():
    x = _random(2, 3)
    W = C.Variable(_random(4, 3))
    y = LinearFunction()(x, W)
    y.grad = numpy.ones((2, 4))
    y.backward()
    numpy.testing.assert_allclose(W.grad, numpy.ones((2, 4)).T.dot(x))
    assert y.creator.inputs[0].requires_grad is False


def test_numpy_inputs_run_the_cpu_methods():
    f = Recorder()
    x = C.Variable(_random(2))
    y = f(x)
    y.grad = numpy.ones(2)
    y.backward()
    assert f.calls == ["forward_cpu", "backward_cpu"]


def test_missing_forward_cpu_raises_not_implemented_error_naming_the_function():
    class OnlyGpu(Function):
        def forward_gpu(self, inputs):
            return inputs

    with pytest.raises(NotImplementedError, match="OnlyGpu"):
        OnlyGpu()(numpy.zeros(1))


def test_default_backward_returns_one_none_per_input():
    f = Function()
    a, b, g = numpy.zeros(1), numpy.zeros(2), numpy.ones(1)
    assert f.backward_cpu((a, b), (g,)) == (None, None)
    assert f.backward_gpu((a, b), (g,)) == (None, None)
    assert f.backward((a, b), (g,)) == (None, None)


def test_function_without_backward_gives_its_inputs_no_gradient():
    class Forward(Function):
        def forward_cpu(self, inputs):
            return utils.force_array(inputs[0] + 1),

    x = C.Variable(_random(2))
    y = Forward()(x) + x
    y.grad = numpy.ones(2)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.ones(2))


def test_overridden_forward_and_backward_are_used_instead_of_the_dispatch():
    x = C.Variable(_random(3))
    f = SinCos()
    s, _ = f(x)
    s.grad = numpy.ones(3)
    s.backward()
    numpy.testing.assert_allclose(x.grad, numpy.cos(x.array))


# ------------------------------------------------------------------------------------------------
# Graph: creator, node, inputs and outputs
# ------------------------------------------------------------------------------------------------
def test_creator_is_the_function_and_creator_node_its_adapter():
    f = Square()
    x = C.Variable(_random(2))
    y = f(x)
    assert y.creator is f
    assert y.node.creator is f
    assert isinstance(y.creator_node, FunctionAdapter)
    assert isinstance(y.creator_node, C.FunctionNode)
    assert y.creator_node.function is f
    assert f.node is y.creator_node


def test_node_is_created_on_demand_and_is_the_one_applied():
    f = Square()
    node = f.node
    assert f.node is node
    assert node.function is f
    assert node.label == "Square"
    y = f(C.Variable(_random(2)))
    assert y.creator_node is node


def test_node_stays_the_applied_adapter_while_the_user_holds_it():
    f = Square()
    y = f(C.Variable(_random(2)))
    node = f.node  # handed out: from now on f keeps a true weak reference
    del y  # the adapter's outputs are gone; the user still holds the adapter
    assert f.node is node and node.function is f


def test_node_is_fresh_once_the_adapter_and_its_outputs_are_gone(no_gc):
    f = Square()
    y = f(C.Variable(_random(2)))
    adapter = weakref.ref(y.creator_node)
    del y
    assert adapter() is None  # freed by reference counting alone
    fresh = f.node
    assert fresh.function is f and fresh.inputs is None


def test_compat_an_adapter_reached_only_from_the_graph_is_not_found_after_its_outputs_die():
    # compat: the documented difference of NOTE [adapter ownership]: Chainer's Function would
    # still return this adapter; ours makes a fresh one, as Chainer does once it is collected.
    f = Square()
    y = f(C.Variable(_random(2)))
    kept = y.creator_node
    del y
    assert f.node is not kept and kept.function is f


def test_a_second_call_reuses_the_adapter_of_the_first_while_its_outputs_live():
    f = Square()
    y1 = f(C.Variable(_random(2)))
    first = y1.creator_node
    y2 = f(C.Variable(_random(2)))
    assert y2.creator_node is first


def test_a_failed_call_leaves_no_cycle_between_function_and_adapter(no_gc):
    class Fails(function.Function):
        def forward_cpu(self, inputs):
            self.retain_inputs(())  # reaches the adapter mid-call
            raise ValueError("boom")

    f = Fails()
    with pytest.raises(ValueError, match="boom"):
        f(C.Variable(_random(2)))
    adapter = f.node
    adapter_ref, function_ref = weakref.ref(adapter), weakref.ref(f)
    del f, adapter
    assert function_ref() is None and adapter_ref() is None


def test_a_call_after_a_failed_one_reuses_the_adapter_the_user_holds():
    class FailsOnce(function.Function):
        failed = False

        def forward_cpu(self, inputs):
            if not self.failed:
                self.failed = True
                raise ValueError("boom")
            return inputs[0] * 2,

    f = FailsOnce()
    adapter = f.node  # owned by f until the first call
    with pytest.raises(ValueError, match="boom"):
        f(C.Variable(_random(2)))
    y = f(C.Variable(_random(2)))
    assert y.creator_node is adapter and f.node is adapter and adapter.function is f


def test_a_function_called_without_backprop_records_its_graph_when_called_again():
    f = Square()
    held = f.node
    with C.no_backprop_mode():
        assert f(C.Variable(_random(2))).creator is None
    y = f(C.Variable(_random(2)))
    assert y.creator is f and y.creator_node is held
    fresh = Square()
    with C.no_backprop_mode():
        fresh(C.Variable(_random(2)))
    y = fresh(C.Variable(_random(2)))
    assert y.creator is fresh and fresh.node is y.creator_node


def test_setting_creator_to_a_function_stores_its_adapter():
    f = Square()
    x = C.Variable(_random(2))
    y = f(x)
    v = C.Variable(_random(2))
    v.creator = f
    assert v.creator_node is y.creator_node
    assert v.creator is f
    assert v.rank == f.rank + 1


def test_inputs_are_nodes_and_outputs_weak_references_to_nodes():
    f = LinearFunction()
    x, W = C.Variable(_random(2, 3)), C.Variable(_random(4, 3))
    y = f(x, W)
    assert f.inputs == (x.node, W.node)
    assert len(f.outputs) == 1
    assert f.outputs[0]() is y.node


def test_rank_is_one_above_the_highest_input_rank():
    x = C.Variable(_random(2))
    f, g = Square(), Square()
    h = g(twice(f(x)))
    assert f.rank == 0
    assert g.rank == 2
    assert h.rank == 3


def test_label_is_the_class_name_unless_overridden():
    class Named(Square):
        @property
        def label(self):
            return "named-square"

    assert Square().label == "Square"
    y = Named()(numpy.ones(1))
    assert y.creator.label == "named-square"
    assert y.creator_node.label == "named-square"


def test_stack_is_recorded_only_in_debug_mode():
    f = Square()
    y = f(C.Variable(_random(1)))
    assert y.creator is f
    assert f.stack is None
    g = Square()
    with using_config("debug", True):
        z = g(C.Variable(_random(1)))
    assert g.stack
    assert z.creator is g
    assert any("test_function" in frame.filename for frame in g.stack)


def test_unchain_makes_the_outputs_roots():
    f = Square()
    x = C.Variable(_random(2))
    y = f(x)
    f.unchain()
    assert y.creator is None
    assert f.inputs is None
    y.grad = numpy.ones(2)
    y.backward()
    assert x.grad is None


def test_no_backprop_mode_records_no_graph_for_old_style_functions():
    x = C.Variable(_random(2))
    with function.no_backprop_mode():
        y = Square()(x)
        with function.force_backprop_mode():
            z = Square()(x)
    assert y.creator is None
    assert z.creator is not None


def test_legacy_names_are_reexported_from_the_function_module():
    from chainer_compat import configuration, function_hook

    assert function.no_backprop_mode is configuration.no_backprop_mode
    assert function.force_backprop_mode is configuration.force_backprop_mode
    assert function.FunctionHook is function_hook.FunctionHook


# ------------------------------------------------------------------------------------------------
# Retaining inputs and outputs
# ------------------------------------------------------------------------------------------------
def test_all_inputs_are_retained_by_default():
    f = Recorder()
    a, b = C.Variable(_random(2)), C.Variable(_random(3))
    ya, yb = f(a, b)
    assert a.node.data is a.array and b.node.data is b.array
    ya.grad, yb.grad = numpy.ones(2), numpy.ones(3)
    C.backward([ya, yb], [ya.grad_var, yb.grad_var])
    inputs, _ = f.backward_args
    assert inputs[0] is a.array and inputs[1] is b.array


def test_an_input_kept_by_another_function_is_still_none_for_one_that_kept_nothing():
    # The input's node holds an array (Square kept it), but ReLU asked for none: its backward
    # must still get None, whichever internal path (one input or several) builds its arguments.
    f = ReLU()
    x = C.Variable(numpy.array([-1.0, 0.5, 2.0]))
    y = f(x)
    z = Square()(x)
    assert x.node.data is not None
    F.sum(y + z).backward()
    assert f.backward_inputs == (None,)
    numpy.testing.assert_array_equal(x.grad, [0.0, 1.0, 1.0] + 2 * x.array)


def test_retain_inputs_empty_gives_backward_none_for_every_input():
    f = ReLU()
    x = C.Variable(numpy.array([-1.0, 0.5, 2.0]))
    y = f(x)
    assert x.node.data is None
    y.grad = numpy.ones(3)
    y.backward()
    assert f.backward_inputs == (None,)
    numpy.testing.assert_array_equal(x.grad, [0.0, 1.0, 1.0])


def test_retain_inputs_subset_gives_backward_none_for_the_others():
    f = EmbedIDFunction()
    ids = numpy.array([0, 2, 2])
    W = C.Variable(_random(3, 2))
    y = f(ids, W)
    assert W.node.data is None
    y.grad = numpy.ones((3, 2))
    y.backward()  # backward asserts it got None for W
    numpy.testing.assert_array_equal(W.grad, [[1, 1], [0, 0], [2, 2]])


def test_output_data_holds_retained_outputs_and_none_for_the_others():
    class SinCosKeepingCos(SinCos):
        def forward(self, inputs):
            self.retain_outputs((1,))
            return super().forward(inputs)

    f = SinCosKeepingCos()
    x = C.Variable(_random(3))
    _, c = f(x)
    assert f.output_data[0] is None
    assert f.output_data[1] is c.array
    assert len(f.output_data) == 2


def test_output_data_without_retain_outputs_says_to_call_it():
    f = Square()
    y = f(C.Variable(_random(2)))
    assert y.creator is f
    with pytest.raises(RuntimeError, match=r"retain_outputs") as error:
        _ = f.output_data
    assert "Square" in str(error.value)


def test_retain_after_backward_is_deprecated_and_ignored():
    class Keeps(Square):
        def forward_cpu(self, inputs):
            self.retain_outputs((0,), retain_after_backward=True)
            return super().forward_cpu(inputs)

    f = Keeps()
    with pytest.warns(DeprecationWarning, match="retain_after_backward"):
        y = f(C.Variable(_random(2)))
    assert f.output_data[0] is y.array


# ------------------------------------------------------------------------------------------------
# Backward: what it receives and what it may return
# ------------------------------------------------------------------------------------------------
def test_backward_gets_none_for_outputs_without_gradient():
    f = SinCos()
    x = C.Variable(_random(3))
    s, _ = f(x)
    F.sum(s).backward()
    assert f.grad_outputs_seen[1] is None
    assert isinstance(f.grad_outputs_seen[0], numpy.ndarray)
    numpy.testing.assert_allclose(x.grad, numpy.cos(x.array))


def test_backward_gets_arrays_not_variables():
    f = Recorder()
    x = C.Variable(_random(2))
    y = f(x)
    y.grad = numpy.full(2, 3.0)
    y.backward()
    inputs, grad_outputs = f.backward_args
    assert type(inputs) is tuple and type(grad_outputs) is tuple
    assert type(inputs[0]) is numpy.ndarray and type(grad_outputs[0]) is numpy.ndarray
    numpy.testing.assert_array_equal(grad_outputs[0], [3.0, 3.0])


def test_backward_may_return_a_list():
    class ListBackward(Square):
        def backward_cpu(self, inputs, grad_outputs):
            return list(super().backward_cpu(inputs, grad_outputs))

    x = C.Variable(numpy.array([1.0, 2.0]))
    F.sum(ListBackward()(x)).backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])


def _backprop_through(func_class, x_array):
    y = func_class()(C.Variable(x_array))
    y.grad = numpy.ones_like(y.array)
    y.backward()


def test_backward_returning_a_bare_array_is_a_type_error_suggesting_a_tuple():
    class Bare(Square):
        def backward_cpu(self, inputs, grad_outputs):
            return 2 * inputs[0] * grad_outputs[0]

    with pytest.raises(TypeError, match=r"Bare.*tuple.*\(gx,\)"):
        _backprop_through(Bare, numpy.ones(2))


class _ScaleFirst(function.Function):
    """2 x, with a label input; its backward returns ``self.returned(gy)``."""

    def __init__(self, returned):
        self.returned = returned

    def forward_cpu(self, inputs):
        return utils.force_array(inputs[0] * 2),

    def backward_cpu(self, inputs, grad_outputs):
        return self.returned(grad_outputs[0] * 2)


@pytest.mark.parametrize("returned", [
    lambda gx: (gx,),  # nothing for the label, which needs no gradient
    lambda gx: (gx, None, None),  # one gradient too many
    lambda gx: [gx],
])
def test_backward_may_skip_or_add_gradients_nobody_reads(returned):
    # compat: Chainer's adapter reads only the target inputs' gradients, and legacy code
    # relies on it (a label input gets no entry).
    x = C.Variable(numpy.array([1.0, 2.0]))
    labels = numpy.array([0, 1], numpy.int32)
    F.sum(_ScaleFirst(returned)(x, labels)).backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 2.0])


def test_backward_missing_a_needed_gradient_names_the_function_and_the_input():
    x = C.Variable(numpy.array([1.0, 2.0]))
    w = C.Variable(numpy.array([3.0, 4.0]))
    with pytest.raises(ValueError,
                       match=r"_ScaleFirst.*for input 1, which needs one, got 1") as info:
        F.sum(_ScaleFirst(lambda gx: (gx,))(x, w)).backward()
    assert isinstance(info.value, IndexError)  # compat: Chainer's type there
    assert x.grad is None and w.grad is None  # nothing half-accumulated


def test_backward_returning_a_wrong_shape_names_the_function():
    class WrongShape(Square):
        def backward_cpu(self, inputs, grad_outputs):
            return numpy.ones(3),

    with pytest.raises(ValueError, match=r"(?s)WrongShape.*Shape of data and grad mismatch"):
        _backprop_through(WrongShape, numpy.ones(2))


def test_backward_returning_a_wrong_dtype_names_the_function():
    class WrongDtype(Square):
        def backward_cpu(self, inputs, grad_outputs):
            return grad_outputs[0].astype(numpy.float32),

    with pytest.raises(TypeError, match=r"(?s)WrongDtype.*Dtype of data and grad mismatch"):
        _backprop_through(WrongDtype, numpy.ones(2))


@pytest.mark.parametrize("entry", ["backward", "double_backprop", "grad", "hook", "debug"])
def test_a_one_input_functions_wrong_gradient_is_rejected_by_every_engine_path(entry):
    # The adapter leaves this check to the engine (compat note in FunctionAdapter.backward).
    class WrongShape(Square):
        def backward_cpu(self, inputs, grad_outputs):
            return numpy.ones(3),

    x = C.Variable(numpy.ones(2))
    y = WrongShape()(x)
    with pytest.raises(ValueError, match=r"(?s)WrongShape.*Shape of data and grad mismatch"):
        if entry == "grad":
            C.grad([y], [x], [C.Variable(numpy.ones(2))])
        elif entry == "hook":
            with RecordingHook():
                y.grad = numpy.ones(2)
                y.backward()
        else:
            y.grad = numpy.ones(2)
            with C.using_config("debug", entry == "debug"):
                y.backward(enable_double_backprop=entry == "double_backprop")
    assert x.grad is None  # nothing half accumulated


@pytest.mark.parametrize("gradient", [1.0, 1, [1.0, 1.0], numpy.float64(1.0)], ids=repr)
def test_a_one_input_functions_non_array_gradient_is_a_type_error_naming_it(gradient):
    class NotAnArray(Square):
        def backward_cpu(self, inputs, grad_outputs):
            return gradient,

    with pytest.raises(TypeError, match=r"(?s)NotAnArray.*Type of grad is invalid"):
        _backprop_through(NotAnArray, numpy.ones(2))


def test_wrong_gradient_of_an_input_that_needs_none_is_still_rejected():
    class WrongForConstant(Function):
        def forward_cpu(self, inputs):
            return utils.force_array(inputs[0] * inputs[1]),

        def backward_cpu(self, inputs, grad_outputs):
            return grad_outputs[0] * inputs[1], numpy.ones(5)

    x = C.Variable(numpy.ones(2))
    y = WrongForConstant()(x, numpy.ones(2))
    y.grad = numpy.ones(2)
    with pytest.raises(ValueError, match="WrongForConstant"):
        y.backward()


# ------------------------------------------------------------------------------------------------
# Gradients, checked numerically
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("with_bias", [False, True])
def test_linear_gradients_pass_check_backward(with_bias):
    inputs = (_random(4, 3), _random(2, 3, seed=1))
    if with_bias:
        inputs += (_random(2, seed=2),)
    gradient_check.check_backward(LinearFunction(), inputs, _random(4, 2, seed=3))


def test_relu_gradients_pass_check_backward():
    x = numpy.array([-0.8, -0.3, 0.4, 0.9])
    gradient_check.check_backward(lambda x: ReLU()(x), x, _random(4, seed=5))


def test_two_output_gradients_pass_check_backward_including_a_missing_gradient():
    x = _random(5)
    gradient_check.check_backward(SinCos(), x, (_random(5, seed=1), _random(5, seed=2)))
    gradient_check.check_backward(lambda x: SinCos()(x)[0], x, _random(5, seed=3))


def test_integer_input_gradients_pass_check_backward():
    ids = numpy.array([1, 0, 1], numpy.int32)
    gradient_check.check_backward(
        EmbedIDFunction(), (ids, _random(2, 3)), _random(3, 3, seed=4))


def test_mixed_graph_gradients_pass_check_backward():
    def mixed(x, W, b):
        h = F.exp(LinearFunction()(twice(x), W, b))
        s, c = SinCos()(h)
        return ReLU()(s + twice(c))

    inputs = (_random(3, 2) * 0.5, _random(4, 2, seed=1) * 0.5, _random(4, seed=2) * 0.5)
    gradient_check.check_backward(mixed, inputs, _random(3, 4, seed=3))


def test_mixed_graph_gradients_match_finite_differences():
    x, W, b = _random(3, 2), _random(4, 2, seed=1), _random(4, seed=2)
    gy = _random(3, 4, seed=3)

    def reference(x, W, b):
        h = numpy.exp((2 * x).dot(W.T) + b)
        return numpy.sin(h) + 2 * numpy.cos(h) ** 2

    xv, Wv, bv = C.Variable(x.copy()), C.Variable(W.copy()), C.Variable(b.copy())
    h = F.exp(LinearFunction()(twice(xv), Wv, bv))
    s, c = SinCos()(h)
    y = s + 2 * Square()(c)
    y.grad = gy
    y.backward()
    numpy.testing.assert_allclose(y.array, reference(x, W, b))
    expected = _numerical_grads(reference, [x, W, b], gy)
    for variable, grad in zip((xv, Wv, bv), expected):
        numpy.testing.assert_allclose(variable.grad, grad, rtol=1e-5, atol=1e-7)


def test_input_used_twice_accumulates_both_gradients():
    class MulAdd(Function):
        def forward_cpu(self, inputs):
            x, y, z = inputs
            return utils.force_array(x * y + z),

        def backward_cpu(self, inputs, grad_outputs):
            x, y, _ = inputs
            gw = grad_outputs[0]
            return gw * y, gw * x, gw

    x = C.Variable(numpy.array([1.5, -2.0]))
    z = C.Variable(numpy.array([0.5, 0.5]))
    F.sum(MulAdd()(x, x, z)).backward()
    numpy.testing.assert_array_equal(x.grad, 2 * x.array)
    numpy.testing.assert_array_equal(z.grad, [1.0, 1.0])


def test_chainer_grad_reaches_inputs_through_old_style_functions():
    x = C.Variable(numpy.array([1.0, 3.0]))
    y = twice(Square()(twice(x)))
    gx, = C.grad([y], [x], grad_outputs=[numpy.ones(2)])
    numpy.testing.assert_array_equal(gx.array, 16 * x.array)
    assert x.grad is None


# ------------------------------------------------------------------------------------------------
# Type checks
# ------------------------------------------------------------------------------------------------
def test_check_type_forward_rejects_bad_inputs_naming_the_function():
    with pytest.raises(type_check.InvalidType) as error:
        LinearFunction()(_random(2, 3), _random(4, 5))
    message = str(error.value)
    assert "LinearFunction" in message
    assert "Expect:" in message and "Actual: 3 != 5" in message


def test_check_type_forward_runs_with_the_function_as_self():
    seen = []

    class Checked(Square):
        def check_type_forward(self, in_types):
            seen.append(self)
            type_check.expect(in_types.size() == 1)

    f = Checked()
    f(numpy.ones(1))
    assert seen and all(s is f for s in seen)
    with pytest.raises(type_check.InvalidType):
        Checked()(numpy.ones(1), numpy.ones(1))


def test_an_adapter_made_by_hand_runs_its_functions_check_when_applied_directly():
    class OneInput(Square):
        def check_type_forward(self, in_types):
            type_check.expect(in_types.size() == 1)

    functions = OneInput(), Square()  # an adapter not yet applied holds its Function weakly
    checked, plain = (FunctionAdapter(f) for f in functions)
    assert isinstance(checked, FunctionAdapter) and isinstance(plain, FunctionAdapter)
    with pytest.raises(type_check.InvalidType, match="OneInput"):
        checked.apply((numpy.ones(1), numpy.ones(1)))
    y, = checked.apply((numpy.full(1, 3.0),))
    assert y.array.tolist() == [9.0]
    y, = plain.apply((numpy.full(1, 2.0),))
    assert y.array.tolist() == [4.0]


def test_a_users_adapter_subclass_runs_the_functions_type_check():
    class OneInput(Square):
        def check_type_forward(self, in_types):
            type_check.expect(in_types.size() == 1)

    class MyAdapter(FunctionAdapter):
        pass

    function = OneInput()
    adapter = MyAdapter(function)
    assert type(adapter) is MyAdapter
    with pytest.raises(type_check.InvalidType, match="OneInput"):
        adapter.apply((numpy.ones(1), numpy.ones(1)))


def test_type_check_config_off_skips_check_type_forward():
    with using_config("type_check", False):
        y = LinearFunction()(_random(2, 3), _random(4, 3).astype(numpy.float32))
    assert y.shape == (2, 4)


def test_functions_without_a_check_never_enter_the_type_checker(monkeypatch):
    entered = []
    original = function_node.FunctionNode._check_data_type_forward

    def spy(self, in_data):
        entered.append(self.label)
        return original(self, in_data)

    monkeypatch.setattr(function_node.FunctionNode, "_check_data_type_forward", spy)
    Square()(numpy.ones(2))
    assert entered == []
    LinearFunction()(_random(2, 3), _random(4, 3))
    assert entered == ["LinearFunction"]


# ------------------------------------------------------------------------------------------------
# Double backprop
# ------------------------------------------------------------------------------------------------
def test_first_order_gradients_are_the_same_with_double_backprop_enabled():
    x = C.Variable(numpy.array([1.0, -2.0]))
    gx, = C.grad([F.sum(twice(Square()(x)))], [x], enable_double_backprop=True)
    numpy.testing.assert_array_equal(gx.array, 4 * x.array)


def test_differentiating_an_old_style_gradient_again_raises_naming_the_function():
    x = C.Variable(numpy.array([1.0, -2.0]))
    gx, = C.grad([F.sum(Square()(x))], [x], enable_double_backprop=True)
    with pytest.raises(RuntimeError,
                       match='cannot twice-differentiate an old style Function "Square"'):
        C.grad([F.sum(gx * gx)], [x])


def test_variable_backward_through_an_old_style_gradient_raises():
    x = C.Variable(numpy.array([1.0, 2.0]))
    y = twice(Square()(x))
    y.grad = numpy.ones(2)
    y.backward(enable_double_backprop=True)
    numpy.testing.assert_array_equal(x.grad, 4 * x.array)
    loss = F.sum(x.grad_var * x.grad_var)
    with pytest.raises(RuntimeError, match='twice-differentiate.*"Square"'):
        loss.backward()


def test_second_order_through_a_new_style_function_above_an_old_one_raises():
    x = C.Variable(numpy.array([0.5, 1.5]))
    # The old-style gradient feeds Twice's differentiable backward, so the second
    # differentiation needs the old-style function's missing record.
    gx, = C.grad([F.sum(twice(Square()(twice(x))))], [x], enable_double_backprop=True)
    with pytest.raises(RuntimeError, match='"Square"'):
        C.grad([F.sum(gx)], [x])


def test_old_style_function_off_the_second_order_path_does_not_block_it():
    x = C.Variable(numpy.array([0.5, 1.5]))
    w = C.Variable(numpy.array([2.0, 3.0]))
    loss = F.sum(F.exp(x)) + F.sum(Square()(w))
    loss.backward(enable_double_backprop=True)
    numpy.testing.assert_array_equal(w.grad, 2 * w.array)
    gx = x.grad_var
    x.cleargrad()
    F.sum(gx).backward()
    numpy.testing.assert_allclose(x.grad, numpy.exp(x.array))


def test_gradient_without_double_backprop_has_no_creator():
    x = C.Variable(numpy.array([1.0, 2.0]))
    F.sum(Square()(x)).backward()
    assert x.grad_var.creator is None


# ------------------------------------------------------------------------------------------------
# Hooks
# ------------------------------------------------------------------------------------------------
def test_global_hook_sees_old_and_new_style_functions_by_label():
    hook = RecordingHook()
    x = C.Variable(numpy.array([1.0, 2.0]))
    with hook:
        y = twice(Square()(x))
        y.grad = numpy.ones(2)
        y.backward()
    assert hook.log[:2] == [("forward", "Square"), ("forward", "Twice")]
    backward_labels = [label for kind, label in hook.log if kind == "backward"]
    assert backward_labels == ["Twice", "Square"]


def test_hooks_receive_the_adapter_whose_label_is_the_functions():
    received = []

    class Keep(FunctionHook):
        name = "Keep"

        def forward_postprocess(self, function, in_data):
            received.append(function)

    f = Square()
    with Keep():
        f(numpy.ones(1))
    assert len(received) == 1
    assert isinstance(received[0], FunctionAdapter)
    assert received[0].function is f


def test_local_hook_sees_only_its_function():
    hook = RecordingHook()
    f = Square()
    f.add_hook(hook)
    assert f.local_function_hooks == {"RecordingHook": hook}
    x = C.Variable(numpy.array([1.0, 2.0]))
    y = Square()(f(twice(x)))
    y.grad = numpy.ones(2)
    y.backward()
    assert hook.log == [("forward", "Square"), ("backward", "Square")]


def test_delete_hook_unregisters_and_unknown_names_raise_key_error():
    hook = RecordingHook()
    f = Square()
    f.add_hook(hook, name="mine")
    with pytest.raises(KeyError):
        f.add_hook(RecordingHook(), name="mine")
    f.delete_hook("mine")
    f(numpy.ones(1))
    assert hook.log == []
    assert f.local_function_hooks == {}
    with pytest.raises(KeyError):
        f.delete_hook("mine")


# ------------------------------------------------------------------------------------------------
# Saved-array checks (chainer_compat.autograd)
# ------------------------------------------------------------------------------------------------
@pytest.fixture
def saved_array_checks(monkeypatch):
    from chainer_compat import autograd
    from chainer_compat.autograd._saved_arrays import SavedArrayChecker

    monkeypatch.setattr(function_node, "_saved_arrays", SavedArrayChecker)
    return autograd


def test_retained_input_modified_in_place_is_caught_before_backward(saved_array_checks):
    x = C.Variable(numpy.array([1.0, 2.0]))
    y = Square()(x)
    x.array += 1.0
    with pytest.raises(saved_array_checks.VersionMismatch, match="input 0 of Square"):
        F.sum(y).backward()


def test_input_not_retained_may_be_modified_in_place(saved_array_checks):
    x = C.Variable(numpy.array([-1.0, 2.0]))
    y = ReLU()(x)
    x.array += 1.0
    F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 1.0])


def test_output_data_modified_in_place_is_caught_before_backward(saved_array_checks):
    x = C.Variable(numpy.array([-1.0, 2.0]))
    y = ReLU()(x)
    y.array -= 5.0
    with pytest.raises(saved_array_checks.VersionMismatch, match="output 0 of ReLU"):
        F.sum(y).backward()


def test_output_data_of_a_dropped_output_is_still_checked(saved_array_checks):
    class TwoOutputs(Function):
        def forward_cpu(self, inputs):
            self.retain_inputs(())
            self.retain_outputs((0, 1))
            return inputs[0] * 2, inputs[0] * 3

        def backward_cpu(self, inputs, grad_outputs):
            _, second = self.output_data
            return grad_outputs[0] * second,

    x = C.Variable(numpy.array([1.0, 2.0]))
    first, second = TwoOutputs()(x)
    kept = second.array
    del second  # its Variable and node go; the Function keeps its array
    kept[...] = 100.0
    with pytest.raises(saved_array_checks.VersionMismatch, match="output 1 of TwoOutputs"):
        F.sum(first).backward()


def test_backward_gets_the_values_preserved_by_allow_mutation(saved_array_checks):
    with saved_array_checks.allow_mutation_on_saved_tensors():
        x = C.Variable(numpy.array([1.0, 2.0]))
        y = Square()(x)
        v = C.Variable(numpy.array([-1.0, 2.0]))
        r = ReLU()(v)
    x.array += 10.0
    r.array -= 5.0
    F.sum(y).backward()
    F.sum(r).backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])
    numpy.testing.assert_array_equal(v.grad, [0.0, 1.0])


# ------------------------------------------------------------------------------------------------
# Adapters applied directly
# ------------------------------------------------------------------------------------------------
def test_adapter_applied_directly_takes_ownership_of_its_function():
    f = Square()
    adapter = FunctionAdapter(f)
    assert f.node is adapter
    y, = adapter.apply((C.Variable(numpy.array([3.0])),))
    assert y.creator is f
    numpy.testing.assert_array_equal(y.array, [9.0])
    ref = weakref.ref(f)
    del f
    assert ref() is adapter.function


# ------------------------------------------------------------------------------------------------
# GPU
# ------------------------------------------------------------------------------------------------
def _cupy_with_device():
    cupy = pytest.importorskip("cupy")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # noqa: BLE001 - CuPy raises its own CUDA error without a driver
        pytest.skip(f"CuPy cannot count CUDA devices: {error}")
    if count < 1:
        pytest.skip("CuPy sees no CUDA device")
    return cupy


@pytest.mark.gpu
def test_cupy_inputs_run_the_gpu_methods():
    xp = _cupy_with_device()
    f = Recorder()
    x = C.Variable(xp.arange(3, dtype=xp.float32))
    y = f(x)
    y.grad = xp.ones(3, xp.float32)
    y.backward()
    assert f.calls == ["forward_gpu", "backward_gpu"]
    assert isinstance(x.grad, xp.ndarray)


@pytest.mark.gpu
def test_legacy_functions_compute_gradients_on_either_backend(xp):
    x_cpu = numpy.array([[-0.5, 0.25], [0.75, -1.0]], numpy.float32)
    W_cpu = numpy.array([[0.5, -0.25], [1.0, 0.5], [-0.75, 0.25]], numpy.float32)
    x, W = C.Variable(xp.asarray(x_cpu)), C.Variable(xp.asarray(W_cpu))
    s, _ = SinCos()(ReLU()(LinearFunction()(x, W)))
    F.sum(s).backward()
    h = numpy.maximum(x_cpu.dot(W_cpu.T), 0)
    gh = numpy.cos(h) * (h > 0)
    gx = cuda.to_cpu(x.grad)
    numpy.testing.assert_allclose(gx, gh.dot(W_cpu), rtol=1e-5)
    assert type(x.grad) is type(x.array)
