"""Tests for chainer_compat.porting.verify_port, and the walk-through in docs/porting.md (its python
code blocks are executed in order)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy
import pytest

from chainer_compat import backend, function, function_node, utils
from chainer_compat.porting import PortMismatchError, PortReport, verify_port
from chainer_compat.testing import attr
from chainer_compat.variable import Variable

DOCS = Path(__file__).resolve().parents[2] / "docs" / "porting.md"


# ----------------------------------------------------------------------------- square

class OldSquare(function.Function):
    def forward(self, inputs):
        x, = inputs
        return utils.force_array(x * x),

    def backward(self, inputs, grad_outputs):
        x, = inputs
        return utils.force_array(2 * x * grad_outputs[0]),


class Square(function_node.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return utils.force_array(x * x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 2 * x * grad_outputs[0],


class SquareWrongGradient(Square):
    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 2 * x * grad_outputs[0] + 0.25 * grad_outputs[0],


class SquareBackwardOnArrays(Square):
    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return Variable(utils.force_array(2 * x.array * grad_outputs[0].array)),


class SquareWrongForward(Square):
    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return utils.force_array(x * x + 1e-3),


class SquareForwardInPlace(Square):
    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        y = utils.force_array(x * x)
        x[...] = 0
        return y,


class OldSquareWrong(OldSquare):
    def backward(self, inputs, grad_outputs):
        x, = inputs
        return utils.force_array(3 * x * grad_outputs[0]),


def test_right_port_passes_and_reports_what_was_compared():
    report = verify_port(OldSquare, Square, [(3, 2)], draws=2)
    assert isinstance(report, PortReport) and report.draws == 2
    # per draw: 1 input check, 1 forward, 1 vs numerical, 1 vs old, and double backward
    # with respect to x and to the output gradient.
    assert report.comparisons == 2 * 6
    assert set(report.largest_errors) == {"inputs", "forward", "backward vs numerical",
                                          "backward vs old", "double backward"}
    assert report.largest_errors["backward vs numerical"] < 1e-6
    assert "2 draws" in str(report)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_right_port_passes_in_every_float_dtype(dtype):
    verify_port(OldSquare, Square, [(4,)], dtypes=dtype)


def test_wrong_gradient_is_reported_with_indexes_and_error_size():
    with pytest.raises(PortMismatchError) as caught:
        verify_port(OldSquare, SquareWrongGradient, [(3, 2)])
    error = caught.value
    assert error.check == "backward vs numerical"
    assert (error.draw, error.output_index, error.input_index) == (0, 0, 0)
    # 0.25 * gy with gy uniform in [-1, 1): the worst element is off by up to 0.25.
    assert 0.0 < error.max_error <= 0.25
    text = str(error)
    assert text.startswith("gradient of inputs[0] from the port must match the numerical "
                           "gradient, got a largest absolute error of")
    for line in ("Check: backward vs numerical", "Output index: 0", "Input index: 0",
                 "Old Function vs numerical: agree", "Worst element: index (", "Tolerance:",
                 "inputs[0] (float64(3, 2))"):
        assert line in text


def test_wrong_second_order_gradient_is_caught_while_first_order_passes():
    with pytest.raises(PortMismatchError) as caught:
        verify_port(OldSquare, SquareBackwardOnArrays, [(3, 2)])
    error = caught.value
    assert error.check == "double backward"
    assert error.output_index == 0 and error.input_index == 0
    # d(2 x gy)/dx = 2 gy; the array-built gradient gives 0.
    assert error.max_error > 0.1
    assert "d(gx[0])/d(inputs[0])" in str(error)


def test_second_order_check_can_be_turned_off():
    verify_port(OldSquare, SquareBackwardOnArrays, [(3, 2)], double_backward=False)


def test_wrong_forward_and_input_mutation_are_caught():
    with pytest.raises(PortMismatchError) as caught:
        verify_port(OldSquare, SquareWrongForward, [(2, 2)])
    assert caught.value.check == "forward" and caught.value.output_index == 0
    assert caught.value.max_error == pytest.approx(1e-3)
    with pytest.raises(PortMismatchError) as caught:
        verify_port(OldSquare, SquareForwardInPlace, [(2, 2)])
    assert caught.value.check == "inputs" and caught.value.input_index == 0


def test_forward_tolerance_can_be_loosened():
    verify_port(OldSquare, SquareWrongForward, [(2, 2)], atol=1e-2, double_backward=False)


def test_wrong_old_function_is_pointed_out():
    with pytest.raises(PortMismatchError) as caught:
        verify_port(OldSquareWrong, Square, [(3,)])
    assert caught.value.check == "backward vs old"
    assert "the old Function's backward looks wrong" in str(caught.value)


def test_failing_draw_and_seed_reproduce_the_inputs():
    with pytest.raises(PortMismatchError) as caught:
        verify_port(OldSquare, SquareWrongGradient, [(3, 2)], seed=7)
    error = caught.value
    expected = numpy.random.default_rng([7, error.draw]).uniform(-1, 1, (3, 2))
    numpy.testing.assert_array_equal(error.inputs[0], expected)
    assert "numpy.random.default_rng([7, 0])" in str(error)


# ----------------------------------------------------------------------------- two in, two out

class OldSumAndProduct(function.Function):
    def forward(self, inputs):
        x, y = inputs
        return utils.force_array(x + y), utils.force_array(x * y)

    def backward(self, inputs, grad_outputs):
        x, y = inputs
        g_sum, g_product = grad_outputs
        gx = numpy.zeros_like(x)
        gy = numpy.zeros_like(y)
        if g_sum is not None:
            gx = gx + g_sum
            gy = gy + g_sum
        if g_product is not None:
            gx = gx + g_product * y
            gy = gy + g_product * x
        return gx, gy


class SumAndProduct(function_node.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, y = inputs
        return utils.force_array(x + y), utils.force_array(x * y)

    def backward(self, indexes, grad_outputs):
        x, y = self.get_retained_inputs()
        g_sum, g_product = grad_outputs
        gx = gy = None
        if g_sum is not None:
            gx, gy = g_sum, g_sum
        if g_product is not None:
            gx = g_product * y if gx is None else gx + g_product * y
            gy = g_product * x if gy is None else gy + g_product * x
        return gx, gy


class SumAndProductIgnoringProduct(SumAndProduct):
    def backward(self, indexes, grad_outputs):
        g_sum, _ = grad_outputs
        if g_sum is None:
            return None, None
        return g_sum, g_sum


def test_two_inputs_two_outputs_right_port():
    report = verify_port(OldSumAndProduct, SumAndProduct, [(2, 3), (2, 3)],
                         dtypes=numpy.float32)
    # per draw: 2 input checks, 2 outputs, 3 selections x 2 inputs x 2 comparisons, and
    # 2 first-order gradients x 4 differentiable inputs (x, y, g_sum, g_product).
    assert report.comparisons == 3 * (2 + 2 + 12 + 8)


def test_output_whose_gradient_is_dropped_is_named():
    with pytest.raises(PortMismatchError) as caught:
        verify_port(OldSumAndProduct, SumAndProductIgnoringProduct, [(2,), (2,)])
    assert caught.value.check == "backward vs numerical"
    assert caught.value.output_index == 1 and caught.value.input_index == 0


# --------------------------------------------------------------------- integer inputs, accumulate

class OldTake(function.Function):
    def forward(self, inputs):
        ids, table = inputs
        return table[ids],

    def backward(self, inputs, grad_outputs):
        ids, table = inputs
        grad = numpy.zeros_like(table)
        numpy.add.at(grad, ids, grad_outputs[0])
        return None, grad


class Take(function_node.FunctionNode):
    def forward(self, inputs):
        ids, table = inputs
        self.retain_inputs((0,))
        self.shape = table.shape
        return table[ids],

    def backward(self, indexes, grad_outputs):
        ids, = self.get_retained_inputs()
        return None, _Scatter(ids.array, self.shape).apply((grad_outputs[0],))[0]


class _Scatter(function_node.FunctionNode):
    def __init__(self, ids, shape):
        self.ids, self.shape = ids, shape

    def forward(self, inputs):
        out = numpy.zeros(self.shape, inputs[0].dtype)
        numpy.add.at(out, self.ids, inputs[0])
        return out,

    def backward(self, indexes, grad_outputs):
        return Take().apply((self.ids, grad_outputs[0]))


class TakeAccumulating(Take):
    def backward_accumulate(self, target_input_indexes, grad_outputs, grad_inputs):
        grads = self.backward(target_input_indexes, grad_outputs)
        selected = [grads[i] for i in target_input_indexes]
        return tuple(g if before is None or g is None else g + before
                     for g, before in zip(selected, grad_inputs))


class TakeAccumulatingWrongly(Take):
    def backward_accumulate(self, target_input_indexes, grad_outputs, grad_inputs):
        grads = self.backward(target_input_indexes, grad_outputs)
        return tuple(grads[i] for i in target_input_indexes)  # drops grad_inputs


def ids_and_table(rng, shapes, dtypes):
    (count,), (rows, width) = shapes
    return (rng.integers(0, rows, count).astype(dtypes[0]),
            rng.uniform(-1, 1, (rows, width)).astype(dtypes[1]))


@pytest.mark.parametrize("port", [Take, TakeAccumulating])
def test_integer_input_and_right_accumulation_pass(port):
    report = verify_port(OldTake, port, [(5,), (3, 2)], dtypes=[numpy.int64, numpy.float64],
                         make_inputs=ids_and_table)
    assert ("backward_accumulate" in report.largest_errors) == (port is TakeAccumulating)


def test_accumulation_that_drops_existing_gradients_is_caught():
    with pytest.raises(PortMismatchError) as caught:
        verify_port(OldTake, TakeAccumulatingWrongly, [(5,), (3, 2)],
                    dtypes=[numpy.int64, numpy.float64], make_inputs=ids_and_table)
    assert caught.value.check == "backward_accumulate" and caught.value.input_index == 1


# ----------------------------------------------------------------------------- argument errors

def test_instances_and_wrong_kinds_are_refused():
    with pytest.raises(TypeError, match="pass OldSquare itself"):
        verify_port(OldSquare(), Square, [(2,)])
    with pytest.raises(TypeError, match="new_node must make a FunctionNode"):
        verify_port(OldSquare, OldSquare, [(2,)])
    with pytest.raises(TypeError, match="old_function must make a Function"):
        verify_port(Square, Square, [(2,)])


def test_shape_dtype_and_draw_arguments_are_validated():
    with pytest.raises(ValueError, match=r"write \[\(3, 4\)\]"):
        verify_port(OldSquare, Square, (3, 4))
    with pytest.raises(ValueError, match="one per input"):
        verify_port(OldSquare, Square, [(3,)], dtypes=[numpy.float32, numpy.float64])
    with pytest.raises(ValueError, match="draws must be a positive int"):
        verify_port(OldSquare, Square, [(3,)], draws=0)
    with pytest.raises(ValueError, match="make_inputs must return"):
        verify_port(OldSquare, Square, [(3,)],
                    make_inputs=lambda rng, shapes, dtypes: [numpy.zeros(4)])


def test_numerical_dtype_none_keeps_the_input_dtype():
    seen = []

    class Recording(Square):
        def forward(self, inputs):
            seen.append(inputs[0].dtype)
            return super().forward(inputs)

    verify_port(OldSquare, Recording, [(2,)], dtypes=numpy.float32, numerical_dtype=None,
                draws=1, double_backward=False, atol=1e-4)
    assert set(seen) == {numpy.dtype(numpy.float32)}


# ----------------------------------------------------------------------------- the walk-through

def test_porting_walkthrough_code_runs():
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.DOTALL)
    assert len(blocks) >= 6
    namespace = {"__name__": "porting_walkthrough"}
    for block in blocks:
        exec(compile(block, str(DOCS), "exec"), namespace)  # noqa: S102 - our own docs
    caught = namespace["caught"]
    assert isinstance(caught, PortMismatchError) and caught.check == "double backward"
    assert isinstance(namespace["report"], PortReport)
    assert "backward_accumulate" in namespace["report"].largest_errors


# ----------------------------------------------------------------------------- GPU

@pytest.mark.gpu
def test_verify_port_on_a_cuda_device():
    pytest.importorskip("cupy")
    if attr._cuda_device_count() == 0:
        pytest.skip("needs a CUDA device")
    report = verify_port(OldSquareGeneric, SquareGeneric, [(3, 2)], device="@cupy:0")
    assert report.comparisons > 0
    with pytest.raises(PortMismatchError):
        verify_port(OldSquareGeneric, SquareGenericWrong, [(3, 2)], device="@cupy:0")


class OldSquareGeneric(function.Function):
    def forward(self, inputs):
        x, = inputs
        return utils.force_array(x * x),

    def backward(self, inputs, grad_outputs):
        x, = inputs
        return 2 * x * grad_outputs[0],


class SquareGeneric(Square):
    pass


class SquareGenericWrong(SquareWrongGradient):
    pass


assert backend  # the GPU test relies on the device layer being importable without cupy
