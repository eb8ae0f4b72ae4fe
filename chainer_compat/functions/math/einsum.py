"""``einsum``: differentiable Einstein summation over float arrays.

Layer 5: imports the core. The subscripts are parsed once in ``einsum``, where each ``...`` is
replaced by explicit letters, so the function node only ever sees plain letters. A gradient
of an einsum is another einsum whose output may repeat a letter (a diagonal) or carry a letter
no input has (a broadcast): a ``DiagEinSum``, whose gradients are ``DiagEinSum`` too.
"""

from __future__ import annotations

import string
from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.configuration import config
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check

# The letters of a subscript string; integer sublist entries index into it, as in NumPy.
_SYMBOLS = string.ascii_uppercase + string.ascii_lowercase
# Stands for "..." while parsing: one character, outside _SYMBOLS.
_ELLIPSIS = "@"


def _contract(xp: Any, subscripts: list[str], out_subscript: str, inputs: tuple[Any, ...],
              out_shape: tuple[int, ...] | None, dtype: Any) -> Any:
    """Evaluates the einsum ``subscripts -> out_subscript``.

    Unlike ``xp.einsum``, the output may repeat a letter (the result fills that diagonal of a
    zero array) or use a letter no input has (the result is broadcast along it; its length
    comes from ``out_shape``).
    """
    unique = list(dict.fromkeys(out_subscript))
    present = set("".join(subscripts))
    options = {"optimize": True} if len(inputs) >= 3 else {}

    def contract(direct: str) -> Any:
        result = xp.einsum(",".join(subscripts) + "->" + direct, *inputs, **options)
        # A one-operand einsum may return a (read-only) view of its input.
        return xp.array(result) if len(inputs) == 1 else result

    if len(unique) == len(out_subscript) and present.issuperset(unique):
        return utils.force_array(contract(out_subscript), dtype)
    # compat: the letters in alphabetical order, as Chainer contracts them here.
    letters = sorted(unique)
    direct = "".join(c for c in letters if c in present)
    result = contract(direct)
    sizes = dict(zip(direct, result.shape))
    if out_shape is not None:
        sizes.update(zip(out_subscript, out_shape))
    expanded = result.reshape(tuple(sizes[c] if c in present else 1 for c in letters))
    full = xp.broadcast_to(expanded, tuple(sizes[c] for c in letters))
    full = full.transpose(tuple(letters.index(c) for c in unique))
    if len(unique) == len(out_subscript):
        return xp.ascontiguousarray(full, dtype=dtype)
    # Repeated letters: write into the diagonal selected by one index grid per letter.
    output = xp.zeros(tuple(sizes[c] for c in out_subscript), dtype)
    grids = xp.ix_(*[xp.arange(sizes[c]) for c in unique])
    output[tuple(grids[unique.index(c)] for c in out_subscript)] = full
    return output


class EinSum(FunctionNode):
    """Einstein summation ``in_subs -> out_sub`` of float inputs (letters only, no ``...``).

    ``in_subs`` holds one subscript per input, separated by commas. Use :func:`einsum`.
    """

    # Only a DiagEinSum has one: the lengths of output letters that no input has.
    out_shape: tuple[int, ...] | None = None

    def __init__(self, in_subs: str, out_sub: str) -> None:
        self.in_subs = in_subs
        self.out_sub = out_sub

    def check_type_forward(self, in_types: Any) -> None:
        for i, in_type in enumerate(in_types):
            type_check._argname((in_type,), (f"x{i}",))
            type_check.expect(in_type.dtype.kind == "f")
        subscripts = self.in_subs.split(",")
        type_check.expect(in_types.size() == len(subscripts))
        lengths: dict[str, Any] = {}
        for subscript, in_type in zip(subscripts, in_types):
            type_check.expect(in_type.ndim == len(subscript))
            for axis, letter in enumerate(subscript):
                if letter in lengths:
                    type_check.expect(lengths[letter] == in_type.shape[axis])
                else:
                    lengths[letter] = in_type.shape[axis]

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        xp = backend.get_array_module(*inputs)
        dtype = xp.result_type(*[x.dtype for x in inputs])
        return _contract(xp, self.in_subs.split(","), self.out_sub, inputs, self.out_shape,
                         dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        inputs = self.get_retained_inputs()
        gy, = grad_outputs
        subscripts = self.in_subs.split(",")
        grads = []
        for i in indexes:
            # The gradient of input i contracts the output gradient with the other inputs.
            grad_subs = ",".join(self.out_sub if j == i else s for j, s in enumerate(subscripts))
            operands = tuple(gy if j == i else x for j, x in enumerate(inputs))
            gx, = DiagEinSum(grad_subs, subscripts[i], inputs[i].shape).apply(operands)
            grads.append(gx)
        return tuple(grads)


class DiagEinSum(EinSum):
    """An :class:`EinSum` whose output may repeat a letter or have one no input has: the
    gradient of an einsum. ``out_shape`` is the output's shape."""

    def __init__(self, in_subs: str, out_sub: str, out_shape: tuple[int, ...]) -> None:
        super().__init__(in_subs, out_sub)
        self.out_shape = out_shape


def _sublist_letters(sublist: Any) -> str:
    """Converts one sublist (ints and Ellipsis) of the interleaved form to letters."""
    letters = []
    for item in sublist:
        if item is Ellipsis:
            letters.append(_ELLIPSIS)
        elif isinstance(item, int) and not isinstance(item, bool) and 0 <= item < len(_SYMBOLS):
            letters.append(_SYMBOLS[item])
        else:
            # compat: Chainer's type and wording (NumPy's) for the first sentence.
            raise TypeError("For this input type lists must contain either int or Ellipsis: "
                            f"ints in [0, {len(_SYMBOLS)}), got {item!r}")
    return "".join(letters)


def _parse(operands: tuple[Any, ...]) -> tuple[list[str], str, list[Any]]:
    """Splits ``einsum``'s arguments into input subscripts, the output subscript and the
    arrays; ``...`` is still the one character ``_ELLIPSIS``.

    Raises:
        ValueError: On malformed subscripts (Chainer's messages).
        TypeError: On a sublist entry that is not an int or Ellipsis, or an operand that is
            not a Variable or an array.
    """
    if not operands:
        raise ValueError("No input operands")
    explicit: str | None
    if isinstance(operands[0], str):
        subscripts = operands[0].replace(" ", "")
        arrays = list(operands[1:])
        for char in subscripts:
            if char not in ".,->" and char not in _SYMBOLS:
                raise ValueError(f"Character {char} is not a valid symbol.")
        if "-" in subscripts or ">" in subscripts:
            if (subscripts.count("-") > 1 or subscripts.count(">") > 1
                    or subscripts.count("->") != 1):
                raise ValueError("Subscripts can only contain one '->'.")
        subscripts = subscripts.replace("...", _ELLIPSIS)
        if "." in subscripts:
            raise ValueError("Invalid Ellipses.")
        if "->" in subscripts:
            inputs, explicit = subscripts.split("->")
        else:
            inputs, explicit = subscripts, None
        in_subs = inputs.split(",")
    else:
        # The interleaved form: array, sublist, array, sublist, ..., [output sublist].
        rest = list(operands)
        arrays, in_subs = [], []
        while len(rest) >= 2:
            arrays.append(rest.pop(0))
            in_subs.append(_sublist_letters(rest.pop(0)))
        explicit = _sublist_letters(rest[0]) if rest else None
    joined = "".join(in_subs)
    if explicit is None:
        # Implicit output: "..." first, then the letters used once, in alphabetical order.
        output = "".join(c for c in sorted(set(joined)) if c == _ELLIPSIS or joined.count(c) == 1)
    else:
        output = explicit
        for char in output:
            if char not in joined:
                shown = "..." if char == _ELLIPSIS else char
                raise ValueError(f"Output character {shown} did not appear in the input")
        if len(set(output)) != len(output):
            raise ValueError(f"the output subscripts must name each axis once, got '{output}'")
    if len(in_subs) != len(arrays):
        raise ValueError("Number of einsum subscripts must be equal to the number of operands.")
    return in_subs, output, arrays


def _expand_ellipses(in_subs: list[str], output: str, arrays: list[Any]) -> tuple[str, str]:
    """Replaces each ``...`` by letters for the axes it covers, aligned from the right.

    Raises:
        ValueError: If an operand has fewer axes than its subscript names, or if the output
            drops a non-empty ``...`` (Chainer does not sum over it).
    """
    covered = []
    ellipsis_shapes = {}
    for index, (subscript, array) in enumerate(zip(in_subs, arrays)):
        named = len(subscript) - subscript.count(_ELLIPSIS)
        shape = variable.as_array(array).shape
        if _ELLIPSIS not in subscript:
            covered.append(0)
        elif len(shape) < named:
            raise ValueError(f"operand {index} must have at least {named} axes for subscript "
                             f"'{subscript.replace(_ELLIPSIS, '...')}', got {len(shape)}")
        else:
            covered.append(len(shape) - named)
            start = subscript.index(_ELLIPSIS)
            ellipsis_shapes[index] = tuple(shape[start:start + covered[-1]])
    if config.type_check and len(set(ellipsis_shapes.values())) > 1:
        # compat: Chainer checks each '...' as one axis whose length is the covered shape, so
        # the operands' '...' must cover the same shape: it does not broadcast them.
        actual = ", ".join(f"x{index}: {shape}" for index, shape in ellipsis_shapes.items())
        raise type_check.InvalidType(
            "every '...' covers the same shape", actual,
            "the axes each operand's '...' covers must have the same shape in einsum (it does "
            f"not broadcast them), got {actual}: reshape or broadcast the operands first\n"
            f"Expect: every '...' covers the same shape\nActual: {actual}")
    count = max(covered, default=0)
    if count and _ELLIPSIS not in output:
        # compat: Chainer refuses to sum over the axes of an ellipsis.
        raise ValueError("einsum should not support summing over Ellipsis: the output "
                         "subscript must keep '...' when the inputs' '...' covers axes.")
    used = set("".join(in_subs))
    spare = "".join(c for c in _SYMBOLS if c not in used)[:count]
    expanded = [s.replace(_ELLIPSIS, spare[count - k:]) for s, k in zip(in_subs, covered)]
    return ",".join(expanded), output.replace(_ELLIPSIS, spare)


def _check_operands(arrays: list[Any]) -> None:
    """Raises TypeError, with the lines of Chainer's own check, unless every operand is a
    Variable or an array."""
    for array in arrays:
        if not isinstance(array, variable.Variable) and not backend.is_array(array):
            actual = ", ".join(
                str(type(variable.as_array(a) if isinstance(a, variable.Variable) else a))
                for a in arrays)
            raise TypeError(
                "incompatible array types are mixed in the forward input (EinSum).\n"
                f"Actual: {actual}\n"
                "operands of einsum must be Variables or NumPy/CuPy arrays, got "
                f"{type(array).__name__}: wrap Python numbers and lists with numpy.asarray()")


def einsum(*operands: Any) -> variable.Variable:
    """Einstein summation of float arrays, with ``numpy.einsum``'s subscripts.

    Give either a subscript string and the arrays (``einsum('ij,jk->ik', a, b)``), or arrays
    interleaved with sublists of ints and Ellipsis (``einsum(a, [0, 1], b, [1, 2], [0, 2])``).
    Without ``->`` the output holds ``...`` first, then the letters used once, sorted.

    Args:
        *operands: The subscripts and the input Variables or arrays (float).

    Returns:
        The output Variable, of the inputs' result dtype.

    Raises:
        ValueError: On malformed subscripts, and when the output drops a ``...`` that covers
            axes (Chainer does not sum over an ellipsis).
        TypeError: On a sublist entry that is not an int or Ellipsis, or an operand that is
            not a Variable or an array.
        chainer_compat.utils.type_check.InvalidType: On non-float inputs, or a letter whose
            axes differ in length.
    """
    in_subs, output, arrays = _parse(operands)
    _check_operands(arrays)
    inputs, out_sub = _expand_ellipses(in_subs, output, arrays)
    y, = EinSum(inputs, out_sub).apply(tuple(arrays))
    return y
