"""The operators behind Variable: values, dtypes, first and second derivatives."""

from __future__ import annotations

import operator
import re

import numpy
import pytest
from gradient_paths import count_applies
from hypothesis import given
from hypothesis import strategies as st
from strategies import profile_settings

import chainer_compat as C
from chainer_compat import Variable, gradient_check
from chainer_compat.functions.math import basic_math
from chainer_compat.utils import type_check

SHAPES = [(3,), (2, 3)]


def make(shape, dtype, low=0.5, high=2.0, seed=0):
    rng = numpy.random.default_rng(seed)
    return rng.uniform(low, high, shape).astype(dtype)


TOL = {numpy.float16: dict(atol=5e-2, rtol=5e-2), numpy.float32: dict(atol=1e-3, rtol=1e-3),
       numpy.float64: dict(atol=1e-6, rtol=1e-6)}

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow]


@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_binary_variable_operator_gradients(op, shape, dtype):
    a, b = make(shape, dtype, seed=1), make(shape, dtype, seed=2)
    gy = make(shape, dtype, seed=3)
    numpy.testing.assert_allclose(op(Variable(a), Variable(b)).array, op(a, b), **TOL[dtype])
    # eps 1e-4: the central difference of a / b is off by about eps**2 * a / b**4, which at
    # Chainer's default 1e-3 and b near 0.6 reached the float64 tolerance for 0.7% of directions.
    gradient_check.check_backward(op, (a, b), gy, dtype=numpy.float64, eps=1e-4, **TOL[dtype])


@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
def test_binary_operator_double_backward(op):
    a, b = make((3,), numpy.float64, seed=4), make((3,), numpy.float64, seed=5)
    gy, gga, ggb = (make((3,), numpy.float64, seed=s) for s in (6, 7, 8))
    gradient_check.check_double_backward(op, (a, b), gy, (gga, ggb))


@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
def test_broadcasting_binary_gradients(op):
    a, b = make((2, 3), numpy.float64, seed=9), make((3,), numpy.float64, seed=10)
    gy = make((2, 3), numpy.float64, seed=11)
    gradient_check.check_backward(op, (a, b), gy)


@pytest.mark.parametrize("op", [operator.truediv, operator.pow], ids=lambda f: f.__name__)
def test_broadcasting_binary_double_backward(op):
    # Through DivGrad and PowVarVarGrad (NOTE [gradient nodes of the operators]).
    a, b = make((2, 3), numpy.float64, seed=15), make((3,), numpy.float64, seed=16)
    gy, gga, ggb = (make(shape, numpy.float64, seed=seed)
                    for shape, seed in (((2, 3), 17), ((2, 3), 18), ((3,), 19)))
    gradient_check.check_double_backward(op, (a, b), gy, (gga, ggb))


@pytest.mark.parametrize("op", [
    lambda x: x + 2.5, lambda x: 2.5 + x, lambda x: x - 2.5, lambda x: 2.5 - x,
    lambda x: x * 2.5, lambda x: 2.5 * x, lambda x: x / 2.5, lambda x: 2.5 / x,
    lambda x: x ** 2.5, lambda x: 2.5 ** x, lambda x: -x, lambda x: abs(x),
])
def test_unary_and_constant_operator_gradients(op):
    x = make((2, 3), numpy.float64, low=0.5, high=1.5, seed=12)
    gy, ggx = make((2, 3), numpy.float64, seed=13), make((2, 3), numpy.float64, seed=14)
    gradient_check.check_backward(op, (x,), gy)
    gradient_check.check_double_backward(op, (x,), gy, (ggx,))


@pytest.mark.parametrize("op", [operator.add, operator.mul, operator.sub, operator.truediv])
def test_array_constant_gets_no_gradient_and_variable_dtype(op):
    x = Variable(make((3,), numpy.float32))
    constant = make((3,), numpy.float64, seed=3)
    y = op(x, constant)
    assert y.dtype == numpy.float32
    C.functions.sum(y).backward()
    assert x.grad is not None and x.grad.dtype == numpy.float32


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv,
                                operator.pow])
@pytest.mark.parametrize("constant", [2, 2.0, True, numpy.float16(2), numpy.int8(2),
                                      numpy.float64(2)], ids=repr)
def test_scalar_constants_of_any_scalar_type_keep_the_variable_dtype(op, constant):
    x = Variable(make((3,), numpy.float32))
    value = numpy.float32(constant)
    for y, expected in ((op(x, constant), op(x.array, value)),
                        (op(constant, x), op(value, x.array))):
        assert y.dtype == numpy.float32
        numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)


@pytest.mark.parametrize("left, right", [
    ("variable", 2), ("variable", 2.0), (7, "variable"), ("variable", "array"),
    ("array", "variable"), ("variable", "variable")])
def test_floor_division_is_floor_of_true_division_with_no_gradient(left, right):
    # compat: Chainer's x // y is floor(x / y), a new Variable that requires no gradient.
    data = numpy.array([[1.5, 3.0], [4.5, -7.0]], numpy.float32)
    other = numpy.array([2.0, 3.0], numpy.float32)
    x = Variable(data)
    values = {"variable": (x, data), "array": (other, other)}
    a, a_value = values.get(left, (left, left))
    b, b_value = values.get(right, (right, right))
    y = a // b
    assert isinstance(y, Variable) and y.dtype == numpy.float32
    numpy.testing.assert_array_equal(y.array, numpy.floor(a_value / b_value))
    assert y.creator is None and not y.requires_grad


def test_matmul_gradients_2d_batched_and_vectors():
    cases = [((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((3,), (3, 2)), ((2, 3), (3,)),
             ((3,), (3,))]
    for a_shape, b_shape in cases:
        a, b = make(a_shape, numpy.float64, seed=1), make(b_shape, numpy.float64, seed=2)
        gy = make(numpy.matmul(a, b).shape, numpy.float64, seed=3)
        gradient_check.check_backward(operator.matmul, (a, b), gy)


def test_multi_add_sums_any_number_of_inputs():
    xs = [make((3,), numpy.float64, seed=s) for s in range(4)]
    y = basic_math.add(*[Variable(x) for x in xs])
    numpy.testing.assert_allclose(y.array, sum(xs))
    gradient_check.check_backward(lambda *v: basic_math.add(*v), tuple(xs),
                                  make((3,), numpy.float64, seed=9))


def test_labels_name_the_operation():
    x = Variable(make((2,), numpy.float32))
    assert (x + x).creator.label == "_ + _"
    assert (x * 2.0).creator.label == "_ * 2.0"
    assert (-x).creator.label == "__neg__"


def test_operators_on_gpu(xp):
    x = Variable(xp.asarray(make((3,), numpy.float32)))
    y = C.functions.sum(x * x + 1.0)
    y.backward()
    assert type(x.grad) is type(x.array)
    numpy.testing.assert_allclose(C.backends.cuda.to_cpu(x.grad),
                                  2 * C.backends.cuda.to_cpu(x.array), rtol=1e-6)


# ----------------------------------------------------------------------------- NOTE [operators
# without a node]: the direct path must give what the node would, and step aside when observed.
class _Recorder(C.FunctionHook):
    name = "recorder"

    def __init__(self):
        self.labels = []

    def forward_preprocess(self, function, in_data):
        self.labels.append(function.label)


@pytest.mark.parametrize("op", [
    lambda x, y: x * 2.5, lambda x, y: x + 2.5, lambda x, y: x - 2.5, lambda x, y: 2.5 - x,
    lambda x, y: x * y, lambda x, y: x + y, lambda x, y: x - y, lambda x, y: -x,
])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_operator_without_a_node_matches_the_node(xp, op, shape):
    a = xp.asarray(make(shape, numpy.float32, seed=1))
    b = xp.asarray(make(shape, numpy.float32, seed=2))
    x = Variable(a)
    y = Variable(b, requires_grad=False)
    applied: list[str] = []
    with C.no_backprop_mode():
        with count_applies(applied):
            direct = op(x, y)
        with _Recorder() as recorder:
            through_node = op(x, y)
    assert applied == [] and len(recorder.labels) == 1
    assert type(direct.array) is xp.ndarray and direct.dtype == numpy.float32
    assert direct.shape == through_node.shape
    assert direct.array.tobytes() == through_node.array.tobytes()
    assert direct.requires_grad is through_node.requires_grad is True
    assert direct.creator is None and through_node.creator is None


def test_operators_are_seen_by_hooks_and_debug_even_without_backprop():
    x = Variable(make((3,), numpy.float32))
    recorder = _Recorder()
    with C.no_backprop_mode(), recorder:
        x * 2.0
        x + x
    assert recorder.labels == ["_ * 2.0", "_ + _"]
    with C.no_backprop_mode(), C.using_config("debug", True):
        with pytest.raises(RuntimeError, match="NaN is detected"):
            x * numpy.float32("nan")


def test_backward_ops_are_seen_by_a_hook_as_chainer_shows_them():
    x = Variable(make((3,), numpy.float32))
    y = C.functions.sum(x * x + x)
    recorder = _Recorder()
    with recorder:
        y.backward()
    # Mul's backward computes gy * x twice, and x's three gradients (from +, and two from *)
    # are summed by one MultiAdd in that step: Chainer 7.8.1's hook sees exactly these.
    assert recorder.labels == ["BroadcastTo", "_ * _", "_ * _", "MultiAdd"]
    numpy.testing.assert_allclose(x.grad, 2 * x.array + 1, rtol=1e-6)


# ------------------------------------------------------- integer operands: Chainer's dtype rules
_INT = numpy.array([1, 2, 3], numpy.int32)


@pytest.mark.parametrize("op, label, name", [
    (lambda x, y: x ** 2, "_ ** 2", "x"),
    (lambda x, y: 2 ** x, "2 ** _", "x"),
    (lambda x, y: 2 / x, "2 / _", "x"),
    (lambda x, y: x * y, "_ * _", "lhs"),
    (lambda x, y: x / y, "_ / _", "lhs"),
    (lambda x, y: x ** y, "_ ** _", "lhs"),
    (lambda x, y: x * numpy.full(3, 1.5, numpy.float32), "_ * _", "lhs"),
    (lambda x, y: numpy.full(3, 1.5, numpy.float32) * x, "_ * _", "lhs"),
])
@pytest.mark.parametrize("backprop", [True, False])
def test_multiplicative_operators_need_a_float_operand(op, label, name, backprop):
    # As in Chainer 7.8.1 (same message): *, /, ** and c / x, x ** c, c ** x take floats only,
    # with or without backprop (the direct path of NOTE [operators without a node] included).
    x, y = Variable(_INT.copy()), Variable(_INT.copy())
    with C.using_config("enable_backprop", backprop), pytest.raises(
            type_check.InvalidType,
            match=rf"Invalid operation is performed in: {re.escape(label)} \(Forward\)"
                  rf"\n\nExpect: {name}\.dtype\.kind == f\nActual: i != f"):
        op(x, y)


@pytest.mark.parametrize("op, expected", [
    (lambda x, y: x + y, [2, 4, 6]), (lambda x, y: x - y, [0, 0, 0]),
    (lambda x, y: x * 2, [2, 4, 6]), (lambda x, y: x + 2, [3, 4, 5]),
    (lambda x, y: -x, [-1, -2, -3]),
])
def test_additive_operators_and_constant_products_keep_integer_dtypes(op, expected):
    y = op(Variable(_INT.copy()), Variable(_INT.copy()))
    assert y.dtype == numpy.int32
    assert y.array.tolist() == expected


def test_the_float_check_can_be_turned_off_with_type_check():
    with C.using_config("type_check", False):
        y = Variable(_INT.copy()) * Variable(_INT.copy())
    assert y.array.tolist() == [1, 4, 9]


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_division_by_a_constant_multiplies_by_its_reciprocal_taken_in_python(dtype):
    # As Chainer: x / c is x * (1. / c), the reciprocal rounded once to x's dtype. Taking it in
    # x's dtype instead gave 3.332 for float16 1 / 0.3 where Chainer gives 3.334.
    a = numpy.array([1, 2, 3], dtype)
    y = Variable(a) / 0.3
    assert y.dtype == dtype
    assert y.array.tobytes() == (a * dtype(1.0 / 0.3)).tobytes()


def test_division_of_integers_by_a_constant_and_by_zero_are_chainers():
    y = Variable(_INT.copy()) / 2  # Chainer's int(1. / 2) == 0
    assert y.dtype == numpy.int32 and y.array.tolist() == [0, 0, 0]
    with pytest.raises(ZeroDivisionError):
        Variable(numpy.ones(3, numpy.float32)) / 0


def test_negative_constants_are_labelled_in_parentheses():
    # Chainer's labels: computational graphs read '_ + (-0.5)', not '_ + -0.5'.
    x = Variable(numpy.ones(2, numpy.float32))
    assert (x - 0.5).creator.label == "_ + (-0.5)"
    assert (-1.5 - x).creator.label == "(-1.5) - _"
    assert (x * 2.5).creator.label == "_ * 2.5"

    # A negative NumPy float32 is written by format(), as Chainer writes it: its double value.
    c = numpy.float32(-0.6535223)
    assert (x + c).creator.label == "_ + (-0.6535223126411438)"
    assert (x - c).creator.label == "_ + 0.6535223"  # positive: str(), as in Chainer


@pytest.mark.parametrize("scalar_type", [numpy.float16, numpy.float32])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_numpy_scalar_constants_are_combined_in_double_precision_as_numpy_1_did(
        scalar_type, dtype):
    # NOTE [NumPy scalars as constants]: Chainer's 1. / c and c - 1 ran on NumPy 1, where a
    # float16 or float32 scalar met a Python number in float64. Taken in the scalar's own dtype
    # (NumPy 2), x / float16(1.3) was off by 2e-4 and x ** c's gradient by 3e-4.
    a = numpy.array([0.7, 1.3, 2.0], dtype)
    c = scalar_type(1.3)
    x = Variable(a)
    y = x / c
    expected = a * dtype(1.0 / float(c))
    assert y.array.tobytes() == expected.tobytes()
    y.grad = numpy.ones_like(a)
    y.backward()
    assert x.grad.tobytes() == (numpy.ones_like(a) * dtype(1.0 / float(c))).tobytes()

    e = scalar_type(-1.3)
    x = Variable(a)
    y = x ** e
    y.grad = numpy.ones_like(a)
    y.backward(enable_double_backprop=True)
    value, less_one, less_two = dtype(e), dtype(float(e) - 1), dtype(float(e) - 2)
    assert x.grad.tobytes() == (value * a ** less_one * numpy.ones_like(a)).tobytes()
    # The second order takes c - 2 in double precision too.
    gx = x.grad_var
    x.cleargrad()
    gx.grad = numpy.ones_like(a)
    gx.backward()
    ones = numpy.ones_like(a)
    assert x.grad.tobytes() == (ones * value * ones * less_one * a ** less_two).tobytes()


# NOTE [constants cast once]: the operators that skip their node compute with a cached 0-d
# array of the cast constant; the nodes compute with the NumPy scalar. Same bits, every time.
_CONSTANT_OPS = {
    "x + c": lambda x, c: x + c, "c + x": lambda x, c: c + x, "x - c": lambda x, c: x - c,
    "c - x": lambda x, c: c - x, "x * c": lambda x, c: x * c, "c * x": lambda x, c: c * x,
    "x / c": lambda x, c: x / c,
}


@given(
    dtype=st.sampled_from([numpy.float16, numpy.float32, numpy.float64, numpy.int32,
                           numpy.int64]),
    shape=st.sampled_from([(), (1,), (3,), (2, 3)]),
    constant=st.one_of(
        st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 0.3, 2, -3, 1e30, float("inf"),
                         float("nan"), numpy.float32(0.25), numpy.float64(-0.7),
                         numpy.int32(3)]),
        st.floats(-1e6, 1e6, allow_nan=False, width=64)),
    name=st.sampled_from(sorted(_CONSTANT_OPS)),
    repeat=st.integers(1, 3),
    seed=st.integers(0, 2**16))
@profile_settings(300)
def test_operators_with_a_constant_give_the_same_bits_with_and_without_a_node(
        dtype, shape, constant, name, repeat, seed):
    op = _CONSTANT_OPS[name]
    if numpy.dtype(dtype).kind == "i" and (name == "x / c" or "*" in name):
        return  # *, / need a float Variable (tested above)
    if name == "x / c" and constant == 0:
        return  # ZeroDivisionError either way (tested above)
    rng = numpy.random.default_rng(seed)
    a = numpy.asarray(rng.uniform(-4, 4, shape) * 3).astype(dtype)
    with numpy.errstate(all="ignore"):
        try:
            with C.using_config("enable_backprop", True):
                with_node = op(Variable(a), constant)
        except (ValueError, OverflowError) as error:  # a constant an integer cannot hold
            with C.using_config("enable_backprop", False), pytest.raises(type(error)):
                op(Variable(a), constant)
            return
        assert with_node.creator is not None
        # Several times, and after the same constant met another dtype: the cache must
        # give each dtype its own cast.
        other = Variable(numpy.ones(2, numpy.float64 if dtype != numpy.float64 else
                                    numpy.float32))
        for _ in range(repeat):
            with C.using_config("enable_backprop", False):
                without = op(Variable(a), constant)
            assert without.creator is None
            assert type(without.array) is numpy.ndarray
            assert without.dtype == with_node.dtype and without.shape == with_node.shape
            assert without.array.tobytes() == with_node.array.tobytes()
            op(other, constant)


def test_cached_constants_stay_read_only_and_distinguish_signed_zeros():
    x = Variable(numpy.ones(2, numpy.float32))
    with C.using_config("enable_backprop", False):
        for _ in range(2):  # the second time through the cached 0-d arrays
            positive = (x * 0.0).array
            negative = (x * -0.0).array
    assert numpy.signbit(negative).all() and not numpy.signbit(positive).any()
    arrays = [entry[3] for entry in basic_math._constants.values()
              if isinstance(entry[3], numpy.ndarray)]
    assert arrays  # -0.0 and 0.0 were each met twice above
    assert not any(array.flags.writeable for array in arrays)


@pytest.mark.parametrize("constant, label", [
    (2, "_ * 2"), (1 / 3, "_ * 0.3333333333333333"), (numpy.float64(0.25), "_ * 0.25")])
def test_the_gradient_node_of_a_constant_product_is_labelled_with_the_constant_as_written(
        constant, label):
    # As Chainer 7.8.1's MulConstant, whose backward multiplies by the constant it was given:
    # a hook during double backprop sees '_ * 2', not the cast '_ * 2.0'; same values.
    class Labels(C.FunctionHook):
        name = "labels"

        def __init__(self):
            self.labels = []

        def forward_preprocess(self, function, in_data):
            self.labels.append(function.label)

    x = Variable(numpy.array([1.0, -2.0], numpy.float32))
    y = x * constant
    y.grad = numpy.ones(2, numpy.float32)
    hook = Labels()
    with hook:
        y.backward(enable_double_backprop=True)
    assert hook.labels == [label]
    assert x.grad.tobytes() == (numpy.ones(2, numpy.float32)
                                * numpy.float32(constant)).tobytes()
