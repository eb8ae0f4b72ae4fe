"""relu: values, first and second order gradients, type errors, memory and the cheap check."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import assert_same_gradient, input_gradient_both_ways

from chainer_compat import FunctionHook, Variable
from chainer_compat.functions.activation import relu as relu_module
from chainer_compat.functions.activation.relu import ReLU, ReLUGrad2, relu
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SHAPES = [(), (3,), (2, 3)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, dtype, uniform, check_function):
    x = uniform(shape, dtype, gap=0.1)
    check_function(relu, (x,), lambda x: numpy.maximum(x, 0))


def test_gradient_is_zero_at_zero():
    x = Variable(numpy.array([-1.0, 0.0, 2.0], numpy.float32))
    y = relu(x)
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 0.0, 1.0])


def test_integer_input_is_rejected_with_the_function_name():
    with pytest.raises(type_check.InvalidType, match=r"ReLU \(Forward\)[\s\S]*x\.dtype\.kind"):
        relu(numpy.arange(3, dtype=numpy.int32))


def test_two_inputs_are_rejected():
    with pytest.raises(type_check.InvalidType, match="argument"):
        ReLU().apply((numpy.zeros(2, numpy.float32), numpy.zeros(2, numpy.float32)))


def test_keeps_only_its_output_for_backward():
    x = Variable(numpy.ones(3, numpy.float32))
    y = relu(x)
    assert x.node.data is None
    assert y.node.data is not None


def test_float_input_is_checked_without_building_expressions(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("the expression check ran on a float input")

    monkeypatch.setattr(type_check, "get_types", fail)
    monkeypatch.setattr(type_check, "get_light_types", fail)
    y = relu(numpy.array([-1.0, 2.0], numpy.float32))
    numpy.testing.assert_array_equal(y.array, [0.0, 2.0])


def test_output_of_zero_dimensional_input_is_an_array():
    y = relu(numpy.array(-3.0, numpy.float32))
    assert isinstance(y.array, numpy.ndarray)
    assert y.shape == ()


def test_class_lives_at_chainers_module_path():
    assert relu_module.ReLU.__module__ == "chainer_compat.functions.activation.relu"


# Values where max(x, 0) and gy * (y > 0) are easiest to get subtly wrong: NaNs of both signs,
# signed zeros, infinities, subnormals and the largest finite values.
def _special_values(dtype, size, seed):
    info = numpy.finfo(dtype)
    values = numpy.array([numpy.nan, -numpy.nan, -0.0, 0.0, -1.0, 1.0, numpy.inf, -numpy.inf,
                          info.smallest_subnormal, -info.smallest_subnormal, info.max,
                          -info.max], dtype)
    values = numpy.resize(values, size)
    numpy.random.default_rng(seed).shuffle(values)
    return values


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("size", [1, 12, 100, 4099])
def test_forward_gives_the_bits_of_numpy_maximum(dtype, size):
    x = _special_values(dtype, size, seed=size)
    y = relu(x).array
    expected = numpy.maximum(x, 0)
    assert y.dtype == expected.dtype and y.flags.c_contiguous
    assert y.tobytes() == expected.tobytes()


@pytest.mark.parametrize("view", [lambda a: a[:, ::2], lambda a: a.T])
def test_forward_of_a_non_contiguous_input_keeps_numpys_layout(view):
    x = view(_special_values(numpy.float32, 48, seed=1).reshape(6, 8))
    y = relu(x).array
    expected = numpy.maximum(x, 0)
    assert y.strides == expected.strides
    assert y.tobytes() == expected.tobytes()


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("size", [1, 12, 100, 4099])
def test_gradient_gives_the_bits_of_gy_times_the_mask(xp, dtype, size):
    # On CuPy _relu_grad is one fused kernel, compared with CuPy's own array expression.
    y = xp.asarray(numpy.maximum(_special_values(dtype, size, seed=size), 0))
    gy = xp.asarray(_special_values(dtype, size, seed=size + 1))
    with numpy.errstate(invalid="ignore"):  # inf * 0 where y <= 0
        gx = relu_module._relu_grad(y, gy)
        expected = gy * (y > 0)
    assert type(gx) is type(gy)
    assert gx.dtype == expected.dtype and gx.shape == expected.shape
    assert gx.tobytes() == expected.tobytes()


@pytest.mark.parametrize("gy_requires_grad", [True, False])
def test_gradient_without_a_node_is_the_nodes_gradient(xp, gy_requires_grad):
    # NOTE [gradients without a node]: a hook makes backward apply ReLUGrad2.
    rng = numpy.random.default_rng(2)
    x_array = xp.asarray(rng.standard_normal((4, 5)).astype(numpy.float32))
    gy = Variable(xp.asarray(rng.standard_normal((4, 5)).astype(numpy.float32)),
                  requires_grad=gy_requires_grad)

    direct, through_node, labels = input_gradient_both_ways(relu, x_array, gy)
    assert labels == ["ReLUGrad2"]
    assert_same_gradient(direct, through_node)


def test_double_backprop_records_the_gradient_node():
    x = Variable(numpy.array([-1.0, 2.0], numpy.float32))
    y = relu(x)
    y.grad = numpy.ones(2, numpy.float32)
    y.backward(enable_double_backprop=True)
    assert x.grad_var.creator.label == "ReLUGrad2"


def test_the_gradient_node_takes_gy_alone_as_chainers_does():
    # Chainer 7.8.1: ReLUGrad2(b) keeps the output array and is applied to (gy,); a hook sees
    # one input, and the node's gradient is requires_grad only through gy.

    class Inputs(FunctionHook):
        name = "inputs"

        def __init__(self):
            self.seen = []

        def forward_preprocess(self, function, in_data):
            self.seen.append((function.label, [a.shape for a in in_data]))

    x = Variable(numpy.array([[-1.0, 2.0, 0.5]], numpy.float32))
    y = relu(x)
    y.grad_var = Variable(numpy.ones((1, 3), numpy.float32), requires_grad=False)
    hook = Inputs()
    with hook:
        y.backward()
    assert hook.seen == [("ReLUGrad2", [(1, 3)])]
    assert x.grad.tolist() == [[0.0, 1.0, 1.0]]
    assert x.grad_var.requires_grad is False

    gy = Variable(numpy.array([3.0, 4.0], numpy.float32))
    gx, = ReLUGrad2(numpy.array([1.0, -1.0], numpy.float32)).apply((gy,))
    assert gx.array.tolist() == [3.0, 0.0]
    ggx, = gx.creator.backward((0,), (Variable(numpy.ones(2, numpy.float32)),))
    assert ggx.array.tolist() == [1.0, 0.0]
