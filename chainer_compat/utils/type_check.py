"""The type-check expression language that ``check_type_forward`` is written in.

Layer 2: imports numpy and ``chainer_compat.backend`` (layer 1) only.
"""

from __future__ import annotations

import contextlib
import operator
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

import numpy

from chainer_compat import backend

# Holds ``current_function`` (whose label prefixes InvalidType messages) and ``light_depth``.
_thread_local = threading.local()

# Printing priorities, loosest first, following Python's grammar; comparisons sit below all.
_COMPARISON = -1
_OR, _XOR, _AND, _SHIFT, _ADDITIVE, _MULTIPLICATIVE, _UNARY, _POWER, _ATOM = range(9)


@contextlib.contextmanager
def get_function_check_context(function: Any) -> Iterator[None]:
    """Names the function whose inputs are being checked, for the length of a ``with`` block.

    Every :class:`InvalidType` built inside the block (without an explicit ``msg``) starts with
    ``Invalid operation is performed in: <function.label> (Forward)``.

    Args:
        function: Any object with a ``label`` attribute (a ``FunctionNode`` or ``Function``).
    """
    previous = getattr(_thread_local, "current_function", None)
    _thread_local.current_function = function
    try:
        yield
    finally:
        _thread_local.current_function = previous


class TypeInfo:
    """Shape and dtype of one array, independent of the device it lives on.

    Args:
        shape: The array's shape.
        dtype: The array's dtype, or None for a missing gradient.
    """

    def __init__(self, shape: tuple[int, ...], dtype: Any) -> None:
        self.shape = shape
        self.dtype = dtype
        self.ndim = len(shape)

    @property
    def size(self) -> int:
        """Number of elements: the product of ``shape``."""
        return _prod_impl(self.shape)

    def __repr__(self) -> str:
        return f"TypeInfo(shape={self.shape!r}, dtype={self.dtype!r})"


class TypeInfoTuple(tuple):
    """The ``in_types`` of a full check: one :class:`Variable` expression per input.

    ``get_types`` sets the ``name`` attribute (``'in_types'`` for forward checks).
    """

    name: str

    def size(self) -> Variable:
        """Returns the number of inputs as an expression printed ``<name>.size``."""
        return Variable(len(self), f"{self.name}.size")


class LightTypeInfoTuple(tuple):
    """The ``in_types`` of a light check: the arrays themselves, so checks evaluate at once."""

    def size(self) -> int:
        """Returns the number of inputs."""
        return len(self)


class _NotTypeCheckable(TypeError, AssertionError):
    """Data that ``get_types`` cannot describe.

    A TypeError, and, for code written against Chainer, whose ``get_types`` fails an
    ``assert`` here, an AssertionError too: an ``except`` for either catches it.
    """


def _require_tuple(data: Any) -> None:
    if not isinstance(data, tuple):
        raise _NotTypeCheckable(
            f"data must be a tuple of arrays, got {type(data).__name__}; wrap it with tuple()")


def get_types(
    data: tuple[Any, ...],
    name: str,
    accept_none: bool,
    *,
    shapes: Sequence[tuple[int, ...]] | None = None,
) -> TypeInfoTuple | LightTypeInfoTuple:
    """Describes a tuple of arrays for ``check_type_forward``.

    Args:
        data: The arrays (numpy or cupy).
        name: Name of the tuple in messages; element ``i`` prints as ``<name>[i]``.
        accept_none: Whether None entries (missing gradients) are allowed; they are described
            as shape ``()`` and dtype None.
        shapes: Shapes to report instead of the arrays' own shapes.

    Returns:
        A :class:`TypeInfoTuple` of :class:`Variable` expressions; in light mode, a
        :class:`LightTypeInfoTuple` whose entries compare directly.

    Raises:
        TypeError: If ``data`` is not a tuple or an entry is not an array (also an
            ``AssertionError``, which Chainer raises).
        ValueError: If ``shapes`` does not have one entry per array.

    Compat: Chainer builds expressions even in light mode. Where Chainer fails an ``assert``,
        the error raised is both a ``TypeError`` and an ``AssertionError``.
    """
    _require_tuple(data)
    if shapes is None:
        shapes = [None] * len(data)  # type: ignore[list-item]
    elif len(shapes) != len(data):
        raise ValueError(
            f"shapes must have one entry per array ({len(data)}), got {len(shapes)}")
    if in_light_mode():
        entries = []
        for index, (array, shape) in enumerate(zip(data, shapes)):
            if array is None and accept_none:
                entries.append(TypeInfo((), None))
                continue
            _require_array(name, index, array)
            entries.append(array if shape is None else TypeInfo(shape, array.dtype))
        return LightTypeInfoTuple(entries)
    info = TypeInfoTuple(
        _get_type(name, index, array, accept_none, shape)
        for index, (array, shape) in enumerate(zip(data, shapes)))
    info.name = name
    return info


def get_light_types(
    data: tuple[Any, ...], *, shapes: Sequence[tuple[int, ...]] | None = None
) -> LightTypeInfoTuple:
    """Wraps arrays for a light check without inspecting them.

    Args:
        data: The arrays.
        shapes: Shapes to report instead of the arrays' own shapes.

    Returns:
        A :class:`LightTypeInfoTuple` of the arrays, or of :class:`TypeInfo` when ``shapes`` is
        given.
    """
    _require_tuple(data)
    if shapes is None:
        return LightTypeInfoTuple(data)
    return LightTypeInfoTuple(TypeInfo(shape, array.dtype) for array, shape in zip(data, shapes))


def _require_array(name: str, index: int, array: Any) -> None:
    if not backend.is_array(array):
        raise _NotTypeCheckable(
            f"{name}[{index}] must be a numpy or cupy ndarray, got {type(array).__name__}")


def _get_type(
    name: str, index: int, array: Any, accept_none: bool, shape: tuple[int, ...] | None = None
) -> Variable:
    label = f"{name}[{index}]"
    if array is None and accept_none:
        return Variable(TypeInfo((), None), label)
    _require_array(name, index, array)
    return Variable(TypeInfo(array.shape if shape is None else shape, array.dtype), label)


def _unary(symbol: str, function: Callable[[Any], Any]) -> Callable[[Expr], UnaryOperator]:
    def build(self: Expr) -> UnaryOperator:
        return UnaryOperator(_UNARY, self, symbol, function)
    return build


def _binary(
    symbol: str, priority: int, function: Callable[[Any, Any], Any],
    right_associative: bool = False,
) -> tuple[Callable[[Expr, Any], BinaryOperator], Callable[[Expr, Any], BinaryOperator]]:
    """Returns the forward and reflected methods of one binary operator."""
    def build(self: Expr, other: Any) -> BinaryOperator:
        return BinaryOperator(priority, self, other, symbol, function, right_associative)

    def build_reflected(self: Expr, other: Any) -> BinaryOperator:
        return BinaryOperator(priority, other, self, symbol, function, right_associative)
    return build, build_reflected


def _comparison(
    symbol: str, inverse: str, function: Callable[[Any, Any], Any]
) -> Callable[[Expr, Any], BoolBinaryOperator]:
    def build(self: Expr, other: Any) -> BoolBinaryOperator:
        return BoolBinaryOperator(self, other, symbol, inverse, function)
    return build


class Expr:
    """A node of an expression tree; operators build bigger trees instead of computing.

    ``str(expr)`` prints the expression as it was written (with the parentheses Python's
    precedence needs) and :meth:`eval` computes its value. Comparisons build
    :class:`BoolBinaryOperator` nodes for :func:`expect`. Attribute access, indexing and calls
    build :class:`GetAttr`, :class:`GetItem` and :class:`Call` nodes.

    Converting an expression to bool raises ``RuntimeError``: ``x == 1 and y == 2`` would
    otherwise silently check only the second comparison. Pass both to :func:`expect` instead.

    Compat: ``**`` computes a power (Chainer's computes ``%``), ``number ** expr`` works,
    NumPy scalars on the left defer to the expression, and iterating an expression yields
    one :class:`GetItem` per element of its value.

    Args:
        priority: Binding strength used when printing; see the module's ``_OR`` ... ``_ATOM``.
    """

    # Makes NumPy scalars and arrays return NotImplemented so our reflected operators run.
    __array_ufunc__ = None

    def __init__(self, priority: int) -> None:
        self.priority = priority

    def eval(self) -> Any:
        """Computes the value of the expression."""
        raise NotImplementedError

    def __getattr__(self, name: str) -> GetAttr:
        # Protocol lookups (copy, pickle, NumPy's __array_interface__) must not get a node.
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return GetAttr(self, name)

    def __getitem__(self, key: Any) -> GetItem:
        return GetItem(self, key)

    def __call__(self, *args: Any) -> Call:
        return Call(self, args)

    def __iter__(self) -> Iterator[GetItem]:
        # Without this, Python's fallback iteration over __getitem__ never stops.
        try:
            length = len(self.eval())
        except TypeError:
            raise TypeError(
                f"only an expression whose value is a sequence can be iterated, got {self}; "
                "use type_check.eval() to get its value") from None
        return (GetItem(self, index) for index in range(length))

    def __bool__(self) -> NoReturn:
        # compat: Chainer's wording, which users match on.
        raise RuntimeError(
            "An Expr instance cannot be evaluated as bool. "
            "Please use chainer.utils.type_check.eval() to evaluate an expression.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self}>"

    __eq__ = _comparison("==", "!=", operator.eq)  # type: ignore[assignment]
    __ne__ = _comparison("!=", "==", operator.ne)  # type: ignore[assignment]
    __lt__ = _comparison("<", ">=", operator.lt)
    __le__ = _comparison("<=", ">", operator.le)
    __gt__ = _comparison(">", "<=", operator.gt)
    __ge__ = _comparison(">=", "<", operator.ge)
    __hash__ = None  # type: ignore[assignment]

    __or__, __ror__ = _binary("|", _OR, operator.or_)
    __xor__, __rxor__ = _binary("^", _XOR, operator.xor)
    __and__, __rand__ = _binary("&", _AND, operator.and_)
    __lshift__, __rlshift__ = _binary("<<", _SHIFT, operator.lshift)
    __rshift__, __rrshift__ = _binary(">>", _SHIFT, operator.rshift)
    __add__, __radd__ = _binary("+", _ADDITIVE, operator.add)
    __sub__, __rsub__ = _binary("-", _ADDITIVE, operator.sub)
    __mul__, __rmul__ = _binary("*", _MULTIPLICATIVE, operator.mul)
    __truediv__, __rtruediv__ = _binary("/", _MULTIPLICATIVE, operator.truediv)
    __floordiv__, __rfloordiv__ = _binary("//", _MULTIPLICATIVE, operator.floordiv)
    __mod__, __rmod__ = _binary("%", _MULTIPLICATIVE, operator.mod)
    __pow__, __rpow__ = _binary("**", _POWER, operator.pow, right_associative=True)

    __neg__ = _unary("-", operator.neg)
    __pos__ = _unary("+", operator.pos)
    __invert__ = _unary("~", operator.invert)


def _eval_expr(value: Any) -> Any:
    """Evaluates expressions, also inside lists, tuples and slices; other values pass through."""
    if isinstance(value, Expr):
        return value.eval()
    if isinstance(value, list):
        return [_eval_expr(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_eval_expr(item) for item in value)
    if isinstance(value, slice):
        return slice(_eval_expr(value.start), _eval_expr(value.stop), _eval_expr(value.step))
    return value


def _repr(value: Any) -> str:
    """Prints a value as it appears inside an expression: expressions by str, literals by repr."""
    if isinstance(value, Expr):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_repr(item) for item in value) + "]"
    if isinstance(value, tuple):
        if len(value) == 1:
            return f"({_repr(value[0])},)"
        return "(" + ", ".join(_repr(item) for item in value) + ")"
    # compat: NumPy 1 printed scalars bare (3, not np.int64(3)); Chainer's messages did too.
    if isinstance(value, (numpy.str_, numpy.bytes_)):
        return repr(value.item())
    if isinstance(value, numpy.generic):
        return str(value)
    return repr(value)


class Atom(Expr):
    """An expression that never needs parentheses: names, constants, attributes, items, calls."""

    def __init__(self) -> None:
        super().__init__(_ATOM)


class Constant(Atom):
    """A literal value, printed with ``repr``.

    Args:
        value: The value.
    """

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value

    def __str__(self) -> str:
        return _repr(self.value)

    def eval(self) -> Any:
        return self.value


class Variable(Atom):
    """A named value, printed as its name (``in_types[0]``, or the name ``argname`` gave it).

    Args:
        value: The value.
        name: The name to print.
    """

    def __init__(self, value: Any, name: str) -> None:
        super().__init__()
        self.value = value
        self.name = name

    def __str__(self) -> str:
        return self.name

    def eval(self) -> Any:
        return self.value


class GetAttr(Atom):
    """Attribute access ``obj.name``.

    Args:
        obj: The expression or value whose attribute is read.
        name: The attribute name: a str, a :class:`Constant` holding one, or an expression
            (printed as ``getattr(obj, name)``).
    """

    def __init__(self, obj: Any, name: Any) -> None:
        super().__init__()
        self.obj = obj
        self.name = name

    def __str__(self) -> str:
        name = self.name
        if isinstance(name, Constant) and isinstance(name.value, str):
            name = name.value
        if isinstance(name, str):
            return f"{_repr(self.obj)}.{name}"
        return f"getattr({_repr(self.obj)}, {_repr(name)})"

    def eval(self) -> Any:
        return getattr(_eval_expr(self.obj), _eval_expr(self.name))


def _str_subscript(key: Any) -> str:
    """Prints an index the way it is written between brackets (slices, ``...``, tuples)."""
    if key is Ellipsis:
        return "..."
    if isinstance(key, slice):
        parts = ["" if part is None else _repr(part) for part in (key.start, key.stop)]
        if key.step is not None:
            parts.append(_repr(key.step))
        return ":".join(parts)
    if isinstance(key, tuple):
        return ", ".join(_str_subscript(item) for item in key)
    return _repr(key)


class GetItem(Atom):
    """Indexing ``obj[key]``; the key may hold slices, ``...`` and expressions.

    Args:
        obj: The expression or value being indexed.
        key: The index.
    """

    def __init__(self, obj: Any, key: Any) -> None:
        super().__init__()
        self.obj = obj
        self.key = key

    def __str__(self) -> str:
        return f"{_repr(self.obj)}[{_str_subscript(self.key)}]"

    def eval(self) -> Any:
        return _eval_expr(self.obj)[_eval_expr(self.key)]


class Call(Atom):
    """A call ``obj(*args)`` with positional arguments.

    Args:
        obj: The expression or value being called.
        args: The positional arguments.
    """

    def __init__(self, obj: Any, args: tuple[Any, ...]) -> None:
        if not isinstance(args, tuple):
            raise TypeError(f"args must be a tuple, got {type(args).__name__}")
        super().__init__()
        self.obj = obj
        self.args = args

    def __str__(self) -> str:
        return f"{_repr(self.obj)}({', '.join(_repr(arg) for arg in self.args)})"

    def eval(self) -> Any:
        function = _eval_expr(self.obj)
        return function(*[_eval_expr(arg) for arg in self.args])


class UnaryOperator(Expr):
    """A prefix operator such as ``-x``.

    Args:
        priority: Binding strength for printing.
        term: The operand.
        exp: The operator's symbol.
        func: Computes the value from the operand's value.
    """

    def __init__(
        self, priority: int, term: Any, exp: str, func: Callable[[Any], Any]
    ) -> None:
        super().__init__(priority)
        self.term = term
        self.exp = exp
        self.func = func

    def eval(self) -> Any:
        return self.func(_eval_expr(self.term))

    def __str__(self) -> str:
        text = _repr(self.term)
        if isinstance(self.term, Expr) and self.term.priority < self.priority:
            text = f"({text})"
        return self.exp + text


class BinaryOperator(Expr):
    """An infix operator such as ``x + y``.

    Args:
        priority: Binding strength for printing.
        lhs: The left operand.
        rhs: The right operand.
        exp: The operator's symbol.
        func: Computes the value from the operands' values.
        right_associative: True only for ``**``; decides which side of an equally binding
            operand gets parentheses.
    """

    def __init__(
        self, priority: int, lhs: Any, rhs: Any, exp: str, func: Callable[[Any, Any], Any],
        right_associative: bool = False,
    ) -> None:
        super().__init__(priority)
        self.lhs = lhs
        self.rhs = rhs
        self.exp = exp
        self.func = func
        self.right_associative = right_associative

    def eval(self) -> Any:
        return self.func(self._eval_left(), self._eval_right())

    def _eval_left(self) -> Any:
        return _eval_expr(self.lhs)

    def _eval_right(self) -> Any:
        return _eval_expr(self.rhs)

    def __str__(self) -> str:
        left = _repr(self.lhs)
        if isinstance(self.lhs, Expr) and (
                self.lhs.priority < self.priority
                or (self.lhs.priority == self.priority and self.right_associative)):
            left = f"({left})"
        right = _repr(self.rhs)
        # A left-associative operator needs parentheses around an equal right operand:
        # x - (y - z) is not x - y - z.
        if isinstance(self.rhs, Expr) and (
                self.rhs.priority < self.priority
                or (self.rhs.priority == self.priority and not self.right_associative)):
            right = f"({right})"
        return f"{left} {self.exp} {right}"


class Testable:
    """A condition that :func:`expect` can test."""

    def expect(self) -> None:
        """Raises :class:`InvalidType` when the condition does not hold."""
        raise NotImplementedError


class BoolBinaryOperator(BinaryOperator, Testable):
    """A comparison such as ``x.ndim == 2``, tested by :func:`expect`.

    Args:
        lhs: The left operand.
        rhs: The right operand.
        exp: The comparison's symbol.
        inv: The symbol of its negation, used to print the actual values.
        func: Computes the comparison from the operands' values.
    """

    def __init__(
        self, lhs: Any, rhs: Any, exp: str, inv: str, func: Callable[[Any, Any], Any]
    ) -> None:
        super().__init__(_COMPARISON, lhs, rhs, exp, func)
        self.inv = inv

    def expect(self) -> None:
        left = self._eval_left()
        right = self._eval_right()
        if not self.func(left, right):
            raise InvalidType(
                f"{_str_side(self.lhs)} {self.exp} {_str_side(self.rhs)}",
                f"{_str_side(left)} {self.inv} {_str_side(right)}")


def _str_side(value: Any) -> str:
    # compat: Chainer prints each side of a failed comparison with str(), so 'f' shows as f;
    # containers go through _repr so the expressions inside them print as written.
    if isinstance(value, (list, tuple)):
        return _repr(value)
    return str(value)


def _invalid_type_message(expect: Any, actual: Any) -> str:
    message = f"Expect: {expect}\nActual: {actual}"
    function = getattr(_thread_local, "current_function", None)
    if function is not None:
        message = f"\nInvalid operation is performed in: {function.label} (Forward)\n\n{message}"
    return message


class InvalidType(Exception):
    """Raised when the inputs of a function do not satisfy its type checks.

    Without ``msg``, the message is ``Expect: <expect>`` and ``Actual: <actual>`` on two
    lines, preceded by ``Invalid operation is performed in: <label> (Forward)`` and a blank
    line when raised inside :func:`get_function_check_context`.

    Args:
        expect: What the check expected, as text.
        actual: What it found, as text.
        msg: A complete message that replaces the one built from the other two.

    Attributes:
        expect: As given.
        actual: As given.
    """

    def __init__(self, expect: Any, actual: Any, msg: str | None = None) -> None:
        if msg is None:
            msg = _invalid_type_message(expect, actual)
        super().__init__(msg)
        self.expect = expect
        self.actual = actual

    def __reduce__(self) -> tuple[type[InvalidType], tuple[Any, Any, str]]:
        # Unpickling must reuse the message: the function context is gone by then.
        return InvalidType, (self.expect, self.actual, self.args[0])


def _argname(in_types: Sequence[Any], names: Sequence[str]) -> None:
    """Renames the entries of ``in_types`` so messages say ``x.ndim`` instead of ``in_types[0]``.

    Args:
        in_types: The ``in_types`` given to ``check_type_forward``.
        names: One name per input.

    Raises:
        InvalidType: If the number of inputs differs from the number of names.
    """
    if len(in_types) != len(names):
        expect, actual = f"{len(names)} argument(s)", f"{len(in_types)} argument(s)"
        message = "Invalid number of arguments"
        if getattr(_thread_local, "current_function", None) is not None:
            # Inside apply's check, say which function and what it expected, as for expect().
            message = _invalid_type_message(expect, actual).replace(
                "Expect:", message + "\nExpect:", 1)
        raise InvalidType(expect, actual, message)
    for in_type, name in zip(in_types, names):
        # Light-mode entries are plain arrays and keep no name.
        if isinstance(in_type, Variable):
            in_type.name = name


# compat: the public name of Chainer before v7, still used by older user code.
argname = _argname


def expect(*bool_exprs: Any) -> None:
    """Tests each condition in order and raises at the first that does not hold.

    Args:
        *bool_exprs: Comparisons built from ``in_types`` (:class:`Testable`); in light mode,
            plain bools.

    Raises:
        InvalidType: If a condition does not hold. In light mode the message is empty: the
            caller reruns the check in full mode to explain it.

    Compat: outside light mode a plain bool is accepted too (a False reads ``Expect: True``);
        Chainer fails an ``assert`` instead.
    """
    if in_light_mode():
        if not all(bool_exprs):
            raise InvalidType("", "")
        return
    for condition in bool_exprs:
        if isinstance(condition, Testable):
            condition.expect()
        elif isinstance(condition, (bool, numpy.bool_)):
            if not condition:
                raise InvalidType("True", "False")
        else:
            raise TypeError(
                "each condition given to type_check.expect must be a comparison of in_types "
                f"(such as x_type.ndim == 2), got {type(condition).__name__}")


def same_types(*arrays: Any) -> bool:
    """Returns whether the arrays are all NumPy arrays or all CuPy arrays."""
    if all(isinstance(array, numpy.ndarray) for array in arrays):
        return True
    return all(backend.is_cupy_array(array) for array in arrays)


def eval(exp: Any) -> Any:
    """Returns the value of an expression; in light mode values are already plain.

    Args:
        exp: An expression, or (in light mode, or nested in lists and tuples) a plain value.
    """
    if in_light_mode():
        return exp
    return _eval_expr(exp)


def make_variable(value: Any, name: str) -> Any:
    """Returns ``value`` as a :class:`Variable` printed as ``name``; in light mode, as is.

    Args:
        value: The value.
        name: The name to print.
    """
    if in_light_mode():
        return value
    return Variable(value, name)


def _make_variable_from_array(array: Any, name: str) -> Any:
    if not backend.is_array(array):
        raise InvalidType(f"isinstance({name}, ndarray)", f"type({name}) == {type(array)}")
    if in_light_mode():
        return array
    return Variable(TypeInfo(array.shape, array.dtype), name)


class LightMode:
    """Context manager for light mode: ``get_types``, ``eval``, ``prod`` and ``make_variable``
    work on plain values and ``expect`` takes plain bools. Use the :data:`light_mode` instance.

    Nesting and threads are safe: the mode is a per-thread depth counter.
    """

    def __enter__(self) -> None:
        _thread_local.light_depth = getattr(_thread_local, "light_depth", 0) + 1

    def __exit__(self, *exc_info: object) -> None:
        _thread_local.light_depth -= 1


light_mode = LightMode()


def in_light_mode() -> bool:
    """Returns whether the current thread is inside ``with light_mode``."""
    return getattr(_thread_local, "light_depth", 0) > 0


def _prod_impl(values: Any) -> Any:
    result = 1
    for value in values:
        result *= value
    return result


_prod = Variable(_prod_impl, "prod")


def prod(xs: Any) -> Any:
    """Product of a sequence (such as a shape), printed ``prod(...)`` in messages.

    Args:
        xs: A sequence, or an expression whose value is one.

    Returns:
        A :class:`Call` expression; in light mode, the product (1 when empty).
    """
    if in_light_mode():
        return _prod_impl(xs)
    return _prod(xs)


def expect_broadcast_shapes(*shape_types: Any) -> None:
    """Checks that shapes broadcast together.

    Args:
        *shape_types: Shapes, usually ``x_type.shape`` expressions.

    Raises:
        InvalidType: Listing every shape, if they do not broadcast.
    """
    shapes = [eval(shape_type) for shape_type in shape_types]
    try:
        numpy.broadcast_shapes(*shapes)
    except ValueError:
        lines = ["cannot broadcast inputs of the following shapes:"]
        lines += [f"{shape_type} = {shape}" for shape_type, shape in zip(shape_types, shapes)]
        raise InvalidType("", "", msg="\n".join(lines)) from None


def _check_types_forward(function: Any, in_data: tuple[Any, ...]) -> None:
    """Runs ``function.check_type_forward`` the way Chainer's ``FunctionNode.apply`` does.

    NOTE [two-pass type check]: a light pass on the arrays themselves costs little and
    usually passes. Only when it fails is the check rerun on expressions, inside the
    function's check context, to raise a message that names the failed condition.
    """
    depth = getattr(_thread_local, "light_depth", 0)
    _thread_local.light_depth = depth + 1
    try:
        function.check_type_forward(LightTypeInfoTuple(in_data))
        return
    except InvalidType:
        pass
    finally:
        _thread_local.light_depth = depth
    in_types = get_types(in_data, "in_types", False)
    with get_function_check_context(function):
        function.check_type_forward(in_types)
