"""Unit tests for chainer_compat.utils.type_check: building, printing and testing expressions."""

from __future__ import annotations

import copy
import operator
import pickle
import threading

import numpy
import pytest

from chainer_compat.utils import type_check


class _FakeFunction:
    """Stands in for a FunctionNode: the check context only reads ``label``."""

    def __init__(self, label: str = "FakeFunction") -> None:
        self.label = label


def _variables(*values):
    return [type_check.Variable(value, name) for value, name in zip(values, "xyzw")]


# --- operators: value and printed form --------------------------------------------------------

BINARY = [
    (operator.add, "+"),
    (operator.sub, "-"),
    (operator.mul, "*"),
    (operator.truediv, "/"),
    (operator.floordiv, "//"),
    (operator.mod, "%"),
    (operator.pow, "**"),
    (operator.lshift, "<<"),
    (operator.rshift, ">>"),
    (operator.and_, "&"),
    (operator.xor, "^"),
    (operator.or_, "|"),
]


@pytest.mark.parametrize("function, symbol", BINARY)
def test_binary_operator_between_expressions_prints_and_evaluates(function, symbol):
    x, y = _variables(7, 3)
    expr = function(x, y)
    assert isinstance(expr, type_check.BinaryOperator)
    assert str(expr) == f"x {symbol} y"
    assert expr.eval() == function(7, 3)


@pytest.mark.parametrize("function, symbol", BINARY)
def test_binary_operator_with_number_on_either_side(function, symbol):
    (x,) = _variables(7)
    assert str(function(x, 2)) == f"x {symbol} 2"
    assert function(x, 2).eval() == function(7, 2)
    assert str(function(2, x)) == f"2 {symbol} x"
    assert function(2, x).eval() == function(2, 7)


@pytest.mark.parametrize("function, symbol", [
    (operator.neg, "-"), (operator.pos, "+"), (operator.invert, "~"),
])
def test_unary_operator_prints_and_evaluates(function, symbol):
    (x,) = _variables(5)
    expr = function(x)
    assert isinstance(expr, type_check.UnaryOperator)
    assert str(expr) == f"{symbol}x"
    assert expr.eval() == function(5)


COMPARISONS = [
    (operator.eq, "==", "!="),
    (operator.ne, "!=", "=="),
    (operator.lt, "<", ">="),
    (operator.le, "<=", ">"),
    (operator.gt, ">", "<="),
    (operator.ge, ">=", "<"),
]


@pytest.mark.parametrize("function, symbol, inverse", COMPARISONS)
@pytest.mark.parametrize("left, right", [(1, 2), (2, 2), (3, 2)])
def test_comparison_evaluates_and_expect_reports_inverse(function, symbol, inverse, left, right):
    x, y = _variables(left, right)
    expr = function(x, y)
    assert isinstance(expr, type_check.BoolBinaryOperator)
    assert isinstance(expr, type_check.Testable)
    assert str(expr) == f"x {symbol} y"
    assert expr.eval() == function(left, right)
    if function(left, right):
        expr.expect()
    else:
        with pytest.raises(type_check.InvalidType) as info:
            expr.expect()
        assert info.value.expect == f"x {symbol} y"
        assert info.value.actual == f"{left} {inverse} {right}"


def test_comparison_with_number_on_left_is_reflected():
    (x,) = _variables(4)
    assert str(3 < x) == "x > 3"
    assert (3 < x).eval() is True


def test_numpy_scalar_on_left_defers_to_expression():
    (x,) = _variables(3)
    assert str(numpy.int64(3) == x) == "x == 3"
    assert (numpy.int64(3) == x).eval()
    product = numpy.int64(2) * x
    assert isinstance(product, type_check.Expr)
    assert str(product) == "2 * x"
    assert product.eval() == 6


# --- precedence ------------------------------------------------------------------------------

PRECEDENCE = [
    (lambda x, y, z: (x + y) * z, "(x + y) * z"),
    (lambda x, y, z: x + y * z, "x + y * z"),
    (lambda x, y, z: x * y + z, "x * y + z"),
    (lambda x, y, z: x - (y - z), "x - (y - z)"),
    (lambda x, y, z: (x - y) - z, "x - y - z"),
    (lambda x, y, z: x // (y % z), "x // (y % z)"),
    (lambda x, y, z: x // y % z, "x // y % z"),
    (lambda x, y, z: x ** (y ** z), "x ** y ** z"),
    (lambda x, y, z: (x ** y) ** z, "(x ** y) ** z"),
    (lambda x, y, z: -x ** y, "-x ** y"),
    (lambda x, y, z: (-x) ** y, "(-x) ** y"),
    (lambda x, y, z: x ** -y, "x ** (-y)"),
    (lambda x, y, z: -(x + y), "-(x + y)"),
    (lambda x, y, z: ~(x & y), "~(x & y)"),
    (lambda x, y, z: x | y & z, "x | y & z"),
    (lambda x, y, z: (x | y) & z, "(x | y) & z"),
    (lambda x, y, z: x ^ y | z, "x ^ y | z"),
    (lambda x, y, z: x ^ (y | z), "x ^ (y | z)"),
    (lambda x, y, z: x & y ^ z, "x & y ^ z"),
    (lambda x, y, z: x << y + z, "x << y + z"),
    (lambda x, y, z: (x << y) + z, "(x << y) + z"),
    (lambda x, y, z: x >> (y >> z), "x >> (y >> z)"),
    (lambda x, y, z: x + y == z * 2, "x + y == z * 2"),
    (lambda x, y, z: (x | y) == z, "x | y == z"),
]


@pytest.mark.parametrize("build, text", PRECEDENCE)
def test_printing_parenthesises_by_python_precedence(build, text):
    values = (7, 5, 3)
    expr = build(*_variables(*values))
    assert str(expr) == text
    assert expr.eval() == build(*values)


def test_shape_comparison_prints_like_chainer():
    x = numpy.zeros((2, 3), numpy.float32)
    w = numpy.zeros((4, 2), numpy.float32)
    x_type, w_type = type_check.get_types((x, w), "in_types", False)
    assert str(x_type.shape[0] == w_type.shape[1]) == "in_types[0].shape[0] == in_types[1].shape[1]"


# --- atoms -----------------------------------------------------------------------------------

@pytest.mark.parametrize("value, text", [
    (3, "3"), ("a", "'a'"), ((), "()"), ((1,), "(1,)"), ((1, 2), "(1, 2)"),
    ([1, 2], "[1, 2]"), (None, "None"), (numpy.int64(3), "3"), (numpy.str_("f"), "'f'"),
])
def test_constant_prints_its_value_as_written(value, text):
    constant = type_check.Constant(value)
    assert str(constant) == text
    assert constant.eval() is value


def test_constant_tuple_prints_nested_expressions():
    (x,) = _variables(1)
    assert str(type_check.Constant((x, 2))) == "(x, 2)"
    assert str(type_check.Constant([x])) == "[x]"


def test_variable_prints_name_and_evaluates_to_value():
    value = object()
    variable = type_check.Variable(value, "my_name")
    assert str(variable) == "my_name"
    assert variable.eval() is value
    assert repr(variable) == "<Variable my_name>"


def test_getattr_prints_dotted_name_and_evaluates():
    info = type_check.TypeInfo((2, 3), numpy.dtype(numpy.float32))
    x = type_check.Variable(info, "x")
    assert isinstance(x.ndim, type_check.GetAttr)
    assert str(x.dtype.kind) == "x.dtype.kind"
    assert x.dtype.kind.eval() == "f"
    assert str(type_check.GetAttr(x, type_check.Constant("ndim"))) == "x.ndim"
    name = type_check.Variable("ndim", "attr")
    assert str(type_check.GetAttr(x, name)) == "getattr(x, attr)"
    assert type_check.GetAttr(x, name).eval() == 2


@pytest.mark.parametrize("key, text, expected", [
    (0, "x[0]", 0),
    (slice(1, None), "x[1:]", [1, 2, 3]),
    (slice(None, 2), "x[:2]", [0, 1]),
    (slice(None, None, 2), "x[::2]", [0, 2]),
    (slice(1, 3, 1), "x[1:3:1]", [1, 2]),
    ((Ellipsis, 0), "x[..., 0]", 0),
])
def test_getitem_prints_subscript_as_written(key, text, expected):
    x = type_check.Variable(numpy.arange(4), "x")
    expr = x[key]
    assert isinstance(expr, type_check.GetItem)
    assert str(expr) == text
    assert numpy.array_equal(expr.eval(), expected)


def test_getitem_evaluates_expressions_inside_the_key():
    x, i = type_check.Variable((5, 6, 7), "x"), type_check.Variable(1, "i")
    assert str(x[i]) == "x[i]"
    assert x[i].eval() == 6
    assert str(x[i:]) == "x[i:]"
    assert x[i:].eval() == (6, 7)


def test_call_prints_and_evaluates_arguments():
    function = type_check.Variable(max, "max")
    (x,) = _variables(3)
    call = function(x, 5)
    assert isinstance(call, type_check.Call)
    assert str(call) == "max(x, 5)"
    assert call.eval() == 5
    with pytest.raises(TypeError):
        type_check.Call(function, [x])


def test_expression_refuses_bool_conversion():
    x, y = _variables(1, 1)
    with pytest.raises(RuntimeError, match="cannot be evaluated as bool"):
        bool(x == y)
    with pytest.raises(RuntimeError):
        _ = (x == 1) and (y == 1)


def test_expression_is_unhashable_because_it_overrides_eq():
    (x,) = _variables(1)
    with pytest.raises(TypeError):
        hash(x)


def test_iterating_expression_yields_items_of_its_value():
    x = type_check.Variable((2, 3, 4), "x")
    first, second, third = x
    assert [str(item) for item in (first, second, third)] == ["x[0]", "x[1]", "x[2]"]
    assert third.eval() == 4


def test_iterating_non_sequence_expression_raises_type_error_instead_of_looping():
    x = type_check.Variable(3, "x")
    with pytest.raises(TypeError, match="type_check.eval"):
        list(x)


def test_protocol_lookups_do_not_build_nodes():
    (x,) = _variables(1)
    assert not hasattr(x, "__array_interface__")
    duplicate = copy.deepcopy(x + 1)
    assert str(duplicate) == "x + 1"
    assert duplicate.eval() == 2


# --- TypeInfo, get_types, get_light_types ----------------------------------------------------

def test_type_info_describes_shape_dtype_ndim_and_size():
    info = type_check.TypeInfo((2, 3, 4), numpy.dtype(numpy.float16))
    assert (info.shape, info.dtype, info.ndim, info.size) == ((2, 3, 4), numpy.float16, 3, 24)
    assert type_check.TypeInfo((), None).size == 1


def test_get_types_names_each_entry_and_records_type_info():
    x = numpy.zeros((2, 3), numpy.float32)
    y = numpy.zeros((5,), numpy.int32)
    in_types = type_check.get_types((x, y), "in_types", False)
    assert isinstance(in_types, type_check.TypeInfoTuple)
    assert in_types.name == "in_types"
    assert [str(t) for t in in_types] == ["in_types[0]", "in_types[1]"]
    x_type, y_type = in_types
    assert x_type.shape.eval() == (2, 3)
    assert x_type.ndim.eval() == 2
    assert x_type.size.eval() == 6
    assert y_type.dtype.eval() == numpy.int32
    assert str(in_types.size() == 2) == "in_types.size == 2"
    assert (in_types.size() == 2).eval()


def test_get_types_dtype_checks_as_documented():
    x_type, = type_check.get_types((numpy.zeros(3, numpy.float32),), "in_types", False)
    type_check.expect(x_type.dtype == numpy.float32, x_type.dtype.kind == "f")
    with pytest.raises(type_check.InvalidType) as info:
        type_check.expect(x_type.dtype == numpy.int32)
    assert str(info.value) == (
        "Expect: in_types[0].dtype == <class 'numpy.int32'>\n"
        "Actual: float32 != <class 'numpy.int32'>")
    with pytest.raises(type_check.InvalidType) as info:
        type_check.expect(x_type.dtype.kind == "i")
    assert str(info.value) == "Expect: in_types[0].dtype.kind == i\nActual: f != i"


def test_get_types_accepts_none_only_when_asked():
    x = numpy.zeros((2,), numpy.float32)
    in_types = type_check.get_types((None, x), "grad_outputs", True)
    none_type = in_types[0].eval()
    assert (none_type.shape, none_type.dtype, none_type.ndim) == ((), None, 0)
    assert str(in_types[0]) == "grad_outputs[0]"
    with pytest.raises(TypeError, match=r"in_types\[0\] must be a numpy or cupy ndarray"):
        type_check.get_types((None, x), "in_types", False)


@pytest.mark.parametrize("data", [[numpy.zeros(2)], (numpy.zeros(2), [1, 2])])
def test_get_types_rejects_non_tuples_and_non_arrays(data):
    with pytest.raises(TypeError):
        type_check.get_types(data, "in_types", False)


def test_get_types_reports_given_shapes():
    x = numpy.zeros(6, numpy.float32)
    (x_type,) = type_check.get_types((x,), "in_types", False, shapes=((2, 3),))
    assert x_type.shape.eval() == (2, 3)
    assert x_type.dtype.eval() == numpy.float32
    with pytest.raises(ValueError):
        type_check.get_types((x,), "in_types", False, shapes=())


def test_get_light_types_wraps_the_arrays_themselves():
    x = numpy.zeros((2, 3))
    light = type_check.get_light_types((x,))
    assert isinstance(light, type_check.LightTypeInfoTuple)
    assert light[0] is x
    assert light.size() == 1
    (reshaped,) = type_check.get_light_types((x,), shapes=((3, 2),))
    assert (reshaped.shape, reshaped.dtype, reshaped.size) == ((3, 2), x.dtype, 6)


# --- light mode ------------------------------------------------------------------------------

def test_light_mode_get_types_returns_arrays_that_compare_directly():
    x = numpy.zeros((2, 3), numpy.float32)
    w = numpy.zeros((4, 2), numpy.float32)
    with type_check.light_mode:
        in_types = type_check.get_types((x, w), "in_types", False)
        assert isinstance(in_types, type_check.LightTypeInfoTuple)
        x_type, w_type = in_types
        assert x_type is x
        comparison = x_type.shape[0] == w_type.shape[1]
        assert comparison is True
        assert in_types.size() == 2
        type_check.expect(comparison, x_type.dtype == numpy.float32, x_type.ndim == 2)
        with pytest.raises(type_check.InvalidType):
            type_check.expect(True, x_type.ndim == 3)


def test_light_mode_get_types_describes_missing_gradient():
    with type_check.light_mode:
        (none_type,) = type_check.get_types((None,), "grad", True)
    assert (none_type.shape, none_type.ndim, none_type.dtype) == ((), 0, None)


def test_light_mode_helpers_work_on_plain_values():
    with type_check.light_mode:
        assert type_check.eval(5) == 5
        assert type_check.prod((2, 3, 4)) == 24
        assert type_check.prod(()) == 1
        marker = object()
        assert type_check.make_variable(marker, "m") is marker


def test_light_mode_nests_and_restores_after_errors():
    assert not type_check.in_light_mode()
    with pytest.raises(KeyError), type_check.light_mode:
        with type_check.light_mode:
            assert type_check.in_light_mode()
        assert type_check.in_light_mode()
        raise KeyError
    assert not type_check.in_light_mode()


def test_light_mode_is_per_thread():
    seen = []
    with type_check.light_mode:
        thread = threading.Thread(target=lambda: seen.append(type_check.in_light_mode()))
        thread.start()
        thread.join()
        assert type_check.in_light_mode()
    assert seen == [False]


# --- InvalidType and the function context -----------------------------------------------------

def test_invalid_type_message_names_function_inside_check_context():
    x = numpy.zeros((2, 3, 4), numpy.float32)
    (x_type,) = type_check.get_types((x,), "in_types", False)
    context = type_check.get_function_check_context(_FakeFunction("Linear"))
    with pytest.raises(type_check.InvalidType) as info, context:
        type_check.expect(x_type.ndim == 2)
    assert str(info.value) == (
        "\nInvalid operation is performed in: Linear (Forward)\n\n"
        "Expect: in_types[0].ndim == 2\n"
        "Actual: 3 != 2")
    assert info.value.expect == "in_types[0].ndim == 2"
    assert info.value.actual == "3 != 2"


def test_invalid_type_message_outside_context_has_no_header():
    error = type_check.InvalidType("x == 1", "2 != 1")
    assert str(error) == "Expect: x == 1\nActual: 2 != 1"


def test_check_context_restores_previous_function_even_after_error():
    outer, inner = _FakeFunction("Outer"), _FakeFunction("Inner")
    with type_check.get_function_check_context(outer):
        with pytest.raises(KeyError), type_check.get_function_check_context(inner):
            assert "Inner" in str(type_check.InvalidType("a", "b"))
            raise KeyError
        assert "in: Outer (Forward)" in str(type_check.InvalidType("a", "b"))
    assert "Invalid operation" not in str(type_check.InvalidType("a", "b"))


def test_invalid_type_explicit_message_replaces_layout():
    with type_check.get_function_check_context(_FakeFunction()):
        error = type_check.InvalidType("e", "a", msg="custom")
    assert (str(error), error.expect, error.actual) == ("custom", "e", "a")


def test_invalid_type_survives_pickling_with_its_message():
    with type_check.get_function_check_context(_FakeFunction("Conv")):
        error = type_check.InvalidType("x.ndim == 4", "3 != 4")
    restored = pickle.loads(pickle.dumps(error))
    assert isinstance(restored, type_check.InvalidType)
    assert str(restored) == str(error)
    assert "Conv (Forward)" in str(restored)
    assert (restored.expect, restored.actual) == ("x.ndim == 4", "3 != 4")


# --- expect ----------------------------------------------------------------------------------

def test_expect_stops_at_first_failing_condition():
    x, y = _variables(1, 2)
    with pytest.raises(type_check.InvalidType) as info:
        type_check.expect(x == 1, y == 3, x == 5)
    assert info.value.expect == "y == 3"
    type_check.expect(x == 1, y == 2)
    type_check.expect()


def test_expect_accepts_plain_bools_outside_light_mode():
    type_check.expect(True, numpy.bool_(True))
    with pytest.raises(type_check.InvalidType) as info:
        type_check.expect(False)
    assert str(info.value) == "Expect: True\nActual: False"


def test_expect_rejects_values_that_are_not_conditions():
    (x,) = _variables(1)
    with pytest.raises(TypeError, match="must be a comparison"):
        type_check.expect(x + 1)


def test_expect_prints_containers_of_expressions_as_written():
    x, y = type_check.Variable((2, 3), "x"), type_check.Variable((4,), "y")
    with pytest.raises(type_check.InvalidType) as info:
        type_check.expect(x == (y[0], 3))
    assert str(info.value) == "Expect: x == (y[0], 3)\nActual: (2, 3) != (4, 3)"


# --- argname, prod, eval, make_variable, same_types, broadcast -------------------------------

def test_argname_renames_entries_used_in_messages():
    x = numpy.zeros((2, 3), numpy.float32)
    w = numpy.zeros((3, 3), numpy.float32)
    in_types = type_check.get_types((x, w), "in_types", False)
    type_check.argname(in_types, ("x", "W"))
    x_type, w_type = in_types
    assert str(x_type.shape[1] == w_type.shape[0]) == "x.shape[1] == W.shape[0]"
    with pytest.raises(type_check.InvalidType) as info:
        type_check.expect(x_type.ndim == 4)
    assert info.value.expect == "x.ndim == 4"
    assert type_check.argname is type_check._argname


def test_argname_rejects_wrong_number_of_names():
    in_types = type_check.get_types((numpy.zeros(1),), "in_types", False)
    with pytest.raises(type_check.InvalidType) as info:
        type_check._argname(in_types, ("x", "W"))
    assert str(info.value) == "Invalid number of arguments"
    assert (info.value.expect, info.value.actual) == ("2 argument(s)", "1 argument(s)")


def test_argname_leaves_light_entries_alone():
    x = numpy.zeros(1)
    light = type_check.get_light_types((x,))
    type_check.argname(light, ("x",))
    assert light[0] is x


def test_prod_builds_printable_call_outside_light_mode():
    (x_type,) = type_check.get_types((numpy.zeros((2, 3, 4)),), "in_types", False)
    product = type_check.prod(x_type.shape)
    assert str(product) == "prod(in_types[0].shape)"
    assert type_check.eval(product) == 24
    assert type_check.eval(type_check.prod(())) == 1


def test_eval_evaluates_expressions_and_passes_plain_values():
    x, y = _variables(2, 3)
    assert type_check.eval(x * y) == 6
    assert type_check.eval([x, (y, 1)]) == [2, (3, 1)]
    assert type_check.eval(7) == 7


def test_make_variable_names_a_value_for_messages():
    n = type_check.make_variable(4, "n")
    assert isinstance(n, type_check.Variable)
    (x_type,) = type_check.get_types((numpy.zeros((3,)),), "in_types", False)
    with pytest.raises(type_check.InvalidType) as info:
        type_check.expect(x_type.shape[0] == n)
    assert (info.value.expect, info.value.actual) == ("in_types[0].shape[0] == n", "3 != 4")


def test_same_types_distinguishes_numpy_arrays_from_others():
    x, y = numpy.zeros(2), numpy.ones((3, 3))
    assert type_check.same_types(x, y)
    assert type_check.same_types()
    assert not type_check.same_types(x, [1.0, 2.0])
    assert not type_check.same_types(x, numpy.float64(1.0))


def test_expect_broadcast_shapes_lists_shapes_that_do_not_broadcast():
    x_type, y_type = type_check.get_types(
        (numpy.zeros((2, 3)), numpy.zeros((4,))), "in_types", False)
    type_check.expect_broadcast_shapes(x_type.shape, type_check.Constant((1, 3)))
    with pytest.raises(type_check.InvalidType) as info:
        type_check.expect_broadcast_shapes(x_type.shape, y_type.shape)
    assert str(info.value) == (
        "cannot broadcast inputs of the following shapes:\n"
        "in_types[0].shape = (2, 3)\n"
        "in_types[1].shape = (4,)")


def test_make_variable_from_array_checks_the_type():
    x = numpy.zeros((2, 2))
    variable = type_check._make_variable_from_array(x, "x")
    assert (str(variable), variable.shape.eval()) == ("x", (2, 2))
    with type_check.light_mode:
        assert type_check._make_variable_from_array(x, "x") is x
    with pytest.raises(type_check.InvalidType) as info:
        type_check._make_variable_from_array([1], "x")
    assert info.value.expect == "isinstance(x, ndarray)"


# --- the two-pass check used by FunctionNode.apply --------------------------------------------

class _MatMulCheck(_FakeFunction):
    def __init__(self) -> None:
        super().__init__("MatMul")
        self.seen = []

    def check_type_forward(self, in_types):
        self.seen.append(type(in_types))
        type_check._argname(in_types, ("a", "b"))
        a_type, b_type = in_types
        _rows, columns = a_type.shape
        type_check.expect(
            a_type.dtype.kind == "f",
            a_type.ndim == 2,
            columns == b_type.shape[0],
        )


def test_two_pass_check_stops_after_light_pass_when_inputs_are_valid():
    function = _MatMulCheck()
    type_check._check_types_forward(function, (numpy.zeros((2, 3)), numpy.zeros((3, 4))))
    assert function.seen == [type_check.LightTypeInfoTuple]
    assert not type_check.in_light_mode()


def test_two_pass_check_reruns_in_full_mode_to_explain_failure():
    function = _MatMulCheck()
    with pytest.raises(type_check.InvalidType) as info:
        type_check._check_types_forward(function, (numpy.zeros((2, 3)), numpy.zeros((5, 4))))
    assert function.seen == [type_check.LightTypeInfoTuple, type_check.TypeInfoTuple]
    assert str(info.value) == (
        "\nInvalid operation is performed in: MatMul (Forward)\n\n"
        "Expect: a.shape[1] == b.shape[0]\n"
        "Actual: 3 != 5")
    assert not type_check.in_light_mode()


def test_two_pass_check_propagates_other_errors_from_light_pass():
    class Broken(_FakeFunction):
        def check_type_forward(self, in_types):
            raise ValueError("bug in check")

    with pytest.raises(ValueError, match="bug in check"):
        type_check._check_types_forward(Broken(), (numpy.zeros(1),))
    assert not type_check.in_light_mode()


@pytest.mark.gpu
def test_same_types_and_get_types_on_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    try:
        device_count = cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError:
        device_count = 0
    if device_count == 0:
        pytest.skip("needs a CUDA device")
    x, y = cupy.zeros((2, 3), cupy.float32), cupy.ones(4, cupy.float16)
    assert type_check.same_types(x, y)
    assert not type_check.same_types(x, numpy.zeros(1))
    x_type, y_type = type_check.get_types((x, y), "in_types", False)
    assert (x_type.shape.eval(), y_type.dtype.eval()) == ((2, 3), numpy.float16)
