"""Checks and outputs as Chainer 7.8.1 has them: a ``check_type_forward`` assigned to an
instance (tests assign mocks and count the calls), the ValueErrors that debug mode raises for
a backward that returns a gradient of the wrong type, shape or dtype, and forwards that leave
some outputs as None. Found by running Chainer's own test
suite against chainer_compat. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on
Chainer 7.8.1 itself.
"""

from __future__ import annotations

import gc
import importlib
import os
from unittest import mock

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
type_check = importlib.import_module(chainer.__name__ + ".utils.type_check")
gradient_check = importlib.import_module(chainer.__name__ + ".gradient_check")
F = importlib.import_module(chainer.__name__ + ".functions")


def _apply(function, *arrays):
    inputs = tuple(chainer.Variable(a) for a in arrays)
    if isinstance(function, chainer.FunctionNode):
        return function.apply(inputs)
    return function(*inputs)


# ------------------------------------------------------------- checks assigned to instances
@pytest.mark.parametrize("base", ["FunctionNode", "Function"])
def test_a_check_assigned_to_an_instance_runs_once_per_call_on_light_types(base):
    function = getattr(chainer, base)()
    function.check_type_forward = mock.MagicMock()
    function.forward_cpu = mock.MagicMock(return_value=(numpy.ones(2, numpy.float32),))
    _apply(function, numpy.zeros(2, numpy.float32), numpy.zeros((3,), numpy.int32))
    assert function.check_type_forward.call_count == 1
    in_types, = function.check_type_forward.call_args[0]
    assert isinstance(in_types, type_check.LightTypeInfoTuple)
    assert [t.shape for t in in_types] == [(2,), (3,)]


@pytest.mark.parametrize("base", ["FunctionNode", "Function"])
def test_an_assigned_check_that_fails_stops_the_call(base):
    def refuse_all(in_types):
        type_check.expect(in_types.size() == 0)

    function = getattr(chainer, base)()
    function.check_type_forward = refuse_all
    function.forward_cpu = mock.MagicMock(return_value=(numpy.ones(2, numpy.float32),))
    with pytest.raises(type_check.InvalidType):
        _apply(function, numpy.zeros(2, numpy.float32))
    assert function.forward_cpu.call_count == 0


def test_deleting_an_assigned_check_restores_the_default():
    node = chainer.FunctionNode()
    check = mock.MagicMock()
    node.check_type_forward = check
    del node.check_type_forward
    node.forward_cpu = mock.MagicMock(return_value=(numpy.ones(2, numpy.float32),))
    _apply(node, numpy.zeros(2, numpy.float32))
    assert check.call_count == 0
    assert chainer.FunctionNode.check_type_forward(node, None) is None


def test_an_instance_check_shadows_the_check_its_class_defines():
    calls = []

    class Checked(chainer.FunctionNode):
        def check_type_forward(self, in_types):
            raise AssertionError("the class's check must not run")

        def forward(self, inputs):
            return inputs

    node = Checked()
    node.check_type_forward = calls.append
    _apply(node, numpy.zeros(2, numpy.float32))
    assert len(calls) == 1


def test_other_instances_keep_the_default():
    mocked = chainer.FunctionNode()
    mocked.check_type_forward = mock.MagicMock()
    other = chainer.FunctionNode()
    other.forward_cpu = mock.MagicMock(return_value=(numpy.ones(1, numpy.float32),))
    _apply(other, numpy.zeros(1, numpy.float32))
    assert mocked.check_type_forward.call_count == 0


# ----------------------------------------------------------- debug-mode checks of gradients
def _returning(gradients):
    class ReturnsGiven(chainer.FunctionNode):
        def forward(self, inputs):
            return numpy.array(1, numpy.float32),

        def backward(self, indexes, grad_outputs):
            return gradients

    return ReturnsGiven()


@pytest.mark.parametrize("gradients, initial, pattern", [
    ((lambda: (chainer.Variable(numpy.array([2, 3], numpy.float32)),)), None,
     "shape of gradients returned from backward is incorrect"),
    ((lambda: numpy.array([2.0], numpy.float32)), None,
     "type of gradients returned from backward is incorrect"),
    ((lambda: (chainer.Variable(numpy.array([2], numpy.int64)),)),
     numpy.array([1], numpy.float32), "dtype of gradients returned from backward is incorrect"),
])
def test_debug_mode_reports_a_bad_gradient_with_chainers_value_error(gradients, initial,
                                                                      pattern):
    x = chainer.Variable(numpy.array([1], numpy.float32))
    y, = _returning(gradients()).apply((x,))
    if initial is not None:
        x.grad = initial
    with chainer.using_config("debug", True):
        with pytest.raises(ValueError, match=pattern):
            y.backward()


# ------------------------------------------------------------------- outputs left as None
class _MiddleOnly(chainer.FunctionNode):
    """Computes only its middle output; the other two are None."""

    def forward(self, inputs):
        x, = inputs
        self.retain_outputs((1, 2))
        return None, x * 3 + 2, None

    def backward(self, indexes, grad_outputs):
        self.seen = (grad_outputs, self.get_retained_outputs())
        return 3 * grad_outputs[1],


class _MiddleOnlyOldStyle(chainer.Function):
    def forward(self, inputs):
        x, = inputs
        self.retain_inputs(())
        self.retain_outputs((1, 2))
        return None, x * 3 + 2, None

    def backward(self, inputs, grad_outputs):
        self.seen = (inputs, grad_outputs, self.output_data)
        return 3 * grad_outputs[1],


def test_a_function_node_may_leave_outputs_as_none():
    x = chainer.Variable(numpy.array([2, 3], numpy.float32))
    node = _MiddleOnly()
    y1, y2, y3 = node.apply((x,))
    assert y1.array is None and y3.array is None
    assert y1.creator_node is node and y3.creator_node is node
    numpy.testing.assert_array_equal(y2.array, [8, 11])
    y2.grad = numpy.array([2, 4], numpy.float32)
    y2.backward()
    numpy.testing.assert_array_equal(x.grad, [6, 12])
    grad_outputs, retained = node.seen
    assert grad_outputs[0] is None and grad_outputs[2] is None
    numpy.testing.assert_array_equal(retained[0].array, [8, 11])
    assert retained[1] is None  # Chainer 7.8.1 gives None for a retained absent output


def test_an_old_style_function_may_leave_outputs_as_none():
    x = chainer.Variable(numpy.array([2, 3], numpy.float32))
    function = _MiddleOnlyOldStyle()
    y1, y2, y3 = function(x)
    assert y1.array is None and y3.array is None
    y2.grad = numpy.array([2, 4], numpy.float32)
    y2.backward()
    numpy.testing.assert_array_equal(x.grad, [6, 12])
    inputs, grad_outputs, output_data = function.seen
    assert inputs == (None,)
    assert grad_outputs[0] is None and grad_outputs[2] is None
    assert output_data[0] is None and output_data[2] is None
    numpy.testing.assert_array_equal(output_data[1], [8, 11])


# ------------------------------------------------------------------------- memory layouts
class _SetsItsLayouts(chainer.FunctionNode):
    def forward(self, inputs):
        self.output_layouts = (None, None)
        return inputs[0] * 2, inputs[1] + 1


def test_layouts_are_the_standard_one_for_every_input_and_output():
    node = _SetsItsLayouts()
    assert node.is_elementwise is False
    with pytest.raises(AssertionError):
        node.input_layouts
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    node.apply((x, numpy.zeros(2, numpy.float32)))
    assert node.input_layouts == (None, None)
    assert node.output_layouts == (None, None)
    assert node.check_layout_forward((x, x)) is None


# ------------------------------------------------ found by review: the same features, harder
class _Twice(chainer.Function):
    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, inputs, grad_outputs):
        return grad_outputs[0] * 2,


@pytest.mark.parametrize("touch", ["kept output", "node read"])
def test_a_check_assigned_after_the_function_has_an_adapter_runs(touch):
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    function = _Twice()
    if touch == "kept output":
        y = function(x)  # noqa: F841 (keeps the adapter alive)
    else:
        function.node
    with mock.patch.object(function, "check_type_forward") as check:
        function(x)
    assert check.call_count == 1


class _FirstOnly(chainer.FunctionNode):
    def forward(self, inputs):
        self.retain_outputs((0, 1))
        return inputs[0] * 2, None

    def backward(self, indexes, grad_outputs):
        y0, y1 = self.get_retained_outputs()
        assert y1 is None
        return grad_outputs[0] * 2,


def test_a_retained_absent_output_whose_variable_is_gone_is_none():
    x = chainer.Variable(numpy.ones(3, numpy.float32))
    y = _FirstOnly().apply((x,))[0]  # the absent output's Variable is collected at once
    gc.collect()
    F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, [2, 2, 2])


def test_check_backward_of_a_function_with_an_absent_output():
    gradient_check.check_backward(lambda x: _FirstOnly().apply((x,)),
                                  numpy.ones(3), (numpy.ones(3), None), dtype=numpy.float64)


@pytest.mark.parametrize("gradients", [
    None,  # a backward that forgets to return
    (chainer.Variable(numpy.ones(2, numpy.float64)),),  # a first gradient of another dtype
], ids=["none", "first-gradient-dtype"])
def test_debug_mode_keeps_the_type_errors_chainer_raises_outside_its_own_checks(gradients):
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    y, = _returning(gradients).apply((x,))
    with chainer.using_config("debug", True):
        with pytest.raises(TypeError):
            y.backward()
