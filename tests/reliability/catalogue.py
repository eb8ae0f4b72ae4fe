"""The bad-input catalogue: mistakes users really make, the error each gets, and what it must say.

Each case provokes one error from a fresh scene. ``test_bad_input.py`` (and, for the cases that
wait for a core change, ``test_bad_input_pending.py``) check the exception type, the words of
the message that tell the user what to do, and that nothing observable changed. ``docs/errors.md``
is rendered from these cases and the messages they really produce:

    python3 tests/reliability/catalogue.py --write     # regenerate docs/errors.md
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import pathlib
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy

import chainer_compat as C
import chainer_compat.functions as F
import chainer_compat.links as L
from chainer_compat import FunctionHook, FunctionNode, Variable, backend
from chainer_compat.autograd import Function as CtxFunction
from chainer_compat.function import Function
from chainer_compat.functions.connection.linear import linear
from chainer_compat.utils import type_check

if __package__ in (None, ""):  # run as a script: make ``reliability.state`` importable
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from reliability.state import State

DOC_PATH = pathlib.Path(__file__).resolve().parents[2] / "docs" / "errors.md"


# ------------------------------------------------------------------------------ cases
@dataclass(frozen=True)
class Case:
    """One user mistake.

    Attributes:
        key: Short unique id (the test id).
        section: Heading it is listed under in docs/errors.md.
        input: What the user did, in Markdown.
        raises: The exception type (or warning category) the user gets.
        words: Phrases the message must contain: the ones saying what went wrong and what to do.
        trigger: Makes the mistake in a :class:`Scene`.
        pending: Name of the core change the case waits for (None: the core already does it).
    """

    key: str
    section: str
    input: str
    raises: type
    words: tuple[str, ...]
    trigger: Callable[[Scene], Any]
    pending: str | None = None


CASES: list[Case] = []
_section = ""


def section(title: str) -> None:
    global _section
    _section = title


def case(key: str, input: str, raises: type, *words: str,
         pending: str | None = None) -> Callable[[Callable[[Scene], Any]], Callable]:
    def register(trigger: Callable[[Scene], Any]) -> Callable[[Scene], Any]:
        assert key not in {c.key for c in CASES}, key
        CASES.append(Case(key, _section, input, raises, tuple(words), trigger, pending))
        return trigger
    return register


class Scene:
    """Fresh objects for one case: ``x`` (float32, with a gradient from an earlier step) and
    ``W``. :meth:`checkpoint` records the state the case must leave unchanged."""

    def __init__(self) -> None:
        rng = numpy.random.RandomState(0)
        self.x = Variable(rng.uniform(-1, 1, (2, 3)).astype(numpy.float32))
        self.x.grad = numpy.full((2, 3), 0.5, numpy.float32)
        self.W = Variable(rng.uniform(-1, 1, (2, 3)).astype(numpy.float32))
        self.watched: list[Variable] = [self.x, self.W]
        self.before: State | None = None

    def checkpoint(self, *more: Variable) -> None:
        """Records the state now, watching ``more`` Variables as well; call it right before the
        mistake when the case builds a graph first."""
        self.watched.extend(more)
        self.before = State.of(self.watched)

    def assert_unchanged(self) -> None:
        assert self.before is not None
        State.of(self.watched).assert_same_as(self.before)


def message_of(error: BaseException | Warning) -> str:
    # KeyError's str() is the repr of its argument; users read the argument.
    if isinstance(error, KeyError) and error.args:
        return str(error.args[0])
    # Python 3.13 adds its own suggestion to a TypeError for an unknown keyword; the catalogue
    # shows the message the package controls, the same on every supported Python.
    return _PYTHON_SUGGESTION.sub("", str(error))


_PYTHON_SUGGESTION = re.compile(r"\. Did you mean '[^']*'\?$")


def provoke(case: Case, scene: Scene) -> BaseException | Warning | None:
    """Runs the case; returns the exception raised, or the first warning of the expected
    category, or None if neither happened."""
    scene.checkpoint()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            case.trigger(scene)
        except Exception as error:  # noqa: BLE001 - every error is a possible outcome
            error.__traceback__ = None  # keep no frames (and so no graph) alive
            return error
    if issubclass(case.raises, Warning):
        for record in caught:
            if issubclass(record.category, case.raises):
                return record.message
    return None


def check_case(case: Case) -> None:
    """The test of one case: type, words, nothing changed, and the next run is right."""
    from reliability.state import assert_next_run_correct

    scene = Scene()
    error = provoke(case, scene)
    assert error is not None, f"{case.input}: nothing was raised (expected {case.raises})"
    assert isinstance(error, case.raises), (
        f"{case.input}: got {type(error).__name__}: {error}, expected {case.raises.__name__}")
    message = message_of(error)
    missing = [word for word in case.words if word not in message]
    assert not missing, f"the message lacks {missing}:\n{message}"
    scene.assert_unchanged()
    assert_next_run_correct()


# ------------------------------------------------------------------------------ helpers
class Square(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] * inputs[0],

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 2.0 * x * grad_outputs[0],


class Returns(FunctionNode):
    """A FunctionNode whose forward or backward returns ``what`` (a callable of its data)."""

    def __init__(self, forward_result=None, backward_result=None):
        self.forward_result = forward_result
        self.backward_result = backward_result

    def forward(self, inputs):
        if self.forward_result is not None:
            return self.forward_result(inputs)
        return inputs[0] * 2.0,

    def backward(self, indexes, grad_outputs):
        return self.backward_result(grad_outputs)


class OldReturns(Function):
    def __init__(self, forward_result=None, backward_result=None):
        self.forward_result = forward_result
        self.backward_result = backward_result

    def forward_cpu(self, inputs):
        if self.forward_result is not None:
            return self.forward_result(inputs)
        return inputs[0] * 2.0,

    def backward_cpu(self, inputs, grad_outputs):
        return self.backward_result(grad_outputs)


class Checked(FunctionNode):
    def check_type_forward(self, in_types):
        type_check._argname(in_types, ("x",))
        x, = in_types
        type_check.expect(x.dtype.kind == "f", x.ndim == 1)

    def forward(self, inputs):
        return inputs[0] * 1.0,


class CtxSquare(CtxFunction):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, gy):
        x, = ctx.saved_tensors
        return 2.0 * x.array * gy.array  # arrays: once-differentiable


def backward_through(scene: Scene, node: Any) -> None:
    """Applies ``node`` (FunctionNode or old-style Function) to a copy of x and backprops."""
    h = scene.x * 1.0
    y = node.apply((h,))[0] if isinstance(node, FunctionNode) else node(h)
    loss = F.sum(y)
    scene.checkpoint(h)
    loss.backward()


class StandInCupyArray:
    """Carries what graph building reads of an array; named like CuPy's for the messages."""

    def __init__(self, array: Any) -> None:
        array = numpy.asarray(array)
        self.dtype, self.shape, self.ndim, self.size = (
            array.dtype, array.shape, array.ndim, array.size)


StandInCupyArray.__module__, StandInCupyArray.__qualname__ = "cupy", "ndarray"


# docs/errors.md shows the stand-in's messages on every machine, so it does not depend on one.
_rendering_docs = False


def _real_cupy_asarray() -> Callable[[Any], Any] | None:
    """``cupy.asarray`` when CuPy is installed and sees a CUDA device, else None."""
    if importlib.util.find_spec("cupy") is None:
        return None
    try:
        import cupy

        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - CuPy without a usable driver: no device
        return None
    return cupy.asarray if count > 0 else None


@contextlib.contextmanager
def cupy_array_type() -> Iterator[Callable[[Any], Any]]:
    """Yields a function making a CuPy array: the real one with a CUDA device, otherwise a
    stand-in class registered as CuPy's array type (detection never imports cupy, so it only
    needs the type) for the length of the block."""
    real = None if _rendering_docs else _real_cupy_asarray()
    if real is not None:
        yield real
        return
    previous = backend._cupy_ndarray_type
    backend._cupy_ndarray_type = StandInCupyArray
    try:
        yield StandInCupyArray
    finally:
        backend._cupy_ndarray_type = previous


# ------------------------------------------------------------------------------ the catalogue
section("Making Variables")


@case("variable-from-number", "`Variable(3.0)`: a Python number", TypeError,
      "numpy.ndarray or cupy.ndarray", "got float", "numpy.asarray()")
def _(s):
    Variable(3.0)


@case("variable-from-list", "`Variable([1.0, 2.0])`: a list", TypeError,
      "numpy.ndarray or cupy.ndarray", "got list", "numpy.asarray()")
def _(s):
    Variable([1.0, 2.0])


@case("variable-from-numpy-scalar", "`Variable(a.sum())`: a NumPy scalar, not an array",
      TypeError, "got float32", "numpy.asarray()")
def _(s):
    Variable(s.x.array.sum())


@case("variable-volatile", "`Variable(a, volatile=True)` (removed in Chainer 2)", ValueError,
      "volatile argument is not supported anymore", "using_config")
def _(s):
    Variable(s.x.array, volatile=True)


@case("variable-unknown-keyword", "`Variable(a, requires_grads=True)`: a misspelt keyword",
      TypeError, "unexpected keyword argument", "'requires_grads'")
def _(s):
    Variable(s.x.array, requires_grads=True)


@case("integer-requires-grad", "`Variable(numpy.arange(3), requires_grad=True)`: an integer "
      "array asked to require a gradient", TypeError,
      "requires_grad=True", "floating-point", "astype(numpy.float32)", "requires_grad=False")
def _(s):
    Variable(numpy.arange(3), requires_grad=True)


@case("integer-into-float-function", "`F.exp(Variable(numpy.arange(3)))`: integer data into a "
      "function defined on floats", type_check.InvalidType,
      "Invalid operation is performed in: exp (Forward)", "Expect: x.dtype.kind == f",
      "Actual: i != f")
def _(s):
    F.exp(Variable(numpy.arange(3)))


@case("grad-wrong-shape", "`x.grad = numpy.ones((3, 2))` for `x` of shape (2, 3)", ValueError,
      "Shape of data and grad mismatch", "grad: (3, 2) != data: (2, 3)")
def _(s):
    s.x.grad = numpy.ones((3, 2), numpy.float32)


@case("grad-wrong-dtype", "`x.grad = numpy.ones((2, 3))` (float64) for float32 `x`", TypeError,
      "Dtype of data and grad mismatch", "grad: float64 != data: float32")
def _(s):
    s.x.grad = numpy.ones((2, 3))


@case("grad-not-array", "`x.grad = [[0.0] * 3] * 2`: a list as gradient", TypeError,
      "Type of grad is invalid", "an array of the data's backend", "got list")
def _(s):
    s.x.grad = [[0.0] * 3] * 2


@case("variable-comparison", "`if loss < 0.1:` on a Variable", TypeError,
      "Variables do not support < operator", "use `array` attribute instead")
def _(s):
    if s.x < 0.1:
        pass


@case("variable-truth", "`if x:` on a Variable", TypeError,
      "cannot be evaluated as Python bool", "use `array` attribute instead")
def _(s):
    if s.x:
        pass


section("Applying functions")


@case("function-on-number", "`F.exp(2.0)`: a Python number as input", TypeError,
      "incompatible array types are mixed in the forward input (exp)",
      "Inputs of exp must be Variables or NumPy/CuPy arrays", "got float", "numpy.asarray()")
def _(s):
    F.exp(2.0)


@case("function-on-list", "`F.exp([1.0, 2.0])`: a list as input", TypeError,
      "incompatible array types are mixed in the forward input (exp)",
      "Inputs of exp must be Variables or NumPy/CuPy arrays", "got list", "numpy.asarray()")
def _(s):
    F.exp([1.0, 2.0])


@case("uninitialized-parameter", "`linear(x, C.Parameter())`: an uninitialized Parameter",
      TypeError, "uninitialized Variable", "initialize(shape)")
def _(s):
    linear(s.x, C.Parameter())


@case("mixed-numpy-cupy", "`x_cpu + x_gpu`: NumPy and CuPy inputs to one function", TypeError,
      "incompatible array types are mixed", "Move every input to one device",
      "to_cpu() or to_gpu()")
def _(s):
    with cupy_array_type() as make:
        gpu = Variable(make(numpy.ones((2, 3), numpy.float32)))
        Square().apply((s.x, gpu))


@case("dtype-mismatch", "`x32 + x64`: float32 and float64 Variables", type_check.InvalidType,
      "Invalid operation is performed in: _ + _ (Forward)", "Expect: lhs.dtype == rhs.dtype",
      "Actual: float32 != float64")
def _(s):
    s.x + Variable(numpy.ones((2, 3)))


@case("integer-product", "`i * j` or `i ** 2` on integer Variables (float-only operators)",
      type_check.InvalidType, "Invalid operation is performed in: _ * _ (Forward)",
      "Expect: lhs.dtype.kind == f", "Actual: i != f")
def _(s):
    Variable(numpy.arange(3, dtype=numpy.int32)) * Variable(numpy.arange(3, dtype=numpy.int32))


@case("shapes-do-not-broadcast", "`x + y` with shapes (2, 3) and (4, 5)", type_check.InvalidType,
      "cannot broadcast inputs", "lhs.shape = (2, 3)", "rhs.shape = (4, 5)")
def _(s):
    s.x + Variable(numpy.ones((4, 5), numpy.float32))


@case("matmul-shapes", "`F.matmul(a, b)` with shapes (2, 3) and (2, 3)", type_check.InvalidType,
      "Invalid operation is performed in: MatMul (Forward)",
      "Expect: a.shape[-1] == b.shape[-2]", "Actual: 3 != 2")
def _(s):
    F.matmul(s.x, s.W)


@case("reshape-size", "`F.reshape(x, (7,))` for 6 elements", type_check.InvalidType,
      "Invalid operation is performed in: Reshape (Forward)",
      "Expect: prod(x.shape) == prod((7,))", "Actual: 6 != 7")
def _(s):
    F.reshape(s.x, (7,))


@case("sum-axis-out-of-range", "`F.sum(x, axis=5)` on a 2-d Variable", type_check.InvalidType,
      "Invalid operation is performed in: Sum (Forward)", "Expect: x.ndim > 5")
def _(s):
    F.sum(s.x, axis=5)


@case("custom-type-check", "a FunctionNode's `check_type_forward` rejects the input",
      type_check.InvalidType, "Invalid operation is performed in: Checked (Forward)",
      "Expect: x.ndim == 1", "Actual: 2 != 1")
def _(s):
    Checked().apply((s.x,))


@case("type-check-argument-count", "two inputs to a FunctionNode whose type check names one",
      type_check.InvalidType, "Invalid operation is performed in: Checked (Forward)",
      "Invalid number of arguments", "Expect: 1 argument(s)", "Actual: 2 argument(s)")
def _(s):
    Checked().apply((s.x, s.W))


@case("call-function-node", "`Square()(x)`: calling a FunctionNode object", RuntimeError,
      "has been called as if it were a callable", "Use apply() method instead")
def _(s):
    Square()(s.x)


@case("call-builtin-function-node", "`F.Exp()(x)`: calling a built-in FunctionNode class's "
      "object", RuntimeError, "Use FunctionNode.apply() method instead",
      "use corresponding function aliases")
def _(s):
    F.Exp()(s.x)


@case("call-ctx-function-instance", "`Square()(x)` for a ctx-style Function", RuntimeError,
      "is a ctx-style Function", "call CtxSquare.apply(...) on the class")
def _(s):
    CtxSquare()(s.x)


@case("apply-without-tuple", "`Square().apply(x)`: a Variable instead of a tuple of inputs",
      TypeError, "apply() must be a tuple or list", "got Variable", "apply((x,))")
def _(s):
    Square().apply(s.x)


section("Writing forward")


@case("forward-returns-array", "new-style `forward` returns `y` instead of `(y,)`", TypeError,
      "forward output must be a tuple", "Return (y,) rather than y or [y]")
def _(s):
    Returns(forward_result=lambda xs: xs[0] * 2.0).apply((s.x,))


@case("forward-returns-list", "new-style `forward` returns `[y]`", TypeError,
      "forward output must be a tuple", "Return (y,) rather than y or [y]")
def _(s):
    Returns(forward_result=lambda xs: [xs[0] * 2.0]).apply((s.x,))


@case("forward-returns-numpy-scalar", "`forward` returns `(x.sum(),)`: a NumPy scalar",
      TypeError, "must be a tuple of arrays", "a NumPy scalar", "utils.force_array")
def _(s):
    Returns(forward_result=lambda xs: (xs[0].sum(),)).apply((s.x,))


@case("old-forward-returns-array", "old-style `forward_cpu` returns `y` instead of `(y,)`",
      TypeError, "forward output must be a tuple", "Return (y,) rather than y or [y]")
def _(s):
    OldReturns(forward_result=lambda xs: xs[0] * 2.0)(s.x)


@case("ctx-forward-returns-variable", "ctx-style `forward` returns a Variable", TypeError,
      "must return an array or a tuple of arrays", "got Variable", "return y.array")
def _(s):
    class Wraps(CtxFunction):
        @staticmethod
        def forward(ctx, x):
            return Variable(x)

    Wraps.apply(s.x)


@case("retain-inputs-out-of-range", "`self.retain_inputs((5,))` in a one-input `forward`",
      IndexError, "retain_inputs index of", "must be in range(1), got 5")
def _(s):
    class RetainsFive(FunctionNode):
        def forward(self, inputs):
            self.retain_inputs((5,))
            return inputs[0] * 1.0,

    RetainsFive().apply((s.x,))


@case("retain-outputs-out-of-range", "`self.retain_outputs((1,))` in a one-output `forward`",
      IndexError, "retain_outputs index of", "must be in range(1), got 1")
def _(s):
    class RetainsSecond(FunctionNode):
        def forward(self, inputs):
            self.retain_outputs((1,))
            return inputs[0] * 1.0,

    RetainsSecond().apply((s.x,))


@case("ctx-save-outside-forward", "`ctx.save_for_backward(...)` called in `backward`",
      RuntimeError, "must be called inside forward", "save what backward needs in forward")
def _(s):
    class SavesLate(CtxFunction):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, gy):
            ctx.save_for_backward(gy)
            return gy

    loss = F.sum(SavesLate.apply(s.x * 1.0))
    loss.backward()


section("Writing backward")


@case("old-output-data-not-retained", "old-style `backward` reads `self.output_data` without "
      "`retain_outputs` in forward", RuntimeError, "output_data of OldReturns must be retained",
      "call self.retain_outputs((0,)) in forward")
def _(s):
    function = OldReturns(backward_result=lambda gys: (gys[0] * function.output_data[0],))
    backward_through(s, function)


@case("backward-wrong-count", "new-style `backward` returns two gradients for one input",
      ValueError, "number of gradients returned from backward is incorrect",
      "2 != expected 1", "function=Returns")
def _(s):
    backward_through(s, Returns(backward_result=lambda gys: (gys[0], gys[0])))


@case("backward-returns-arrays", "new-style `backward` returns arrays instead of Variables",
      TypeError, "got ndarray != expected Variable", "wrap arrays with chainer_compat.Variable")
def _(s):
    backward_through(s, Returns(backward_result=lambda gys: (gys[0].array,)))


@case("backward-wrong-shape", "new-style `backward` returns a gradient of the wrong shape",
      ValueError, "Function `Returns` (Returns) returned a bad gradient: fix its backward",
      "Shape of data and grad mismatch", "grad: (3, 2) != data: (2, 3)")
def _(s):
    backward_through(s, Returns(backward_result=lambda gys: (gys[0].reshape(3, 2),)))


@case("backward-wrong-dtype", "new-style `backward` returns a float64 gradient for float32 "
      "data", TypeError, "returned a bad gradient: fix its backward",
      "Dtype of data and grad mismatch", "grad: float64 != data: float32")
def _(s):
    backward_through(s, Returns(
        backward_result=lambda gys: (Variable(gys[0].array.astype(numpy.float64)),)))


@case("backward-returns-bare-variable", "new-style `backward` returns `gx` instead of `(gx,)`",
      TypeError, "backward must return a tuple of gradients", "got Variable")
def _(s):
    backward_through(s, Returns(backward_result=lambda gys: gys[0]))


@case("backward-returns-none", "new-style `backward` forgets to `return`", TypeError,
      "backward must return a tuple of gradients", "got NoneType",
      "one per input")
def _(s):
    backward_through(s, Returns(backward_result=lambda gys: None))


@case("old-backward-wrong-count",
      "old-style `backward` returns no gradient for an input that needs one", ValueError,
      "must return a gradient (or None) for input 0, which needs one", "return one per input")
def _(s):
    # compat: extra gradients, or none for inputs that need none, are fine, as in Chainer.
    backward_through(s, OldReturns(backward_result=lambda gys: ()))


@case("old-backward-returns-array", "old-style `backward` returns `gx` instead of `(gx,)`",
      TypeError, "must return a tuple of gradient arrays", "wrap a single gradient as (gx,)")
def _(s):
    backward_through(s, OldReturns(backward_result=lambda gys: gys[0]))


@case("old-backward-returns-none", "old-style `backward` forgets to `return`", TypeError,
      "must return a tuple of gradient arrays", "got NoneType")
def _(s):
    backward_through(s, OldReturns(backward_result=lambda gys: None))


@case("old-backward-wrong-shape", "old-style `backward` returns a gradient of the wrong shape",
      ValueError, "returned a bad gradient: fix its backward", "Shape of data and grad mismatch")
def _(s):
    backward_through(s, OldReturns(backward_result=lambda gys: (gys[0].reshape(3, 2),)))


@case("old-backward-wrong-dtype", "old-style `backward` returns a float64 gradient for float32 "
      "data", TypeError, "returned a bad gradient: fix its backward",
      "Dtype of data and grad mismatch")
def _(s):
    backward_through(s, OldReturns(
        backward_result=lambda gys: (gys[0].astype(numpy.float64),)))


@case("old-backward-returns-variable", "old-style `backward` returns a Variable", TypeError,
      "returned a bad gradient", "a gradient must be an array", "got Variable")
def _(s):
    backward_through(s, OldReturns(backward_result=lambda gys: (Variable(gys[0]),)))


@case("ctx-backward-wrong-count", "ctx-style `backward` returns one gradient for two "
      "arguments", ValueError, "must return 2 gradients",
      "one per positional argument of apply, None for those without one")
def _(s):
    class Mul(CtxFunction):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, gy):
            return gy

    loss = F.sum(Mul.apply(s.x * 1.0, s.W))
    s.checkpoint()
    loss.backward()


section("Running backward")


@case("backward-from-non-scalar", "`y.backward()` on a non-scalar `y` without `y.grad` "
      "(Chainer issue #6260)", ValueError, "must start from a scalar",
      "y.grad = xp.ones_like(y.array)", "F.sum(y)")
def _(s):
    y = s.x * 2.0
    s.checkpoint(y)
    y.backward()


@case("backward-after-unchain-backward", "`loss.backward()` after `loss.unchain_backward()`",
      RuntimeError, "unchain_backward()", "call backward() before unchain_backward()")
def _(s):
    loss = F.sum(s.x * s.W)
    loss.unchain_backward()
    s.checkpoint(loss)
    loss.backward()


@case("double-backprop-old-style", "`grad(..., enable_double_backprop=True)` through an "
      "old-style Function, then differentiating the result", RuntimeError,
      "cannot twice-differentiate an old style Function",
      "Rewrite it as a chainer.FunctionNode")
def _(s):
    y = OldReturns(backward_result=lambda gys: (gys[0] * 2.0,))(s.x * s.W)
    gx, = C.grad([F.sum(y * y)], [s.x], enable_double_backprop=True)
    loss = F.sum(gx)
    s.checkpoint()
    loss.backward()


@case("double-backprop-ctx-arrays", "differentiating twice through a ctx `backward` that "
      "returns arrays", RuntimeError, "must return Variables to be differentiated twice",
      "compute the gradients with Variable operations")
def _(s):
    gx, = C.grad([F.sum(CtxSquare.apply(s.x * s.W))], [s.x], enable_double_backprop=True)
    loss = F.sum(gx)
    s.checkpoint()
    loss.backward()


@case("nan-in-forward-debug", "a NaN produced by a forward in debug mode", RuntimeError,
      "NaN is detected on forward computation of log", "The function was applied at")
def _(s):
    with C.using_config("debug", True), numpy.errstate(invalid="ignore"):
        F.log(s.x - 5.0)


@case("nan-in-backward-debug", "a NaN produced by a backward in debug mode", RuntimeError,
      "NaN is detected on backward computation of Returns")
def _(s):
    h = s.x * 1.0
    y, = Returns(backward_result=lambda gys: (
        Variable(numpy.full((2, 3), numpy.nan, numpy.float32)),)).apply((h,))
    loss = F.sum(y)
    s.checkpoint(h)
    with C.using_config("debug", True):
        loss.backward()


@case("chainer-backward-without-grads", "`chainer.backward([y])` with `y.grad` unset",
      RuntimeWarning, "chainer.backward does not set default grad")
def _(s):
    y = s.x * 2.0
    s.checkpoint(y)
    C.backward([y])


@case("chainer-backward-grad-shape", "`chainer.backward([y], [g])` with `g` of the wrong shape",
      ValueError, "Shape of data and grad mismatch", "grad: (3,) != data: (2, 3)")
def _(s):
    y = s.x * 2.0
    s.checkpoint(y)
    C.backward([y], [numpy.ones(3, numpy.float32)])


@case("grad-outputs-not-sequence", "`chainer.grad(loss, [x])`: a Variable, not a list",
      TypeError, "outputs must be a tuple or a list")
def _(s):
    C.grad(F.sum(s.x), [s.x])


@case("grad-outputs-length", "`chainer.grad([y], [x], grad_outputs=[g1, g2])`", ValueError,
      "grad_outputs must be of the same length as outputs", "len(grad_outputs) = 2")
def _(s):
    C.grad([F.sum(s.x)], [s.x], grad_outputs=[None, None])


@case("grad-input-not-variable", "`chainer.grad([loss], [x.array])`: an array among inputs",
      TypeError, "inputs of chainer.grad must be Variables", "got ndarray")
def _(s):
    loss = F.sum(s.x * s.W)
    s.checkpoint()
    C.grad([loss], [s.x.array])


@case("backward-misspelt-keyword", "`loss.backward(retain_grads=True)`", TypeError,
      "unexpected keyword argument 'retain_grads'")
def _(s):
    loss = F.sum(s.x * s.W)
    s.checkpoint()
    loss.backward(retain_grads=True)


section("Configuration and hooks")


@case("using-config-name-not-str", "`using_config(True, False)`: arguments swapped or the name "
      "missing", TypeError, "using_config name must be a str",
      "using_config('train', False)")
def _(s):
    with C.using_config(True, False):
        pass


@case("using-config-keyword", "`using_config(train=False)`: the key as a keyword", TypeError,
      "unexpected keyword argument 'train'")
def _(s):
    with C.using_config(train=False):
        pass


@case("using-config-misspelt-key", "`using_config('enable_backprob', False)`: a misspelt key "
      "(silently set in Chainer)", UserWarning, "'enable_backprob' is not a configuration key",
      "did you mean 'enable_backprop'")
def _(s):
    with C.using_config("enable_backprob", False):
        pass


@case("global-hook-twice", "`with hook: with hook:`, or two hooks of one name", KeyError,
      "hook FunctionHook already exists", "give the second hook another name")
def _(s):
    with FunctionHook(), FunctionHook():
        pass


@case("local-hook-twice", "`f.add_hook(h)` twice for one function node", KeyError,
      "Hook FunctionHook already exists", "pass another name")
def _(s):
    node = Square()
    node.add_hook(FunctionHook())
    node.add_hook(FunctionHook())


@case("add-hook-not-a-hook", "`f.add_hook(print)`: not a FunctionHook", TypeError,
      "Hook must be of type FunctionHook")
def _(s):
    Square().add_hook(print)


@case("delete-missing-hook", "`f.delete_hook('timer')` for a hook never added", KeyError,
      "Hook timer does not exist")
def _(s):
    Square().delete_hook("timer")


section("Saving and loading")


@case("load-npz-misfit", "`serializers.load_npz(path, model)` of weights saved from a model "
      "of other sizes", ValueError, "in the file must fit the existing array of shape (3, 4)",
      "built with the sizes it was saved with", "ignore_names")
def _(s):
    def model(out_size: int) -> C.Chain:
        chain = C.Chain()
        with chain.init_scope():
            chain.first = L.Linear(3, 4)
            chain.second = L.Linear(4, out_size)
        return chain

    buffer = io.BytesIO()
    C.serializers.save_npz(buffer, model(2))
    buffer.seek(0)
    target = model(3)
    # Checked before anything is loaded: "first" keeps its weights (NOTE [all-or-nothing
    # loading]).
    s.checkpoint(*target.params())
    C.serializers.load_npz(buffer, target)


section("Training")


def _set_up_sgd(s: Scene) -> tuple[Any, Any]:
    model = L.Linear(3, 2)
    optimizer = C.optimizers.SGD()
    optimizer.setup(model)
    model.cleargrads()
    C.functions.sum(model(numpy.ones((1, 3), numpy.float32))).backward()
    return model, optimizer


@case("update-stale-gradient", "`model.l.W.array = bigger` after backward, then "
      "`optimizer.update()`", ValueError, "must have the shape of its array (4, 3), got (2, 3)",
      "call cleargrads()")
def _(s):
    model, optimizer = _set_up_sgd(s)
    model.W.array = numpy.zeros((4, 3), numpy.float32)
    s.checkpoint(*model.params())
    optimizer.update()


@case("update-lossfun-returns-number", "`optimizer.update(lambda: float(loss.array))`: the "
      "loss as a number", TypeError, "lossfun must return the loss as a Variable, got float",
      "not its .array or a number")
def _(s):
    model, optimizer = _set_up_sgd(s)
    s.checkpoint(*model.params())
    optimizer.update(lambda: 1.5)


@case("extend-trigger-string", "`trainer.extend(ext, trigger='epoch')`: the unit without the "
      "period", TypeError, "trigger must be a callable, None or a (period, unit) pair",
      "(1, 'epoch')")
def _(s):
    from chainer_compat.testing import get_trainer_with_mock_updater

    get_trainer_with_mock_updater().extend(lambda trainer: None, name="ext", trigger="epoch")


def ready() -> list[Case]:
    return [c for c in CASES if c.pending is None]


def pending() -> list[Case]:
    return [c for c in CASES if c.pending is not None]


# ------------------------------------------------------------------------------ docs/errors.md
_ESCAPES = str.maketrans({"\\": "\\\\", "|": "\\|", "*": "\\*", "_": "\\_", "`": "\\`",
                          "<": "&lt;", ">": "&gt;", "[": "\\[", "]": "\\]"})


def _escape(text: str) -> str:
    return text.translate(_ESCAPES)


def _message_lines(message: str) -> list[str]:
    """The lines a user reads first: up to three, stopping at a stack listing."""
    lines = []
    for line in message.splitlines():
        if line.lstrip().startswith("File ") or len(lines) == 3:
            break
        if line.strip():
            lines.append(re.sub(r"0x[0-9a-f]+", "0x…", line.rstrip()))
    return lines


def _message_cell(case: Case) -> str:
    if case.pending is not None:
        words = " … ".join(f"**{_escape(w)}**" for w in case.words)
        return f"*pending core change `{case.pending}`*: must say {words}"
    error = provoke(case, Scene())
    if error is None:
        return "*(nothing raised: see the test)*"
    cell = "<br>".join(_escape(line) for line in _message_lines(message_of(error)))
    for word in case.words:
        escaped = _escape(word)
        if escaped in cell:
            cell = cell.replace(escaped, f"**{escaped}**", 1)
    return cell


def render() -> str:
    """The text of docs/errors.md."""
    global _rendering_docs
    _rendering_docs = True
    try:
        return _render()
    finally:
        _rendering_docs = False


def _render() -> str:
    out = [
        "# Errors users hit, and what chainer_compat tells them",
        "",
        "Generated by `python3 tests/reliability/catalogue.py --write` from the cases in",
        "`tests/reliability/catalogue.py`; `tests/reliability/test_bad_input.py` fails when this",
        "page is out of date. Each case is a test: it checks the exception type, the words in",
        "**bold** (what went wrong and what to do), that nothing observable changed (gradients,",
        "graph links, retained arrays, configuration, hooks), and that the next run still gets",
        "correct gradients. Messages show their first lines, as raised on a CPU-only machine.",
        "",
        f"{len(CASES)} cases; {len(pending())} wait for a change in the core (marked *pending*).",
    ]
    current = None
    for number, case in enumerate(CASES, 1):
        if case.section != current:
            current = case.section
            out += ["", f"## {current}", "",
                    "| # | What the user did | Exception | Message |",
                    "| --- | --- | --- | --- |"]
        raises = case.raises.__name__
        if case.raises.__module__ not in ("builtins",):
            raises = f"{case.raises.__module__.replace('chainer_compat.', '')}.{raises}"
        out.append(f"| {number} | {case.input} | `{raises}` | {_message_cell(case)} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Render docs/errors.md from the catalogue.")
    parser.add_argument("--write", action="store_true", help="write docs/errors.md")
    args = parser.parse_args(argv)
    text = render()
    if args.write:
        DOC_PATH.write_text(text)
        print(f"wrote {DOC_PATH} ({len(CASES)} cases)")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
