"""``verify_port``: evidence that a ``FunctionNode`` port of an old-style ``Function`` is right:
same outputs and gradients on random inputs, and gradients of both orders matching finite
differences; the first disagreement raises ``PortMismatchError``.
Layer 8: imports backend, configuration, function, function_node, gradient_check and variable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.configuration import no_backprop_mode
from chainer_compat.function import Function
from chainer_compat.function_node import FunctionNode, grad
from chainer_compat.gradient_check import numerical_grad
from chainer_compat.variable import Variable

__all__ = ["PortMismatchError", "PortReport", "verify_port"]

# (atol, rtol) for comparing the old Function with its port, by dtype: the two may compute the
# same value in a different order, so they agree to a few units of the dtype's precision.
_SAME_MATH_TOLERANCE = {
    numpy.dtype(numpy.float16): (1e-3, 1e-2),
    numpy.dtype(numpy.float32): (1e-6, 1e-5),
    numpy.dtype(numpy.float64): (1e-10, 1e-8),
}
# Central differences with eps=1e-3 in float64 are accurate to about 1e-7 on smooth functions;
# these are gradient_check's defaults for first and second order.
_FIRST_ORDER_NUMERICAL_TOLERANCE = (1e-5, 1e-4)
_SECOND_ORDER_NUMERICAL_TOLERANCE = (1e-4, 1e-3)

_HINTS = {
    "forward": "Fix the port's forward (forward, or forward_cpu/forward_gpu): it must compute "
               "what the old Function's forward computes, in the same dtype and shape.",
    "inputs": "The port's forward must not write into its input arrays: copy them first.",
    "backward vs numerical": "The port's backward returns a wrong gradient for this input. "
                             "Check the formula, and that get_retained_inputs()/"
                             "get_retained_outputs() return what forward retained.",
    "backward vs old": "The port's backward disagrees with the old Function's backward.",
    "backward_accumulate": "The port's backward_accumulate must return the given grad_inputs "
                           "plus the gradients its backward computes (grad_inputs[i] is None "
                           "when input i has no gradient yet).",
    "double backward": "The port's backward is not differentiated correctly: build the "
                       "gradients from Variables with chainer functions (FunctionNodes) only, "
                       "never from .array, so that they can be differentiated again.",
}


class PortMismatchError(AssertionError):
    """Raised by :func:`verify_port` at the first disagreement.

    Attributes:
        check: What was compared: ``'forward'``, ``'inputs'``, ``'backward vs numerical'``,
            ``'backward vs old'``, ``'backward_accumulate'`` or ``'double backward'``.
        draw: Index of the random draw (0-based); the inputs come from
            ``numpy.random.default_rng([seed, draw])``.
        output_index: For ``forward`` and ``backward`` checks, the index of the output whose
            gradient flowed back (None: all outputs at once). For ``double backward``, the
            index of the input whose first-order gradient was differentiated again.
        input_index: The input whose value or gradient disagrees (for ``double backward``,
            an index into the inputs followed by the output gradients); None for forward.
        max_error: Largest absolute difference, ``inf`` for a shape or dtype mismatch.
        inputs: The input arrays of the draw.
    """

    def __init__(self, message: str, check: str, draw: int, output_index: int | None,
                 input_index: int | None, max_error: float, inputs: tuple[Any, ...]) -> None:
        super().__init__(message)
        self.check = check
        self.draw = draw
        self.output_index = output_index
        self.input_index = input_index
        self.max_error = max_error
        self.inputs = inputs


@dataclass(frozen=True)
class PortReport:
    """What :func:`verify_port` checked when everything agreed.

    Attributes:
        draws: Number of random draws.
        comparisons: Number of array comparisons that passed.
        largest_errors: Largest absolute difference seen by each kind of check.
    """

    draws: int
    comparisons: int
    largest_errors: dict[str, float] = field(default_factory=dict)

    def __str__(self) -> str:
        errors = ", ".join(f"{check}: {error:.3g}" for check, error in self.largest_errors.items())
        return (f"port verified on {self.draws} draws, {self.comparisons} comparisons passed "
                f"(largest errors: {errors})")


@dataclass
class _Difference:
    max_error: float
    worst_index: tuple[int, ...] | None
    actual: Any
    expected: Any
    passed: bool
    shape_text: str | None = None


def _host(array: Any) -> numpy.ndarray:
    if backend.is_cupy_array(array):
        array = array.get()
    return numpy.asarray(array)


def _difference(actual: Any, expected: Any, atol: float, rtol: float) -> _Difference:
    """Elementwise ``|actual - expected| <= atol + rtol * |expected|``; None counts as zeros."""
    if actual is None and expected is None:
        return _Difference(0.0, None, None, None, True)
    if actual is None:
        actual = numpy.zeros_like(_host(expected))
    if expected is None:
        expected = numpy.zeros_like(_host(actual))
    a = _host(actual).astype(numpy.float64)
    e = _host(expected).astype(numpy.float64)
    if a.shape != e.shape:
        return _Difference(float("inf"), None, None, None, False,
                           f"shape {a.shape} where {e.shape} was expected")
    if a.size == 0:
        return _Difference(0.0, None, None, None, True)
    with numpy.errstate(invalid="ignore"):
        error = numpy.abs(a - e)
        allowed = atol + rtol * numpy.abs(e)
        bad = ~(error <= allowed)  # NaN fails
        # The element that exceeds its own tolerance the most; NaN first.
        excess = numpy.where(numpy.isnan(error), numpy.inf, error - allowed)
    index = tuple(int(i) for i in numpy.unravel_index(int(numpy.argmax(excess)), a.shape))
    finite = error[~numpy.isnan(error)]
    max_error = float(finite.max()) if finite.size == error.size else float("nan")
    return _Difference(max_error, index, a[index], e[index], not bool(bad.any()))


def _as_output_tuple(outputs: Any) -> tuple[Variable, ...]:
    return outputs if isinstance(outputs, tuple) else (outputs,)


def _check_factory(argument: Any, name: str, kind: type) -> None:
    if isinstance(argument, (Function, FunctionNode)):
        raise TypeError(
            f"{name} must be a class or a factory making a fresh {kind.__name__} per call, got "
            f"an instance of {type(argument).__name__}: pass {type(argument).__name__} itself, "
            f"or lambda: {type(argument).__name__}(...) when it takes arguments")
    if not callable(argument):
        raise TypeError(f"{name} must be a class or a factory of {kind.__name__}, got "
                        f"{type(argument).__name__}")


def _normalize_shapes(input_shapes: Any) -> list[tuple[int, ...]]:
    if not isinstance(input_shapes, (list, tuple)) or not input_shapes:
        raise ValueError(f"input_shapes must be a non-empty list of shapes, one per input, got "
                         f"{input_shapes!r}")
    if all(isinstance(item, (int, numpy.integer)) for item in input_shapes):
        raise ValueError(
            f"input_shapes must be a list of shapes, one per input, got {input_shapes!r}: "
            f"write [{tuple(input_shapes)!r}] for a single input of that shape")
    shapes = []
    for shape in input_shapes:
        if not isinstance(shape, (list, tuple)) or not all(
                isinstance(n, (int, numpy.integer)) and n >= 0 for n in shape):
            raise ValueError(f"each input shape must be a tuple of non-negative ints, got "
                             f"{shape!r}")
        shapes.append(tuple(int(n) for n in shape))
    return shapes


def _normalize_dtypes(dtypes: Any, count: int) -> list[numpy.dtype]:
    if isinstance(dtypes, (list, tuple)):
        if len(dtypes) != count:
            raise ValueError(f"dtypes must be one dtype, or one per input ({count}), got "
                             f"{len(dtypes)}")
        return [numpy.dtype(d) for d in dtypes]
    return [numpy.dtype(dtypes)] * count


def _same_math_tolerance(dtype: numpy.dtype, atol: float | None,
                         rtol: float | None) -> tuple[float, float]:
    default = _SAME_MATH_TOLERANCE.get(numpy.dtype(dtype), (0.0, 0.0))
    return (default[0] if atol is None else atol, default[1] if rtol is None else rtol)


def _format_inputs(inputs: Sequence[Any]) -> str:
    with numpy.printoptions(threshold=60, precision=6, linewidth=100):
        return "\n".join(f"  inputs[{i}] ({numpy.dtype(x.dtype).name}{tuple(x.shape)}):\n    "
                         + repr(_host(x)).replace("\n", "\n    ") for i, x in enumerate(inputs))


class _Verifier:
    """One call of :func:`verify_port`: the arguments, and the record of what passed."""

    def __init__(self, old_function: Callable[[], Function],
                 new_node: Callable[[], FunctionNode], shapes: list[tuple[int, ...]],
                 dtypes: list[numpy.dtype], draws: int, make_inputs: Any,
                 input_range: tuple[float, float], seed: int, double_backward: bool,
                 eps: float, atol: float | None, rtol: float | None,
                 numerical_dtype: Any, device: backend.Device) -> None:
        self.old_function = old_function
        self.new_node = new_node
        self.shapes = shapes
        self.dtypes = dtypes
        self.draws = draws
        self.make_inputs = make_inputs
        self.input_range = input_range
        self.seed = seed
        self.double_backward = double_backward
        self.eps = eps
        self.atol = atol
        self.rtol = rtol
        self.numerical_dtype = None if numerical_dtype is None else numpy.dtype(numerical_dtype)
        self.device = device
        self.comparisons = 0
        self.largest_errors: dict[str, float] = {}
        self.draw = 0
        self.inputs: tuple[Any, ...] = ()
        port_class = type(self._make(new_node, FunctionNode, "new_node"))
        self.overrides_accumulate = (port_class.backward_accumulate
                                     is not FunctionNode.backward_accumulate)

    # ------------------------------------------------------------------ running the functions
    def _make(self, factory: Callable[[], Any], kind: type, name: str) -> Any:
        made = factory()
        if not isinstance(made, kind):
            raise TypeError(f"{name} must make a {kind.__name__}, got "
                            f"{type(made).__name__}")
        return made

    def _apply_old(self, xs: Sequence[Variable]) -> tuple[Variable, ...]:
        function = self._make(self.old_function, Function, "old_function")
        return _as_output_tuple(function(*xs))

    def _apply_new(self, xs: Sequence[Variable]) -> tuple[Variable, ...]:
        node = self._make(self.new_node, FunctionNode, "new_node")
        return node.apply(xs)

    @staticmethod
    def _variables(arrays: Sequence[Any]) -> list[Variable]:
        return [Variable(a, requires_grad=a.dtype.kind == "f") for a in arrays]

    def _float_indexes(self) -> list[int]:
        return [i for i, dtype in enumerate(self.dtypes) if dtype.kind == "f"]

    # ------------------------------------------------------------------ drawing data
    def _draw_inputs(self, rng: numpy.random.Generator) -> tuple[Any, ...]:
        if self.make_inputs is not None:
            inputs = tuple(self.make_inputs(rng, list(self.shapes), list(self.dtypes)))
            for i, (x, shape, dtype) in enumerate(zip(inputs, self.shapes, self.dtypes)):
                if not isinstance(x, numpy.ndarray) or x.shape != shape or x.dtype != dtype:
                    raise ValueError(
                        f"make_inputs must return NumPy arrays of the given shapes and dtypes, "
                        f"got {type(x).__name__} {getattr(x, 'dtype', '')}"
                        f"{getattr(x, 'shape', '')} for inputs[{i}] ({dtype}{shape})")
            if len(inputs) != len(self.shapes):
                raise ValueError(f"make_inputs must return {len(self.shapes)} arrays, got "
                                 f"{len(inputs)}")
        else:
            low, high = self.input_range
            inputs = tuple(
                rng.uniform(low, high, shape).astype(dtype) if dtype.kind == "f"
                else rng.integers(int(low), int(high), shape, endpoint=True).astype(dtype)
                for shape, dtype in zip(self.shapes, self.dtypes))
        return tuple(self.device.send(x) for x in inputs)

    def _random_like(self, rng: numpy.random.Generator, template: Any) -> Any:
        array = rng.uniform(-1, 1, template.shape).astype(template.dtype)
        return self.device.send(array)

    def _widened(self, arrays: Sequence[Any]) -> list[Any]:
        if self.numerical_dtype is None:
            return [a.copy() for a in arrays]
        return [a.astype(self.numerical_dtype) if a.dtype.kind == "f" else a.copy()
                for a in arrays]

    # ------------------------------------------------------------------ reporting
    def _record(self, check: str, difference: _Difference) -> None:
        self.comparisons += 1
        if difference.max_error == difference.max_error:  # skip NaN
            self.largest_errors[check] = max(self.largest_errors.get(check, 0.0),
                                             difference.max_error)

    def _fail(self, check: str, subject: str, reference: str, difference: _Difference,
              atol: float, rtol: float, output_index: int | None, input_index: int | None,
              context: Sequence[str] = ()) -> None:
        if difference.shape_text is not None:
            first = f"{subject} must match {reference}, got {difference.shape_text}"
        else:
            first = (f"{subject} must match {reference}, got a largest absolute error of "
                     f"{difference.max_error:.6g}")
        lines = [first, f"Check: {check}",
                 (f"Draw: {self.draw + 1} of {self.draws} (inputs from "
                  f"numpy.random.default_rng([{self.seed}, {self.draw}]))")]
        lines += list(context)
        if difference.worst_index is not None:
            lines += [(f"Worst element: index {difference.worst_index}: port "
                       f"{float(difference.actual):.8g}, {reference} "
                       f"{float(difference.expected):.8g}"),
                      f"Tolerance: |port - reference| <= {atol:g} + {rtol:g} * |reference|"]
        lines += ["Inputs:", _format_inputs(self.inputs), _HINTS[check]]
        raise PortMismatchError("\n".join(lines), check, self.draw, output_index, input_index,
                                difference.max_error, self.inputs)

    # ------------------------------------------------------------------ the checks
    def run(self) -> PortReport:
        for draw in range(self.draws):
            self.draw = draw
            rng = numpy.random.default_rng([self.seed, draw])
            self.inputs = self._draw_inputs(rng)
            old_xs, old_outputs, new_xs, new_outputs = self._check_forward()
            self._check_backward(rng, old_xs, old_outputs, new_xs, new_outputs)
            if self.double_backward:
                self._check_double_backward(rng, new_outputs)
        return PortReport(self.draws, self.comparisons, dict(self.largest_errors))

    def _check_forward(self) -> tuple[list[Variable], tuple[Variable, ...], list[Variable],
                                      tuple[Variable, ...]]:
        old_xs = self._variables([x.copy() for x in self.inputs])
        new_xs = self._variables([x.copy() for x in self.inputs])
        old_outputs = self._apply_old(old_xs)
        new_outputs = self._apply_new(new_xs)
        for i, (x, original) in enumerate(zip(new_xs, self.inputs)):
            difference = _difference(x.array, original, 0.0, 0.0)
            self._record("inputs", difference)
            if not difference.passed:
                self._fail("inputs", f"inputs[{i}] after the port's forward",
                           "the input before it", difference, 0.0, 0.0, None, i)
        if len(new_outputs) != len(old_outputs):
            self._fail("forward", "the number of outputs of the port",
                       "the old Function's", _Difference(
                           float("inf"), None, None, None, False,
                           f"{len(new_outputs)} outputs where {len(old_outputs)} were "
                           "expected"), 0.0, 0.0, None, None)
        for k, (new_y, old_y) in enumerate(zip(new_outputs, old_outputs)):
            if new_y.dtype != old_y.dtype:
                self._fail("forward", f"dtype of outputs[{k}] of the port",
                           "the old Function's", _Difference(
                               float("inf"), None, None, None, False,
                               f"{new_y.dtype} where {old_y.dtype} was expected"),
                           0.0, 0.0, k, None)
            atol, rtol = _same_math_tolerance(old_y.dtype, self.atol, self.rtol)
            difference = _difference(new_y.array, old_y.array, atol, rtol)
            self._record("forward", difference)
            if not difference.passed:
                self._fail("forward", f"outputs[{k}] of the port",
                           "the old Function's output", difference, atol, rtol, k, None)
        return old_xs, old_outputs, new_xs, new_outputs

    def _output_selections(self, count: int) -> list[int | None]:
        # Each output alone (the others get no gradient, as when they are unused), then all.
        selections: list[int | None] = list(range(count))
        if count > 1:
            selections.append(None)
        return selections

    def _check_backward(self, rng: numpy.random.Generator, old_xs: list[Variable],
                        old_outputs: tuple[Variable, ...], new_xs: list[Variable],
                        new_outputs: tuple[Variable, ...]) -> None:
        float_indexes = self._float_indexes()
        if not float_indexes:
            return
        grad_outputs = [self._random_like(rng, y.array) if y.dtype.kind == "f" else None
                        for y in new_outputs]
        wide_inputs = self._widened(self.inputs)
        for selection in self._output_selections(len(new_outputs)):
            chosen = [k for k in range(len(new_outputs))
                      if (selection is None or k == selection) and grad_outputs[k] is not None]
            if not chosen:
                continue

            def gradients(xs: list[Variable], outputs: tuple[Variable, ...],
                          gys: Sequence[Any], chosen: list[int] = chosen) -> list[Any]:
                result = grad([outputs[k] for k in chosen], [xs[i] for i in float_indexes],
                              [Variable(gys[k]) for k in chosen])
                return [None if g is None else g.array for g in result]

            old_grads = gradients(old_xs, old_outputs, grad_outputs)
            new_grads = gradients(new_xs, new_outputs, grad_outputs)
            if self.overrides_accumulate:
                self._check_accumulate(rng, new_xs, new_outputs, grad_outputs, chosen,
                                       new_grads, selection)

            # The port again in the numerical dtype, against finite differences.
            wide_gys = [None if gy is None else self._widened([gy])[0] for gy in grad_outputs]
            wide_xs = self._variables(wide_inputs)
            analytic = gradients(wide_xs, self._apply_new(wide_xs), wide_gys)
            numeric = self._numerical_first_order(wide_inputs, wide_gys, chosen)

            for position, i in enumerate(float_indexes):
                context = [(f"Output index: {'all' if selection is None else selection}"
                            " (outputs that get a gradient)"),
                           f"Input index: {i}"]
                num_atol, num_rtol = _FIRST_ORDER_NUMERICAL_TOLERANCE
                versus_numeric = _difference(analytic[position], numeric[position],
                                             num_atol, num_rtol)
                self._record("backward vs numerical", versus_numeric)
                atol, rtol = _same_math_tolerance(self.dtypes[i], self.atol, self.rtol)
                versus_old = _difference(new_grads[position], old_grads[position], atol, rtol)
                self._record("backward vs old", versus_old)
                old_agrees = _difference(old_grads[position], numeric[position],
                                         num_atol + 10 * atol, num_rtol + 10 * rtol).passed
                if not versus_numeric.passed:
                    self._fail("backward vs numerical", f"gradient of inputs[{i}] from the port",
                               "the numerical gradient", versus_numeric, num_atol, num_rtol,
                               selection, i, [*context, "Old Function vs numerical: "
                                              + ("agree" if old_agrees else "disagree too")])
                if not versus_old.passed:
                    self._fail("backward vs old", f"gradient of inputs[{i}] from the port",
                               "the old Function's gradient", versus_old, atol, rtol,
                               selection, i, [*context, (
                                   "Port vs numerical: agree; old Function vs numerical: "
                                   + ("agree" if old_agrees else
                                      "disagree (the old Function's backward looks wrong)"))])

    def _check_accumulate(self, rng: numpy.random.Generator, xs: list[Variable],
                          outputs: tuple[Variable, ...], grad_outputs: list[Any],
                          chosen: list[int], plain: list[Any], selection: int | None) -> None:
        """Gradients added to existing ones must equal existing plus the plain gradients."""
        float_indexes = self._float_indexes()
        existing = [self._random_like(rng, xs[i].array) for i in float_indexes]
        accumulated = grad([outputs[k] for k in chosen], [xs[i] for i in float_indexes],
                           [Variable(grad_outputs[k]) for k in chosen],
                           grad_inputs=[Variable(e) for e in existing])
        for position, i in enumerate(float_indexes):
            expected = existing[position] if plain[position] is None else (
                existing[position] + plain[position])
            atol, rtol = _same_math_tolerance(self.dtypes[i], self.atol, self.rtol)
            actual = accumulated[position]
            difference = _difference(None if actual is None else actual.array, expected,
                                     atol, rtol)
            self._record("backward_accumulate", difference)
            if not difference.passed:
                self._fail("backward_accumulate",
                           f"accumulated gradient of inputs[{i}] from the port",
                           "the existing gradient plus the port's gradient", difference, atol,
                           rtol, selection, i,
                           [f"Output index: {'all' if selection is None else selection}",
                            f"Input index: {i}"])

    def _numerical_first_order(self, wide_inputs: list[Any], wide_gys: list[Any],
                               chosen: list[int]) -> list[Any]:
        float_indexes = self._float_indexes()
        perturbed = [a.copy() for a in wide_inputs]

        def forward() -> tuple[Any, ...]:
            with no_backprop_mode():
                outputs = self._apply_new([Variable(a, requires_grad=False)
                                           for a in perturbed])
            return tuple(y.array for y in outputs)

        gys = [wide_gys[k] if k in chosen else None for k in range(len(wide_gys))]
        return numerical_grad(forward, [perturbed[i] for i in float_indexes], gys, eps=self.eps)

    def _check_double_backward(self, rng: numpy.random.Generator,
                               new_outputs: tuple[Variable, ...]) -> None:
        float_indexes = self._float_indexes()
        float_outputs = [k for k, y in enumerate(new_outputs) if y.dtype.kind == "f"]
        if not float_indexes or not float_outputs:
            return
        wide_inputs = self._widened(self.inputs)
        wide_gys = self._widened([self._random_like(rng, new_outputs[k].array)
                                  for k in float_outputs])
        grad_grads = [self._random_like(rng, wide_inputs[i]) for i in float_indexes]
        count = len(self.inputs)

        def first_order(arrays: Sequence[Any], double: bool,
                        ) -> tuple[list[Variable], list[Variable | None]]:
            variables = [Variable(a, requires_grad=a.dtype.kind == "f") for a in arrays]
            xs, gys = variables[:count], variables[count:]
            outputs = self._apply_new(xs)
            grads = grad([outputs[k] for k in float_outputs], [xs[i] for i in float_indexes],
                         gys, enable_double_backprop=double)
            return variables, grads

        # Differentiable inputs of the first-order gradient function: float xs, then gys.
        targets = float_indexes + list(range(count, count + len(wide_gys)))
        for position, i in enumerate(float_indexes):
            variables, grads = first_order(list(wide_inputs) + list(wide_gys), True)
            if grads[position] is None:
                analytic: list[Any] = [None] * len(targets)
            else:
                result = grad([grads[position]], [variables[t] for t in targets],
                              [Variable(grad_grads[position])])
                analytic = [None if g is None else g.array for g in result]
            numeric = self._numerical_second_order(wide_inputs, wide_gys, targets, position,
                                                   grad_grads[position], first_order)
            num_atol, num_rtol = _SECOND_ORDER_NUMERICAL_TOLERANCE
            for target_position, t in enumerate(targets):
                difference = _difference(analytic[target_position], numeric[target_position],
                                         num_atol, num_rtol)
                self._record("double backward", difference)
                if not difference.passed:
                    respect = (f"inputs[{t}]" if t < count
                               else f"grad_outputs[{float_outputs[t - count]}]")
                    self._fail(
                        "double backward",
                        f"second-order gradient d(gx[{i}])/d({respect}) from the port",
                        "the numerical one", difference, num_atol, num_rtol, i, t,
                        [(f"Output index: {i} (the first-order gradient of inputs[{i}], "
                          "differentiated again)"),
                         f"Input index: {t} ({respect})"])

    def _numerical_second_order(self, wide_inputs: list[Any], wide_gys: list[Any],
                                targets: list[int], position: int, grad_grad: Any,
                                first_order: Callable[..., Any]) -> list[Any]:
        perturbed = [a.copy() for a in list(wide_inputs) + list(wide_gys)]

        def gradient_values() -> tuple[Any, ...]:
            _, grads = first_order(perturbed, False)
            # A gradient the port leaves out is zero; finite differences need an array.
            return tuple(
                backend.get_array_module(perturbed[0]).zeros_like(perturbed[i])
                if g is None else g.array
                for g, i in zip(grads, self._float_indexes()))

        grad_outputs = [grad_grad if p == position else None
                        for p in range(len(self._float_indexes()))]
        return numerical_grad(gradient_values, [perturbed[t] for t in targets], grad_outputs,
                              eps=self.eps)


def verify_port(old_function: Callable[[], Function], new_node: Callable[[], FunctionNode],
                input_shapes: Sequence[Sequence[int]], dtypes: Any = numpy.float64,
                draws: int = 3, *, make_inputs: Callable[..., Sequence[Any]] | None = None,
                input_range: tuple[float, float] = (-1.0, 1.0), seed: int = 0,
                double_backward: bool = True, eps: float = 1e-3, atol: float | None = None,
                rtol: float | None = None, numerical_dtype: Any = numpy.float64,
                device: Any = "@numpy") -> PortReport:
    """Checks that a FunctionNode port computes what the old-style Function computes.

    For each of ``draws`` random draws of inputs (of ``input_shapes`` and ``dtypes``):

    1. **forward**: both run on the same inputs; the port must leave its inputs unchanged and
       return as many outputs, of the same dtypes, shapes and values (within ``atol``/``rtol``).
    2. **backward**: for each output alone (the others get no gradient, so the port's
       handling of None output gradients is exercised) and then all outputs together, random
       output gradients flow back; the port's input gradients must match the old Function's,
       and, computed in ``numerical_dtype``, finite differences of the port's forward. A port
       that overrides ``backward_accumulate`` must also return existing gradients plus its
       own when ``chainer.grad`` is given ``grad_inputs``.
    3. **double backward** (``double_backward=True``): the first-order gradient of each float
       input, as a function of the inputs and the output gradients, is differentiated again
       with random second-order gradients; the result must match finite differences.

    Args:
        old_function: The old-style ``Function`` subclass, or a factory (``lambda:
            OldClip(0.0, 1.0)``) returning a fresh instance; one is made per application.
        new_node: The ``FunctionNode`` port, or a factory of fresh instances.
        input_shapes: One shape per input, e.g. ``[(3, 4), (4,)]``.
        dtypes: One dtype for all inputs, or one per input. Integer inputs are drawn from
            the integers of ``input_range`` and get no gradient.
        draws: Number of random draws.
        make_inputs: Optional ``make_inputs(rng, shapes, dtypes)`` returning the NumPy input
            arrays, for functions defined on part of the line (``log`` needs ``x > 0``) or
            with kinks to keep away from; ``rng`` is a ``numpy.random.Generator``.
        input_range: Range of the uniform draws when ``make_inputs`` is None.
        seed: Draw ``d`` uses ``numpy.random.default_rng([seed, d])``.
        double_backward: Whether to check the port's second-order gradients.
        eps: Step of the finite differences.
        atol: Absolute tolerance between old and new (default: by dtype, a few units of its
            precision).
        rtol: Relative tolerance between old and new (default: by dtype).
        numerical_dtype: Dtype the port runs in for the comparisons with finite differences
            (float64: accurate to about 1e-7); None keeps ``dtypes``, then loosen nothing but
            expect failures in float16/float32.
        device: Device to run on (``'@numpy'``, ``'@cupy:0'``, ...).

    Returns:
        A :class:`PortReport` of what was compared.

    Raises:
        PortMismatchError: At the first disagreement; the message names the check, the draw
            (with its seed), the output index, the input index, the worst element with both
            values, the largest absolute error and the tolerance, and shows the inputs.
        TypeError: If ``old_function``/``new_node`` are instances or make the wrong kind of
            function.
        ValueError: On malformed shapes, dtypes, ``draws`` or ``make_inputs`` results.
    """
    _check_factory(old_function, "old_function", Function)
    _check_factory(new_node, "new_node", FunctionNode)
    shapes = _normalize_shapes(input_shapes)
    dtype_list = _normalize_dtypes(dtypes, len(shapes))
    if not (isinstance(draws, int) and draws >= 1):
        raise ValueError(f"draws must be a positive int, got {draws!r}")
    if not eps > 0:
        raise ValueError(f"eps must be positive, got {eps!r}")
    verifier = _Verifier(old_function, new_node, shapes, dtype_list, draws, make_inputs,
                         input_range, seed, double_backward, eps, atol, rtol, numerical_dtype,
                         backend.get_device(device))
    return verifier.run()
