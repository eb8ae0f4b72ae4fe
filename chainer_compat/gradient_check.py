"""``gradient_check``: numerical gradients by finite differences, and the checks that compare them
with backprop (``check_backward``, ``check_double_backward``).

Layer 8: built on the public core (variable, function_node, backend, configuration) and
``testing.array``; works the same on NumPy and CuPy arrays.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.configuration import using_config
from chainer_compat.function_node import FunctionNode, grad
from chainer_compat.testing.array import assert_allclose as _assert_allclose
from chainer_compat.utils._assertions import AssertTypeError, AssertValueError
from chainer_compat.variable import Parameter, Variable

__all__ = [
    "NondifferentiableError",
    "assert_allclose",
    "check_backward",
    "check_double_backward",
    "numerical_grad",
]


class NondifferentiableError(Exception):
    """Raised when a numerical gradient is asked for at a point where the function has a kink,
    a jump or a change of finiteness (``detect_nondifferentiable=True``)."""


# ------------------------------------------------------------------------------- small helpers
def _as_tuple(value: Any) -> tuple[Any, ...]:
    if isinstance(value, tuple):
        return value
    if isinstance(value, list):
        return tuple(value)
    return (value,)


def _describe_arrays(arrays: Sequence[Any]) -> str:
    return ", ".join(
        "None" if a is None else f"shape={tuple(a.shape)} dtype={numpy.dtype(a.dtype).name}"
        for a in arrays)


def _float64_copies(arrays: Sequence[Any]) -> list[Any]:
    # Outputs are copied (the function may reuse its buffers) and widened so that differences
    # of nearby samples are taken in full precision.
    result: list[Any] = []
    for array in arrays:
        if array is None:
            result.append(None)
        else:
            xp = backend.get_array_module(array)
            result.append(xp.array(array, dtype=numpy.float64, copy=True))
    return result


def _check_outputs_and_grad_outputs(outputs: Sequence[Any], grad_outputs: Sequence[Any]) -> None:
    """Raises ValueError unless there is one output gradient per output, matching its shape and
    dtype (a missing output may only get an all-zero gradient)."""
    context = (f"Output shapes and dtypes         : {_describe_arrays(outputs)}\n"
               f"Output gradient shapes and dtypes: {_describe_arrays(grad_outputs)}")
    if len(outputs) != len(grad_outputs):
        raise ValueError(
            f"y_grad must have one gradient per output of func ({len(outputs)}), got "
            f"{len(grad_outputs)}\n{context}")
    for y, gy in zip(outputs, grad_outputs):
        if gy is None:
            continue
        if y is None:
            if bool((gy == 0).all()):
                continue
            raise ValueError(
                f"y_grad must be zero (or None) for an output that func returned as None, "
                f"got a nonzero gradient\n{context}")
        if y.shape != gy.shape or y.dtype != gy.dtype:
            raise ValueError(
                f"Shapes and/or dtypes of outputs and output gradients do not match: y_grad "
                f"must match func's outputs, got a mismatch\n{context}")


def _outputs_of(func_result: Any) -> tuple[Variable | None, ...]:
    outputs = _as_tuple(func_result)
    for y in outputs:
        if y is not None and not isinstance(y, Variable):
            raise TypeError(
                f"func must return a Variable or a tuple of Variables, got an element of type "
                f"{type(y).__name__}: wrap the computation in FunctionNodes or chainer functions")
    return outputs


def _clear_grads(variables: Sequence[Variable]) -> None:
    for variable in variables:
        variable.grad_var = None


# ------------------------------------------------------------------------------ numerical_grad
# NOTE [nondifferentiable detection]
# With detect_nondifferentiable, f is sampled at x - eps, x - eps/2, x, x + eps/2, x + eps. A
# change of finiteness between samples means a singular point. Otherwise a quadratic is fitted
# to the five samples of every output element; on a smooth function the misfit is tiny, at a
# kink or a jump it is a sizable fraction of the spread of the samples. With samples taken at
# t = -2..2 the least-squares residual is exactly the projection on the two discrete orthogonal
# polynomials of degree 3 and 4, so no solver is needed and it runs on the arrays' device.
_CUBIC = (-1.0, 2.0, 0.0, -2.0, 1.0)        # squared norm 10
_QUARTIC = (1.0, -4.0, 6.0, -4.0, 1.0)      # squared norm 70


def _fit_residual(samples: Sequence[Any]) -> Any:
    """Root-mean-square misfit of the best quadratic through five equally spaced samples."""
    cubic = sum(c * s for c, s in zip(_CUBIC, samples) if c)
    quartic = sum(c * s for c, s in zip(_QUARTIC, samples))
    xp = backend.get_array_module(samples[0])
    return xp.sqrt((cubic * cubic / 10.0 + quartic * quartic / 70.0) / len(samples))


def _nondifferentiable_report(input_index: int, output_index: int, x: Any, index: tuple[int, ...],
                              eps: float, samples: Sequence[Any], extra: Sequence[str]) -> str:
    lines = ["Tried to compute the numeric gradient on a non-differentiable point.", "",
             f"i_in: {input_index}", f"i_out: {output_index}", f"x: {x}",
             f"index on x: {index}", f"eps: {eps}", *extra]
    for label, sample in zip(("x-eps  ", "x-eps/2", "x      ", "x+eps/2", "x+eps  "), samples):
        lines.append(f"y[{label}]: {sample}")
    return "\n".join(lines) + "\n"


def _detect_nondifferentiable(samples_per_point: list[list[Any]], input_index: int, x: Any,
                              index: tuple[int, ...], eps: float, diff_atol: float,
                              diff_rtol: float) -> None:
    outputs = [i for i, y in enumerate(samples_per_point[0]) if y is not None]
    if all(samples_per_point[0][i].size == 0 for i in outputs):
        return
    xp = backend.get_array_module(samples_per_point[0][outputs[0]])
    any_nonfinite = False
    for i in outputs:
        finite = [xp.isfinite(ys[i]) for ys in samples_per_point]
        if any(bool((finite[0] != other).any()) for other in finite[1:]):
            raise NondifferentiableError(_nondifferentiable_report(
                input_index, i, x, index, eps, [ys[i] for ys in samples_per_point], ()))
        any_nonfinite = any_nonfinite or not all(bool(f.all()) for f in finite)
    # compat: a function that is non-finite near the point (log for x < 0) is not reported, and
    # then no output is fitted at all.
    if any_nonfinite:
        return
    for i in outputs:
        samples = [ys[i] for ys in samples_per_point]
        stacked = xp.stack(samples)
        high = stacked.max(axis=0)
        low = stacked.min(axis=0)
        residual = _fit_residual(samples)
        tolerance = diff_atol + diff_rtol * (high - low)
        # A constant output is smooth whatever the rounding says.
        suspicious = (tolerance < residual) & (high != low)
        if bool(suspicious.any()):
            raise NondifferentiableError(_nondifferentiable_report(
                input_index, i, x, index, eps, samples,
                (f"diff_rtol: {diff_rtol}", f"diff_atol: {diff_atol}", f"ymax: {high}",
                 f"ymin: {low}", f"diff_atol + diff_rtol * (ymax-ymin): {tolerance}",
                 f"fitting errors: {residual}")))


def numerical_grad(f: Callable[[], Any], inputs: Sequence[Any], grad_outputs: Sequence[Any],
                   eps: float = 1e-3, detect_nondifferentiable: bool = False,
                   diff_atol: float = 0, diff_rtol: float = 1e-2,
                   center_outputs: Sequence[Any] | None = None) -> list[Any]:
    """Computes the gradient of ``f`` with respect to ``inputs`` by central differences.

    Each element of each input array is moved in place by ``-eps`` and ``+eps`` (restored
    afterwards), ``f`` is called at both points, and the change of the outputs is contracted
    with ``grad_outputs``. Outputs are differenced in float64; type checking is off meanwhile.

    Args:
        f: Function without arguments that runs the forward computation and returns a tuple of
            output arrays (None for an output without gradient).
        inputs: Tuple or list of float arrays that ``f`` reads; they are perturbed in place.
        grad_outputs: One gradient (array, scalar or None) per output of ``f``.
        eps: Step of the finite differences.
        detect_nondifferentiable: Sample ``f`` at five points instead of two and raise
            :class:`NondifferentiableError` where ``f`` is not differentiable; the gradient is
            then accurate to the third order of ``eps``.
        diff_atol: Absolute tolerance of the quadratic fit used by the detection.
        diff_rtol: Tolerance of that fit relative to the spread of the sampled outputs.
        center_outputs: Accepted and ignored, as Chainer does (see Compat).

    Returns:
        A list with one gradient array per input, in the input's dtype.

    Raises:
        ValueError: If ``eps`` is not positive.
        TypeError: If ``inputs`` is not a tuple or a list.
        RuntimeError: If an input is not a float array, or CPU and GPU arrays are mixed.
        NondifferentiableError: See ``detect_nondifferentiable``.

    Compat:
        Chainer 7 ignores ``center_outputs`` (outputs in a narrow dtype are too coarse for the
        detection) and recomputes ``f`` at the center; so do we.
    """
    del center_outputs  # compat: see Compat above.
    # compat: these three are bare asserts in Chainer (NOTE [bare asserts]).
    if not eps > 0:
        raise AssertValueError(f"eps must be positive, got {eps}")
    if not isinstance(inputs, (tuple, list)):
        raise AssertTypeError(
            f"inputs must be a tuple or a list of arrays, got {type(inputs).__name__}")
    for x in inputs:
        if x.dtype.kind != "f":
            raise RuntimeError(
                f"The dtype of input arrays must be kind of float, got {x.dtype}: numerical_grad "
                "perturbs its inputs by eps")
    inputs = tuple(inputs)
    grad_outputs = tuple(
        None if gy is None
        else numpy.float64(gy) if numpy.isscalar(gy)  # type: ignore[arg-type]
        else gy.astype(numpy.float64)
        for gy in grad_outputs)
    arrays = [a for a in inputs + grad_outputs if a is not None and not numpy.isscalar(a)]
    if not backend.is_arrays_compatible(arrays):
        raise RuntimeError('Do not mix GPU and CPU arrays in `numerical_grad`')
    device = backend.get_device_from_array(*arrays)
    xp = device.xp
    grads = [xp.zeros(x.shape, numpy.float64) for x in inputs]

    def evaluate(x: Any, index: tuple[int, ...], value: Any) -> list[Any]:
        x[index] = value
        outputs = _float64_copies(_as_tuple(f()))
        if len(outputs) != len(grad_outputs):
            raise AssertValueError(
                f"grad_outputs must have one gradient per output of f ({len(outputs)}), got "
                f"{len(grad_outputs)}")
        return outputs

    with using_config("type_check", False):
        center = _float64_copies(_as_tuple(f())) if detect_nondifferentiable else None
        for input_index, (x, gx) in enumerate(zip(inputs, grads)):
            original = x.copy()
            for index in numpy.ndindex(x.shape):
                value = original[index]
                try:
                    if center is None:
                        samples = [evaluate(x, index, value - eps),
                                   evaluate(x, index, value + eps)]
                    else:
                        samples = [evaluate(x, index, value - eps),
                                   evaluate(x, index, value - eps * 0.5),
                                   center,
                                   evaluate(x, index, value + eps * 0.5),
                                   evaluate(x, index, value + eps)]
                finally:
                    x[index] = value
                if center is not None:
                    _detect_nondifferentiable(samples, input_index, original, index, eps,
                                              diff_atol, diff_rtol)
                gx[index] += _directional_change(samples, grad_outputs, eps)
    return [g.astype(x.dtype, copy=False) for g, x in zip(grads, inputs)]


def _directional_change(samples: list[list[Any]], grad_outputs: tuple[Any, ...],
                        eps: float) -> Any:
    """Derivative along one input element, contracted with the output gradients."""
    # compat: Chainer's arithmetic, term for term, so a numeric gradient has its bits: each
    # output's differences are contracted with gy first and divided by the step after.
    total: Any = 0.0
    for i, gy in enumerate(grad_outputs):
        if gy is None:
            continue
        if any((ys[i] is None) != (samples[0][i] is None) for ys in samples):
            raise RuntimeError(
                f"output {i} of f must be None at every sample or at none, got None at some")
        # An output that is None everywhere contributes nothing.
        if samples[0][i] is None:
            continue
        if len(samples) == 2:
            total = total + ((samples[1][i] - samples[0][i]) * gy).sum() / (2 * eps)
        else:
            # Five-point stencil with step eps/2: third-order accurate.
            difference = (-samples[4][i] + 8 * samples[3][i] - 8 * samples[1][i]
                          + samples[0][i])
            total = total + (difference * gy).sum() / (6 * eps)
    return total


# ------------------------------------------------------------------------------ assert_allclose
def assert_allclose(x: Any, y: Any, atol: float = 1e-5, rtol: float = 1e-4,
                    verbose: bool = True) -> None:
    """Deprecated alias of :func:`chainer_compat.testing.assert_allclose`.

    Args:
        x: Left-hand side (the actual value).
        y: Right-hand side (the expected value).
        atol: Absolute tolerance.
        rtol: Relative tolerance.
        verbose: Whether the message lists the conflicting values.

    Raises:
        AssertionError: If some elements differ by more than ``atol + rtol * |y|``.
    """
    # compat: Chainer 7 warns here and forwards to testing.assert_allclose.
    warnings.warn(
        "chainer.gradient_check.assert_allclose is deprecated. "
        "Use chainer.testing.assert_allclose instead.", DeprecationWarning, stacklevel=1)
    _assert_allclose(x, y, atol, rtol, verbose)


# ------------------------------------------------------------------------------ check_backward
class _GradientSetter(FunctionNode):
    """Joins all outputs into one dummy output whose backward hands out the given gradients, so
    one backward pass starts from every output at once (even outputs that are inputs)."""

    def __init__(self, grads: list[Variable | None]) -> None:
        self.grads = grads

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(inputs[0])
        return (xp.zeros((), dtype=numpy.float32),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return tuple(self.grads[i] for i in indexes)


def _backward_from(outputs: Sequence[Variable | None], grad_outputs: Sequence[Variable | None]
                   ) -> None:
    present = [(y, gy) for y, gy in zip(outputs, grad_outputs)
               if y is not None and y.array is not None]
    if not present:
        return
    (joined,) = _GradientSetter([gy for _, gy in present]).apply([y for y, _ in present])
    joined.backward()


class _CheckBackward:
    """One run of :func:`check_backward`: a backward pass and a numerical directional derivative
    along one random unit direction over all checked inputs and parameters."""

    def __init__(self, func: Callable[..., Any], x_data: Any, y_grad: Any, params: Any,
                 eps: float, atol: float, rtol: float, no_grads: Sequence[bool] | None,
                 dtype: Any, detect_nondifferentiable: bool, is_immutable_params: bool) -> None:
        if dtype is not None and numpy.dtype(dtype).kind != "f":
            raise ValueError(f"`dtype` is allowed only float type, got {numpy.dtype(dtype)}")
        xs = _as_tuple(x_data)
        params = _as_tuple(params)
        if is_immutable_params:
            array_types = backend.get_array_types()
            if not all(isinstance(p, array_types) for p in params):
                raise ValueError(
                    "params must all be arrays when is_immutable_params is True, got "
                    + ", ".join(type(p).__name__ for p in params))
        elif not all(isinstance(p, Variable) for p in params):
            raise TypeError(
                "params must be Variables (or Parameters), got "
                + ", ".join(type(p).__name__ for p in params)
                + ": pass is_immutable_params=True to give arrays")
        if no_grads is None:
            no_grads = [x.dtype.kind != "f" for x in xs]
        elif len(no_grads) != len(xs):
            raise ValueError(
                f"no_grads must have one flag per input ({len(xs)}), got {len(no_grads)}")
        self.func = func
        self.xs = xs
        self.given_grad_outputs = None if y_grad is None else _as_tuple(y_grad)
        # Set by the forward pass: the output gradients actually used (None for None outputs).
        self.gys: tuple[Any, ...] = ()
        self.params = params
        self.no_grads = [bool(flag) for flag in no_grads]
        self.eps = eps
        self.atol = atol
        self.rtol = rtol
        self.dtype = dtype
        self.detect_nondifferentiable = detect_nondifferentiable
        self.is_immutable_params = is_immutable_params
        self.device = backend.get_device_from_array(*xs)

    def run(self) -> None:
        with backend.using_device(self.device):
            self._run()

    def _run(self) -> None:
        # The forward pass comes first: it may initialize lazy parameters, whose shapes the
        # direction needs.
        xs = [Variable(x, requires_grad=x.dtype.kind == "f") for x in self.xs]
        if self.is_immutable_params:
            params: Sequence[Any] = tuple(Parameter(p) for p in self.params)
            outputs = _outputs_of(self.func(xs, params))
        else:
            params = self.params
            outputs = _outputs_of(self.func(*xs))
        # func may have run backward itself.
        _clear_grads(xs)
        _clear_grads(params)

        if self.given_grad_outputs is None:
            if not (len(outputs) == 1 and outputs[0] is not None and outputs[0].shape == ()):
                raise ValueError(
                    "y_grad argument cannot be omitted if the target function is not a loss "
                    "function, which has a single output with shape ().\nActual output shapes: "
                    + ", ".join(str(None if y is None else y.shape) for y in outputs))
            xp = backend.get_array_module(outputs[0].array)
            gys: tuple[Any, ...] = (xp.ones_like(outputs[0].array),)
        else:
            _check_outputs_and_grad_outputs(
                [None if y is None else y.array for y in outputs], self.given_grad_outputs)
            gys = self.given_grad_outputs
        gys = tuple(None if y is None else gy for y, gy in zip(outputs, gys))
        self.gys = gys

        directions = self._sample_directions(params)
        backward_value = self._directional_backward(xs, outputs, params, directions)
        numeric_value = self._directional_numeric(directions)
        self._compare(numeric_value, backward_value, directions)

    def _sample_directions(self, params: Sequence[Any]) -> list[Any]:
        xp = self.device.xp
        shapes = [x.shape for x, skip in zip(self.xs, self.no_grads) if not skip]
        shapes += [p.shape for p in params]
        sizes = [math.prod(shape) for shape in shapes]
        total = sum(sizes)
        # One draw over every checked element, from the global generator, so that
        # testing.fix_random makes the check reproducible.
        flat = xp.random.normal(size=(total,))
        if total:
            # compat: Chainer 7's direction. It has unit length, which keeps the size of the
            # truncation error independent of the number of elements, and every entry is at
            # least 0.1 / sqrt(total) in size, since tiny entries make the comparison unstable:
            # each entry's magnitude is the root of 0.99 of its share of the squared norm plus
            # 0.01 of an even share, with the sign it was drawn with. The same draws and the
            # same arithmetic give the same directions as Chainer for a given seed.
            squares = xp.square(flat)
            flat = xp.copysign(xp.sqrt((0.99 / squares.sum()) * squares + 0.01 / total), flat)
        boundaries = list(itertools.accumulate(sizes))[:-1]
        return [part.reshape(shape) for part, shape in zip(xp.split(flat, boundaries), shapes)]

    def _directional_backward(self, xs: list[Variable], outputs: tuple[Variable | None, ...],
                              params: Sequence[Any], directions: list[Any]) -> Any:
        # Copies, so that backprop cannot change the gradients the numerical part uses.
        _backward_from(outputs, [None if gy is None else Variable(gy.copy(), requires_grad=False)
                                 for gy in self.gys])
        for i, (x, skip) in enumerate(zip(xs, self.no_grads)):
            if skip and x.grad is not None:
                raise RuntimeError(
                    f"gradient of inputs[{i}] must be None because no_grads marks it (or it is "
                    f"not a float array), got a gradient of shape {x.grad.shape}: fix the "
                    "backward, or the no_grads flag")
        grads = [x.grad for x, skip in zip(xs, self.no_grads) if not skip]
        grads += [p.grad for p in params]
        total: Any = 0.0
        for g, direction in zip(grads, directions):
            # A missing gradient counts as zero, as in Chainer.
            if g is not None:
                total = total + (g.astype(numpy.float64) * direction).sum()
        return total

    def _directional_numeric(self, directions: list[Any]) -> Any:
        xp = self.device.xp
        dtype = self.dtype
        params = self.params
        param_arrays = [p if self.is_immutable_params else p.array for p in params]
        checked = [x for x, skip in zip(self.xs, self.no_grads) if not skip] + param_arrays
        skipped = {i: x for i, (x, skip) in enumerate(zip(self.xs, self.no_grads)) if skip}
        if dtype is not None:
            # Every float array, skipped or not, meets func in the same dtype.
            checked = [a.astype(dtype, copy=False) for a in checked]
            skipped = {i: x.astype(dtype, copy=False) if x.dtype.kind == "f" else x
                       for i, x in skipped.items()}
        delta = xp.array(0.0, numpy.float64)

        def perturbed(array: Any, direction: Any) -> Any:
            # The step is taken in float64 and rounded to the array's own dtype.
            return xp.asarray((array.astype(numpy.float64) + delta * direction)
                              .astype(array.dtype))

        def evaluate() -> tuple[Any, ...]:
            moved = iter([perturbed(a, d) for a, d in zip(checked, directions)])
            xs = [Variable(skipped[i], requires_grad=skipped[i].dtype.kind == "f")
                  if i in skipped else Variable(next(moved)) for i in range(len(self.xs))]
            moved_params = list(moved)
            if self.is_immutable_params:
                outputs = _outputs_of(self.func(xs, tuple(Parameter(p) for p in moved_params)))
            else:
                originals = [p.array for p in params]
                for p, array in zip(params, moved_params):
                    p.array = array
                _clear_grads(params)
                try:
                    outputs = _outputs_of(self.func(*xs))
                finally:
                    for p, array in zip(params, originals):
                        p.array = array
            return tuple(None if y is None else y.array for y in outputs)

        (value,) = numerical_grad(
            evaluate, (delta,), self.gys, eps=self.eps,
            detect_nondifferentiable=self.detect_nondifferentiable,
            diff_atol=0, diff_rtol=self.rtol)
        return value

    def _compare(self, numeric_value: Any, backward_value: Any, directions: list[Any]) -> None:
        try:
            _assert_allclose(numeric_value, backward_value, atol=self.atol, rtol=self.rtol)
        except AssertionError as error:
            lines = [f"check_backward failed (eps={self.eps} atol={self.atol} rtol={self.rtol})"]
            for i, x in enumerate(self.xs):
                lines += [f"inputs[{i}]:", f"{x}"]
            for i, gy in enumerate(self.gys):
                lines += [f"grad_outputs[{i}]:", f"{gy}"]
            for i, direction in enumerate(directions):
                lines += [f"directions[{i}]:", f"{direction}"]
            lines += [f"gradients (numeric):  {numeric_value}",
                      f"gradients (backward): {backward_value}", "",
                      "x: numeric gradient, y: backward gradient"]
            raise AssertionError("\n".join(lines) + str(error)) from None


def check_backward(func: Callable[..., Any], x_data: Any, y_grad: Any, params: Any = (),
                   eps: float = 1e-3, atol: float = 1e-5, rtol: float = 1e-4,
                   no_grads: Sequence[bool] | None = None, dtype: Any = None,
                   detect_nondifferentiable: bool = False,
                   is_immutable_params: bool = False) -> None:
    """Checks the gradients that backprop computes for ``func`` against numerical ones.

    ``func`` is called on Variables made from ``x_data`` and backprop runs from its outputs
    with ``y_grad``. One random unit direction ``r`` over all checked inputs and ``params`` is
    drawn (from the global ``xp.random``, so :func:`chainer.testing.fix_random` fixes it); the
    backprop gradients projected on ``r`` must match the numerical derivative of
    ``delta -> func(x + delta * r)`` contracted with ``y_grad``. Projections and differences
    are computed in float64; perturbed inputs are rounded to their own dtype (or ``dtype``).

    Args:
        func: Callable taking one Variable per input and returning a Variable or a tuple of
            Variables (a FunctionNode's ``apply`` wrapped in a function, a Link, a lambda).
            It is called many times and must be deterministic.
        x_data: An array or a tuple of arrays, the inputs.
        y_grad: An array or a tuple of arrays, one gradient per output; None for a loss
            function with a single output of shape ``()`` (its gradient is 1).
        params: A Variable (typically a Link's Parameter) or a tuple of them whose gradients
            are checked too; their arrays are replaced during the check and restored.
        eps: Step of the finite differences.
        atol: Absolute tolerance of the comparison.
        rtol: Relative tolerance of the comparison (also of the non-differentiability fit).
        no_grads: One flag per input; True means the input is not checked and its gradient
            must stay None. Default: True exactly for the non-float inputs.
        dtype: Float dtype that checked inputs, float skipped inputs and params are cast to for
            the numerical part; None keeps their dtypes.
        detect_nondifferentiable: Raise :class:`NondifferentiableError` when ``func`` is not
            differentiable at ``x_data`` along the direction.
        is_immutable_params: ``params`` are arrays, and ``func(xs, params)`` gets a list of
            input Variables and a tuple of fresh Parameters on every call.

    Raises:
        AssertionError: If the gradients disagree; the message shows the inputs, output
            gradients, directions, and both directional derivatives.
        RuntimeError: If an input marked by ``no_grads`` receives a gradient.
        ValueError: On inconsistent arguments (``dtype`` not float, ``no_grads`` or ``y_grad``
            of the wrong length, shape or dtype, ``y_grad=None`` for a non-scalar output).
        NondifferentiableError: See ``detect_nondifferentiable``.

    Compat:
        ``is_immutable_params`` is Chainer's private ``_CheckBackward`` option, exposed as a
        trailing keyword. Parameters get their original arrays back even when ``dtype`` is given
        (Chainer leaves them cast).
    """
    _CheckBackward(func, x_data, y_grad, params, eps, atol, rtol, no_grads, dtype,
                   detect_nondifferentiable, is_immutable_params).run()


def _check_backward_with_params(func: Callable[..., Any], x_data: Any, y_grad: Any,
                                params: Any = (), eps: float = 1e-3, atol: float = 1e-5,
                                rtol: float = 1e-4, no_grads: Sequence[bool] | None = None,
                                dtype: Any = None, detect_nondifferentiable: bool = False) -> None:
    # compat: Chainer's private entry point for LinkTestCase (params given as arrays).
    _CheckBackward(func, x_data, y_grad, params, eps, atol, rtol, no_grads, dtype,
                   detect_nondifferentiable, True).run()


# ----------------------------------------------------------------------- check_double_backward
def check_double_backward(func: Callable[..., Any], x_data: Any, y_grad: Any, x_grad_grad: Any,
                          params: Any = (), params_grad_grad: Any = (), eps: float = 1e-3,
                          atol: float = 1e-4, rtol: float = 1e-3,
                          no_grads: Sequence[bool] | None = None, dtype: Any = None,
                          detect_nondifferentiable: bool = False) -> None:
    """Checks the second-order gradients of ``func`` against numerical ones.

    The first-order gradient function ``(x..., gy...) -> (gx..., gparam...)`` is built with
    ``chainer.grad(..., enable_double_backprop=True)`` and checked by :func:`check_backward`
    with ``x_grad_grad`` and ``params_grad_grad`` as its output gradients. The first-order
    gradients themselves are trusted: check them with :func:`check_backward` first.

    Args:
        func: As for :func:`check_backward`.
        x_data: An array or a tuple of arrays, the inputs.
        y_grad: An array or a tuple of arrays, one gradient per output of ``func``; None for
            an output that takes no part (its gradient is then not checked either).
        x_grad_grad: One array per float input: the gradient flowing into its first-order
            gradient.
        params: Variables whose gradients are part of the first-order gradient function.
        params_grad_grad: One array per parameter, like ``x_grad_grad``.
        eps: Step of the finite differences.
        atol: Absolute tolerance (looser than check_backward's: second differences are noisier).
        rtol: Relative tolerance.
        no_grads: One flag per element of ``x_data + y_grad`` (the inputs of the first-order
            gradient function), as in :func:`check_backward`.
        dtype: As for :func:`check_backward`.
        detect_nondifferentiable: As for :func:`check_backward`.

    Raises:
        AssertionError: If the second-order gradients disagree; the message adds the inputs,
            output gradients and grad-grads to check_backward's report.
        RuntimeError, ValueError, NondifferentiableError: As for :func:`check_backward`.
    """
    xs = _as_tuple(x_data)
    gys = _as_tuple(y_grad)
    grad_grads = _as_tuple(x_grad_grad)
    param_grad_grads = _as_tuple(params_grad_grad)
    params = _as_tuple(params)
    n_inputs = len(xs)
    float_inputs = [x.dtype.kind == "f" for x in xs]
    # An output whose gradient is None takes no part in the first-order gradient, and its
    # gradient is not an input of the function checked (nor of no_grads' flags).
    given = [i for i, gy in enumerate(gys) if gy is not None]
    if not given:
        raise ValueError(
            "y_grad must hold an array for at least one output of func, got only None: "
            "check_double_backward needs explicit output gradients (xp.ones(()) for a loss)")
    if no_grads is not None:
        if len(no_grads) != n_inputs + len(gys):
            raise ValueError(
                f"no_grads must have one flag per input and output gradient "
                f"({n_inputs + len(gys)}), got {len(no_grads)}")
        no_grads = list(no_grads[:n_inputs]) + [no_grads[n_inputs + i] for i in given]

    def first_order_grad(*inputs: Variable) -> tuple[Variable | None, ...]:
        xs_ = list(inputs[:n_inputs])
        gys_: list[Variable | None] = [None] * len(gys)
        for i, gy in zip(given, inputs[n_inputs:]):
            gys_[i] = gy
        outputs = _outputs_of(func(*xs_))
        _check_outputs_and_grad_outputs([None if y is None else y.array for y in outputs],
                                        [None if gy is None else gy.array for gy in gys_])
        present = [(y, gy) for y, gy in zip(outputs, gys_) if y is not None and gy is not None]
        targets = [x for x, is_float in zip(xs_, float_inputs) if is_float] + list(params)
        if not present or not targets:
            return tuple([None] * len(targets))
        grads = grad([y for y, _ in present], targets, grad_outputs=[gy for _, gy in present],
                     enable_double_backprop=True)
        return tuple(grads)

    try:
        check_backward(first_order_grad, xs + tuple(gys[i] for i in given),
                       grad_grads + param_grad_grads, params=params,
                       eps=eps, atol=atol, rtol=rtol, no_grads=no_grads, dtype=dtype,
                       detect_nondifferentiable=detect_nondifferentiable)
    except AssertionError as error:
        lines = [f"check_double_backward failed (eps={eps} atol={atol} rtol={rtol})"]
        for label, arrays in (("input", xs), ("grad_output", gys),
                              ("grad_grad_input", grad_grads),
                              ("grad_grad_param", param_grad_grads)):
            for i, array in enumerate(arrays):
                lines += [f"{label}[{i}]:", f"{array}"]
        lines += ["", str(error)]
        raise AssertionError("\n".join(lines)) from error
