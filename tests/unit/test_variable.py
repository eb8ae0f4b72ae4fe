"""Variable, VariableNode and Parameter: Chainer's surface."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy
import pytest

import chainer_compat as C
from chainer_compat import Parameter, Variable, initializers
from chainer_compat.utils import type_check


def f32(*values):
    return numpy.array(values, dtype=numpy.float32)


def test_array_and_data_are_the_same_attribute():
    a = f32(1.0, 2.0)
    v = Variable(a)
    assert v.array is a and v.data is a
    b = f32(3.0)
    v.data = b
    assert v.array is b and v.node.shape == (1,)


@pytest.mark.parametrize("bad", [1.0, [1.0], "text", numpy.float32(1.0)])
def test_constructor_rejects_non_arrays(bad):
    with pytest.raises(TypeError, match="Variable data must be a numpy.ndarray or cupy.ndarray"):
        Variable(bad)


def test_constructor_rejects_volatile_and_unknown_keywords():
    with pytest.raises(ValueError, match="volatile argument is not supported"):
        Variable(f32(1.0), volatile=True)
    with pytest.raises(TypeError, match="unexpected keyword"):
        Variable(f32(1.0), nmae="typo")


def test_shape_properties_and_len():
    v = Variable(numpy.zeros((2, 3), numpy.float32))
    assert (v.shape, v.ndim, v.size, v.dtype, len(v)) == ((2, 3), 2, 6, numpy.float32, 2)
    assert v.T.shape == (3, 2)
    assert v.reshape(3, 2).shape == (3, 2)
    assert v.reshape((6,)).shape == (6,)
    assert v.transpose(1, 0).shape == (3, 2)
    assert v.transpose().shape == (3, 2)


def test_item_and_label():
    assert Variable(f32(2.5)).item() == 2.5
    assert Variable(numpy.zeros((2, 3), numpy.float32)).label == "(2, 3), float32"
    assert Variable(numpy.zeros((), numpy.float32)).label == "float32"


def test_repr_and_str_as_chainer_prints_them():
    v = Variable(f32(1.0, 2.0))
    assert repr(v) == "variable([1., 2.])"
    assert str(v) == "variable([1. 2.])"
    v.name = "w"
    assert repr(v) == "variable w([1., 2.])"
    assert repr(Variable()) == "variable(None)"
    assert repr(Variable(numpy.zeros((0, 3), numpy.float32))) == "variable([], shape=(0, 3))"


def test_grad_setter_checks_dtype_shape_and_type():
    v = Variable(f32(1.0, 2.0))
    v.grad = f32(1.0, 1.0)
    numpy.testing.assert_array_equal(v.grad, [1.0, 1.0])
    assert isinstance(v.grad_var, Variable)
    with pytest.raises(TypeError, match="Dtype of data and grad mismatch"):
        v.grad = numpy.ones(2, numpy.float64)
    with pytest.raises(ValueError, match="Shape of data and grad mismatch"):
        v.grad = f32(1.0)
    with pytest.raises(TypeError, match="Type of grad is invalid"):
        v.grad = [1.0, 1.0]
    numpy.testing.assert_array_equal(v.grad, [1.0, 1.0])


def test_cleargrad_and_zerograd():
    v = Variable(f32(1.0, 2.0))
    v.grad = f32(3.0, 4.0)
    v.cleargrad()
    assert v.grad is None
    with pytest.warns(DeprecationWarning):
        v.zerograd()
    numpy.testing.assert_array_equal(v.grad, [0.0, 0.0])


def test_addgrad_and_copydata():
    a = Variable(f32(1.0, 2.0))
    b = Variable(f32(5.0, 6.0))
    b.grad = f32(1.0, 1.0)
    a.addgrad(b)
    numpy.testing.assert_array_equal(a.grad, [1.0, 1.0])
    a.addgrad(b)
    numpy.testing.assert_array_equal(a.grad, [2.0, 2.0])
    a.copydata(b)
    numpy.testing.assert_array_equal(a.array, [5.0, 6.0])
    assert a.array is not b.array


def test_addgrad_of_another_dtype_or_shape_is_type_checked_as_chainer_adds_them():
    # Chainer adds the two gradients as Variables: the type check of `_ + _` rejects another
    # dtype, and shapes broadcast as the operator's do. The gradient is left as it was.
    a = Parameter(numpy.ones(2))
    a.grad = numpy.zeros(2)
    b = Parameter(f32(1.0, 1.0))
    b.grad = f32(1.0, 1.0)
    with pytest.raises(type_check.InvalidType, match=r"Expect: lhs\.dtype == rhs\.dtype\n"
                       r"Actual: float32 != float64"):
        a.addgrad(b)
    assert a.grad.dtype == numpy.float64 and not a.grad.any()
    c = Parameter(numpy.ones(3, numpy.float32))
    c.grad = numpy.ones(3, numpy.float32)
    with pytest.raises(type_check.InvalidType, match="cannot broadcast"):
        b.addgrad(c)
    d = Variable(numpy.ones(1, numpy.float32))
    d.grad = numpy.full(1, 2.0, numpy.float32)
    b.addgrad(d)  # (2,) + (1,) broadcasts
    numpy.testing.assert_array_equal(b.grad, [3.0, 3.0])


def test_addgrad_of_zero_dimensional_variables_keeps_an_array():
    # 0-d plus 0-d is a NumPy scalar, which a gradient must not be; Chainer gives array(5.).
    a = Variable(numpy.array(1.0, numpy.float32))
    b = Variable(numpy.array(1.0, numpy.float32))
    a.grad = numpy.array(2.0, numpy.float32)
    b.grad = numpy.array(3.0, numpy.float32)
    a.addgrad(b)
    assert type(a.grad) is numpy.ndarray and a.grad.shape == () and a.grad == 5.0
    assert a.grad.dtype == numpy.float32


def test_requires_grad_is_read_only_and_stored_on_the_node():
    v = Variable(f32(1.0), requires_grad=False)
    assert v.requires_grad is False and v.node.requires_grad is False
    with pytest.raises(AttributeError):
        v.requires_grad = True


def test_pickle_and_deepcopy_keep_array_name_grad_and_drop_graph():
    x = Variable(f32(1.0, 2.0), name="x")
    y = x * 2.0
    y.name = "y"
    y.grad = f32(1.0, 1.0)
    for clone in (pickle.loads(pickle.dumps(y)), copy.deepcopy(y)):
        numpy.testing.assert_array_equal(clone.array, y.array)
        numpy.testing.assert_array_equal(clone.grad, y.grad)
        assert clone.name == "y"
        assert clone.creator is None
        assert clone.array is not y.array


def test_shallow_copy_shares_the_array_but_not_the_node():
    x = Variable(f32(1.0))
    y = x * 2.0
    clone = copy.copy(y)
    assert clone.array is y.array
    assert clone.node is not y.node and clone.creator is None


def test_comparisons_bool_and_hash_raise_type_error():
    v = Variable(f32(1.0))
    for op in (lambda: v == v, lambda: v != v, lambda: v < v, lambda: v <= v,
               lambda: v > v, lambda: v >= v, lambda: bool(v), lambda: hash(v)):
        with pytest.raises(TypeError):
            op()
    # compat: Chainer raised NotImplementedError; that still catches it.
    with pytest.raises(NotImplementedError):
        bool(v)
    assert hash(v.node) == hash(v.node)


def test_creator_and_unchain():
    x = Variable(f32(1.0))
    y = x * 2.0
    assert y.creator is y.creator_node and y.creator.label == "_ * 2.0"
    y.unchain()
    assert y.creator is None


def test_node_get_variable_recreates_a_collected_variable():
    x = Variable(f32(1.0), name="n")
    node = x.node
    node.retain_data()
    array = x.array
    del x
    revived = node.get_variable()
    assert revived.array is array and revived.node is node and revived.name == "n"


def test_retain_data_after_variable_collected_raises():
    x = Variable(f32(1.0))
    node = x.node
    del x
    with pytest.raises(RuntimeError, match="already released"):
        node.retain_data()


def test_as_variable_and_as_array():
    a = f32(1.0)
    v = C.as_variable(a)
    assert v.array is a and v.requires_grad is False
    assert C.as_variable(v) is v
    assert C.as_array(v) is a and C.as_array(a) is a


# ----------------------------------------------------------------------------- operators
@pytest.mark.parametrize("op, expected", [
    (lambda x: x + 2, [3.0, 4.0]),
    (lambda x: 2 + x, [3.0, 4.0]),
    (lambda x: x - 2, [-1.0, 0.0]),
    (lambda x: 2 - x, [1.0, 0.0]),
    (lambda x: x * 2, [2.0, 4.0]),
    (lambda x: 2 * x, [2.0, 4.0]),
    (lambda x: x / 2, [0.5, 1.0]),
    (lambda x: 2 / x, [2.0, 1.0]),
    (lambda x: x ** 2, [1.0, 4.0]),
    (lambda x: 2 ** x, [2.0, 4.0]),
    (lambda x: -x, [-1.0, -2.0]),
    (lambda x: abs(-x), [1.0, 2.0]),
    (lambda x: +x, [1.0, 2.0]),
])
def test_scalar_operators(op, expected):
    y = op(Variable(f32(1.0, 2.0)))
    assert isinstance(y, Variable)
    assert y.dtype == numpy.float32
    numpy.testing.assert_allclose(y.array, expected)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "truediv", "pow"])
def test_array_on_either_side_gives_variable_in_variable_dtype(name):
    import operator

    op = getattr(operator, name)
    x = Variable(f32(1.0, 2.0))
    a = numpy.array([3.0, 4.0], numpy.float64)
    left = op(x, a)
    right = op(a, x)
    assert isinstance(left, Variable) and isinstance(right, Variable)
    assert left.dtype == numpy.float32 and right.dtype == numpy.float32
    numpy.testing.assert_allclose(left.array, op(x.array, a.astype(numpy.float32)))
    numpy.testing.assert_allclose(right.array, op(a.astype(numpy.float32), x.array))


def test_float64_scalar_meets_float32_variable_as_float32():
    x = Variable(f32(1.0))
    for y in (x * numpy.float64(2.5), x + numpy.float64(1.0), numpy.float64(3.0) * x,
              x ** numpy.float64(2.0)):
        assert y.dtype == numpy.float32


def test_broadcasting_between_variables_and_its_gradient():
    x = Variable(numpy.ones((2, 3), numpy.float32))
    b = Variable(f32(1.0, 2.0, 3.0))
    y = x * b + b
    C.functions.sum(y).backward()
    numpy.testing.assert_allclose(b.grad, [4.0, 4.0, 4.0])
    numpy.testing.assert_allclose(x.grad, numpy.tile([1.0, 2.0, 3.0], (2, 1)))


def test_variables_of_different_dtypes_do_not_mix():
    from chainer_compat.utils.type_check import InvalidType

    x = Variable(f32(1.0))
    y = Variable(numpy.array([1.0], numpy.float64))
    with pytest.raises(InvalidType, match="dtype"):
        x + y


def test_matmul_operator_and_getitem():
    x = Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    w = Variable(numpy.ones((3, 2), numpy.float32))
    y = x @ w
    numpy.testing.assert_allclose(y.array, x.array @ w.array)
    z = x[:, 1]
    numpy.testing.assert_allclose(z.array, [1.0, 4.0])
    C.functions.sum(z).backward()
    numpy.testing.assert_allclose(x.grad, [[0, 1, 0], [0, 1, 0]])


def test_operator_with_unsupported_type_raises_type_error():
    x = Variable(f32(1.0))
    with pytest.raises(TypeError, match="Value must be a scalar"):
        x + "text"


# ----------------------------------------------------------------------------- Parameter
def test_parameter_from_array_and_from_initializer():
    p = Parameter(f32(1.0, 2.0))
    numpy.testing.assert_array_equal(p.array, [1.0, 2.0])
    q = Parameter(C.initializers.Constant(3.0), (2, 2))
    numpy.testing.assert_array_equal(q.array, numpy.full((2, 2), 3.0))
    assert q.dtype == numpy.float32
    assert numpy.isnan(q.grad).all()


def test_parameter_scalar_initializer_and_deferred_initialization():
    p = Parameter(2.0)
    assert p.array is None and not p.is_initialized
    p.initialize((3,))
    numpy.testing.assert_array_equal(p.array, [2.0, 2.0, 2.0])
    assert p.is_initialized


def test_initializing_a_parameter_made_without_shape_again_gives_a_nan_gradient_again():
    # Chainer keeps the NaN gradient initializer of a Parameter made without a shape.
    p = Parameter(initializers.One())
    p.initialize((3,))
    p.grad = f32(1.0, 2.0, 3.0)
    p.initialize((2,))
    assert p.grad.shape == (2,) and numpy.isnan(p.grad).all()
    p.cleargrad()  # clearing an initialized Parameter's gradient keeps the initializer too
    p.initialize((2,))
    assert numpy.isnan(p.grad).all()
    q = Parameter(initializers.One(), (2,))  # made with a shape: no gradient initializer
    q.grad = f32(1.0, 2.0)
    q.initialize((2,))
    assert q.grad is None


def test_parameter_pickle_round_trip():
    p = Parameter(f32(1.0, 2.0), name="w")
    q = pickle.loads(pickle.dumps(p))
    assert isinstance(q, Parameter) and q.name == "w"
    numpy.testing.assert_array_equal(q.array, p.array)


def test_debug_print_mentions_shape_and_dtype():
    text = Variable(f32(1.0, 2.0)).debug_print()
    assert "- shape: (2,)" in text and "- dtype: float32" in text


def test_debug_print_lines_are_chainers(xp):
    x = Variable(xp.asarray(f32(1.0, 3.0)))
    x.grad = xp.zeros(2, numpy.float32)
    lines = x.debug_print().split("\n")[1:]
    device = "CPU" if xp is numpy else str(x.array.device)  # CuPy: "<CUDA Device 0>"
    assert lines == [f"- device: {device}", f"- backend: {type(x.array)}", "- shape: (2,)",
                     "- dtype: float32", "- statistics: mean=2.00000000, std=1.00000000",
                     "- grad: 0"]


def test_debug_print_of_an_uninitialized_variable():
    lines = Variable().debug_print().split("\n")[1:]
    assert lines == ["- device: None", "- backend: None", "- shape: None", "- dtype: None",
                     "- statistics: None", "- grad: None"]


def test_no_warning_when_gradient_is_fine():
    x = Variable(numpy.array(2.0, numpy.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (x * x).backward()
    assert x.grad == 4.0


@pytest.mark.parametrize("make", [
    lambda: Variable(numpy.ones((1, 2, 3, 4), numpy.float32), layout="NHWC"),
    lambda: Parameter(numpy.ones((1, 2, 3, 4), numpy.float32), layout="NHWC"),
])
def test_a_nonstandard_layout_is_refused_by_name(make):
    with pytest.raises(ValueError, match="layout must be None"):
        make()


def test_variable_node_refuses_a_gradient_and_unknown_keywords():
    x = Variable(numpy.zeros(2, numpy.float32))
    with pytest.raises(ValueError, match='"grad": pass the gradient to Variable'):
        C.variable.VariableNode(x, "x", grad=None)
    with pytest.raises(TypeError, match="'nmae'"):
        C.variable.VariableNode(x, "x", nmae="y")
    node = C.variable.VariableNode(x, "x")
    assert node.name == "x" and node.get_variable_or_none() is x


def test_chainerx_and_ideep_methods_say_they_are_unavailable():
    x = Variable(numpy.zeros(2, numpy.float32))
    with pytest.raises(RuntimeError, match="ChainerX is not available"):
        x.to_chx()
    with pytest.raises(RuntimeError, match="does not support iDeep"):
        x.to_intel64()
    with pytest.raises(ValueError, match="chx_array is not available"):
        x.chx_array  # noqa: B018
    assert x.from_chx() is None and isinstance(x.array, numpy.ndarray)


def test_clearing_private_requires_grad_freezes_the_variable_for_direct_use_too():
    # Chainer's node kept an earlier copy, so x * p still reached p there; here p is frozen.
    p = C.Parameter(numpy.ones((2, 2), numpy.float32))
    p._requires_grad = False
    x = C.Variable(numpy.ones((2, 2), numpy.float32))
    C.functions.sum(x * p).backward()
    assert p.grad is None and x.grad is not None
    p._requires_grad = True
    C.functions.sum(x * p).backward()
    numpy.testing.assert_array_equal(p.grad, numpy.ones((2, 2), numpy.float32))
