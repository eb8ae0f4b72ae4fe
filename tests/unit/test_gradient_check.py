"""Tests of chainer_compat.gradient_check: numerical_grad, the non-differentiability detection,
check_backward and check_double_backward, on NumPy and (where a CUDA device exists) CuPy."""

from __future__ import annotations

import types
import warnings
from typing import Any

import numpy
import pytest

import chainer_compat
from chainer_compat import backend, gradient_check, testing
from chainer_compat import functions as F
from chainer_compat.function_node import FunctionNode
from chainer_compat.gradient_check import (
    NondifferentiableError,
    check_backward,
    check_double_backward,
    numerical_grad,
)
from chainer_compat.utils import force_array
from chainer_compat.variable import Parameter, Variable


# ------------------------------------------------------------------------------------ fixtures
@pytest.fixture(autouse=True)
def _seeded() -> None:
    # Directions come from the global generators, as in Chainer.
    numpy.random.seed(0)


def _uniform(xp: types.ModuleType, shape: tuple[int, ...], low: float = -1.0, high: float = 1.0,
             dtype: Any = numpy.float64) -> Any:
    return xp.asarray(numpy.random.uniform(low, high, shape).astype(dtype))


def _to_cpu(array: Any) -> numpy.ndarray:
    return array.get() if backend.is_cupy_array(array) else numpy.asarray(array)


# ------------------------------------------------------------------------ functions under test
class Sin(FunctionNode):
    """sin with a correct backward written with Variable operations (so twice differentiable
    only through Cos)."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        return (force_array(xp.sin(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return (Cos().apply((x,))[0] * grad_outputs[0],)


class Cos(FunctionNode):
    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        return (force_array(xp.cos(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return (-Sin().apply((x,))[0] * grad_outputs[0],)


class Square(FunctionNode):
    """x ** 2 whose backward is off by ``factor`` (1 is correct)."""

    def __init__(self, factor: float = 1.0) -> None:
        self.factor = factor

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return (inputs[0] * inputs[0],)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return (2.0 * self.factor * x * grad_outputs[0],)


class Cube(FunctionNode):
    """x ** 3 with a correct first derivative; with ``wrong_second`` its backward treats one
    factor x as a constant, so the second derivative is half the true one."""

    def __init__(self, wrong_second: bool = False) -> None:
        self.wrong_second = wrong_second

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return (x * x * x,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        if self.wrong_second:
            return (3.0 * x * x.array * gy,)
        return (3.0 * x * x * gy,)


class ScaleShift(FunctionNode):
    """y = a * x + b (a, b and x of the same shape): several inputs, one output."""

    def __init__(self, wrong_gb: bool = False) -> None:
        self.wrong_gb = wrong_gb

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, a, b = inputs
        return (a * x + b,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, a = self.get_retained_inputs()
        gy, = grad_outputs
        gb = 2.0 * gy if self.wrong_gb else gy
        return (a * gy, x * gy, gb)


class SumAndProduct(FunctionNode):
    """Two inputs, two outputs: (x + y, x * y)."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, y = inputs
        return (x + y, x * y)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, y = self.get_retained_inputs()
        g_sum, g_product = grad_outputs
        gx = g_sum + g_product * y if g_product is not None else g_sum
        gy = g_sum + g_product * x if g_product is not None else g_sum
        return (gx, gy)


class Take(FunctionNode):
    """Gathers x[indices] along axis 0; the integer indices get no gradient."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, indices = inputs
        self.shape = x.shape
        self.indices = indices
        return (x[indices],)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        xp = backend.get_array_module(gy.array)
        # Scatter-add as a one-hot product, the same code on NumPy and CuPy.
        one_hot = (self.indices[:, None] == xp.arange(self.shape[0])[None, :]).astype(gy.dtype)
        return (Variable(one_hot.T @ gy.array), None)


def sin(x: Variable) -> Variable:
    return Sin().apply((x,))[0]


# -------------------------------------------------------------------------------- numerical_grad
def test_numerical_grad_of_square_is_twice_x_times_grad_output(xp: types.ModuleType) -> None:
    x = _uniform(xp, (3, 4))
    gy = _uniform(xp, (3, 4))
    (gx,) = numerical_grad(lambda: (x * x,), (x,), (gy,))
    # Central differences are exact for a quadratic, up to rounding.
    numpy.testing.assert_allclose(_to_cpu(gx), _to_cpu(2 * x * gy), rtol=1e-7, atol=1e-10)


def test_numerical_grad_of_sin_function_node_is_cos(xp: types.ModuleType) -> None:
    x = _uniform(xp, (5,), -3.0, 3.0)
    gy = _uniform(xp, (5,))
    variable = Variable(x)
    (gx,) = numerical_grad(lambda: (Sin().apply((variable,))[0].array,), (x,), (gy,), eps=1e-4)
    numpy.testing.assert_allclose(_to_cpu(gx), _to_cpu(xp.cos(x) * gy), rtol=1e-6, atol=1e-9)


def test_numerical_grad_with_several_inputs_and_outputs(xp: types.ModuleType) -> None:
    x = _uniform(xp, (2, 3))
    y = _uniform(xp, (2, 3))
    g_sum = _uniform(xp, (2, 3))
    g_product = _uniform(xp, (2, 3))
    gx, gy = numerical_grad(lambda: (x + y, x * y), (x, y), (g_sum, g_product))
    numpy.testing.assert_allclose(_to_cpu(gx), _to_cpu(g_sum + g_product * y), rtol=1e-7)
    numpy.testing.assert_allclose(_to_cpu(gy), _to_cpu(g_sum + g_product * x), rtol=1e-7)


def test_numerical_grad_skips_outputs_whose_grad_is_none_and_accepts_scalars() -> None:
    x = numpy.array([0.5, -1.5])
    (gx,) = numerical_grad(lambda: (x * x, 100.0 * x ** 3), (x,), (2.0, None))
    numpy.testing.assert_allclose(gx, 2.0 * 2 * x, rtol=1e-7)


def test_numerical_grad_restores_inputs_and_keeps_their_dtype() -> None:
    x = numpy.array([[0.25, -0.5], [1.0, 2.0]], dtype=numpy.float32)
    before = x.copy()
    (gx,) = numerical_grad(lambda: (x * x,), (x,), (numpy.ones_like(x),), eps=1e-2)
    numpy.testing.assert_array_equal(x, before)
    assert gx.dtype == numpy.float32
    numpy.testing.assert_allclose(gx, 2 * x, rtol=1e-3)


def test_numerical_grad_on_zero_dimensional_input() -> None:
    x = numpy.array(0.7)
    (gx,) = numerical_grad(lambda: (numpy.exp(x),), (x,), (numpy.array(1.0),))
    assert gx.shape == ()
    numpy.testing.assert_allclose(gx, numpy.exp(0.7), rtol=1e-6)


def test_numerical_grad_disables_type_check_while_sampling() -> None:
    x = numpy.array([1.0])
    seen = []

    def f() -> tuple[Any, ...]:
        seen.append(chainer_compat.config.type_check)
        return (x * 3,)

    numerical_grad(f, (x,), (numpy.ones(1),))
    assert seen and not any(seen)


def test_numerical_grad_rejects_bad_arguments() -> None:
    x = numpy.ones(2)
    with pytest.raises(RuntimeError, match="float"):
        numerical_grad(lambda: (x,), (numpy.ones(2, numpy.int32),), (x,))
    with pytest.raises(ValueError, match="eps must be positive"):
        numerical_grad(lambda: (x,), (x,), (x,), eps=0)
    with pytest.raises(TypeError, match="tuple or a list"):
        numerical_grad(lambda: (x,), x, (x,))
    with pytest.raises(ValueError, match="one gradient per output"):
        numerical_grad(lambda: (x, x), (x,), (x,))


def test_detection_makes_numerical_grad_third_order_accurate() -> None:
    x = numpy.array([0.3, -0.8, 1.7])
    eps = 1e-2

    def f() -> tuple[Any, ...]:
        return (x ** 3,)

    exact = 3 * x ** 2
    (plain,) = numerical_grad(f, (x,), (numpy.ones(3),), eps=eps)
    (five_point,) = numerical_grad(f, (x,), (numpy.ones(3),), eps=eps,
                                   detect_nondifferentiable=True)
    # Central differences miss eps**2 on a cubic; the five-point stencil is exact.
    numpy.testing.assert_allclose(plain - exact, eps ** 2, rtol=1e-6)
    numpy.testing.assert_allclose(five_point, exact, rtol=1e-10)


def test_fit_residual_equals_least_squares_quadratic_fit() -> None:
    samples = numpy.random.standard_normal((5, 7))
    residual = gradient_check._fit_residual(list(samples))
    _, (squared_sum, _, _, _) = numpy.polynomial.polynomial.polyfit(
        numpy.arange(5), samples, deg=2, full=True)
    numpy.testing.assert_allclose(residual, numpy.sqrt(squared_sum / 5), rtol=1e-10)


# -------------------------------------------------------------------- nondifferentiable points
@pytest.mark.parametrize("function, point", [
    (numpy.abs, 0.0),
    (numpy.sign, 0.0),                                # a jump
    (lambda x: numpy.maximum(x, 0.5), 0.5),           # relu-like kink away from zero
])
def test_numerical_grad_detects_kinks_and_jumps(function: Any, point: float) -> None:
    x = numpy.array([1.3, point, -0.7])
    with pytest.raises(NondifferentiableError, match="non-differentiable point") as info:
        numerical_grad(lambda: (function(x),), (x,), (numpy.ones(3),),
                       detect_nondifferentiable=True)
    assert "index on x: (1,)" in str(info.value)


def test_numerical_grad_detects_change_of_finiteness() -> None:
    x = numpy.array([0.0])
    with numpy.errstate(divide="ignore", invalid="ignore"), \
            pytest.raises(NondifferentiableError, match="i_out: 0"):
        numerical_grad(lambda: (numpy.log(x),), (x,), (numpy.ones(1),),
                       detect_nondifferentiable=True)


@pytest.mark.parametrize("function", [
    numpy.sin, numpy.exp, lambda x: x * x, lambda x: numpy.zeros_like(x) + 4.0, numpy.tanh,
])
def test_numerical_grad_accepts_smooth_functions(function: Any) -> None:
    x = numpy.array([0.0, 0.5, -1.25, 2.0])
    (gx,) = numerical_grad(lambda: (function(x),), (x,), (numpy.ones(4),),
                           detect_nondifferentiable=True)
    assert numpy.isfinite(gx).all()


def test_numerical_grad_accepts_consistently_nonfinite_outputs() -> None:
    x = numpy.array([-1.0, -2.0])
    with numpy.errstate(invalid="ignore"):
        (gx,) = numerical_grad(lambda: (numpy.log(x),), (x,), (numpy.ones(2),),
                               detect_nondifferentiable=True)
    assert gx.shape == (2,)


def test_detection_runs_on_the_arrays_device(xp: types.ModuleType) -> None:
    x = xp.asarray([0.0, 1.0])
    with pytest.raises(NondifferentiableError):
        numerical_grad(lambda: (xp.abs(x),), (x,), (xp.ones(2),), detect_nondifferentiable=True)
    (gx,) = numerical_grad(lambda: (xp.sin(x),), (x,), (xp.ones(2),),
                           detect_nondifferentiable=True)
    numpy.testing.assert_allclose(_to_cpu(gx), numpy.cos([0.0, 1.0]), rtol=1e-8)


# ------------------------------------------------------------------------------ check_backward
def test_check_backward_passes_on_elementwise_function_node(xp: types.ModuleType) -> None:
    check_backward(sin, _uniform(xp, (3, 4), -3, 3), _uniform(xp, (3, 4)))


def test_check_backward_passes_on_matmul(xp: types.ModuleType) -> None:
    a = _uniform(xp, (2, 3))
    b = _uniform(xp, (3, 4))
    check_backward(F.matmul, (a, b), _uniform(xp, (2, 4)))
    check_backward(lambda a, b: F.matmul(a, b, transa=True), (_uniform(xp, (3, 2)), b),
                   _uniform(xp, (2, 4)))


def test_check_backward_passes_with_several_inputs_and_a_param(xp: types.ModuleType) -> None:
    x = _uniform(xp, (2, 3))
    a = _uniform(xp, (2, 3))
    bias = Parameter(_uniform(xp, (2, 3)))
    before = bias.array

    def func(x: Variable, a: Variable) -> Variable:
        return ScaleShift().apply((x, a, bias))[0]

    check_backward(func, (x, a), _uniform(xp, (2, 3)), params=(bias,))
    # The parameter gets its own array back after being perturbed in place.
    assert bias.array is before


def test_check_backward_checks_param_gradients(xp: types.ModuleType) -> None:
    x = _uniform(xp, (2, 3))
    a = _uniform(xp, (2, 3))
    bias = Parameter(_uniform(xp, (2, 3)))

    def func(x: Variable, a: Variable) -> Variable:
        return ScaleShift(wrong_gb=True).apply((x, a, bias))[0]

    with pytest.raises(AssertionError, match="check_backward failed"):
        check_backward(func, (x, a), _uniform(xp, (2, 3)), params=bias)


def test_check_backward_passes_on_multiple_outputs(xp: types.ModuleType) -> None:
    x = _uniform(xp, (4,))
    y = _uniform(xp, (4,))
    check_backward(lambda x, y: SumAndProduct().apply((x, y)), (x, y),
                   (_uniform(xp, (4,)), _uniform(xp, (4,))))


def test_check_backward_with_loss_function_and_no_y_grad(xp: types.ModuleType) -> None:
    check_backward(lambda x: F.sum(x * x * x), _uniform(xp, (3, 2)), None)


@pytest.mark.parametrize("factor", [0.5, 1.01, -1.0, 0.0])
def test_check_backward_fails_on_wrong_backward(xp: types.ModuleType, factor: float) -> None:
    x = _uniform(xp, (3, 4), 0.5, 1.0)
    gy = _uniform(xp, (3, 4), 0.5, 1.0)
    with pytest.raises(AssertionError) as info:
        check_backward(lambda x: Square(factor).apply((x,))[0], x, gy)
    message = str(info.value)
    for part in ("check_backward failed (eps=0.001 atol=1e-05 rtol=0.0001)", "inputs[0]:",
                 "grad_outputs[0]:", "directions[0]:", "gradients (numeric):",
                 "gradients (backward):", "x: numeric gradient, y: backward gradient"):
        assert part in message


def test_failure_message_reports_the_two_directional_derivatives() -> None:
    x = numpy.array([1.0, 2.0])
    gy = numpy.array([1.0, 1.0])
    with pytest.raises(AssertionError) as info:
        check_backward(lambda x: Square(3.0).apply((x,))[0], x, gy)
    lines = str(info.value).splitlines()
    numeric = float(next(s for s in lines if s.startswith("gradients (numeric):")).split()[-1])
    backward_ = float(
        next(s for s in lines if s.startswith("gradients (backward):")).split()[-1])
    # The backward is three times too large along any direction.
    assert backward_ == pytest.approx(3 * numeric, rel=1e-6)


def test_check_backward_passes_on_correct_square_with_same_inputs() -> None:
    # The control for the failure tests above.
    x = numpy.random.uniform(0.5, 1.0, (3, 4))
    check_backward(lambda x: Square().apply((x,))[0], x, numpy.ones((3, 4)))


def test_check_backward_is_reproducible_with_a_fixed_seed() -> None:
    x = numpy.array([1.0, 2.0, 3.0])
    messages = []
    for _ in range(2):
        numpy.random.seed(7)
        with pytest.raises(AssertionError) as info:
            check_backward(lambda x: Square(2.0).apply((x,))[0], x, numpy.ones(3))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_check_backward_accepts_func_returning_its_input() -> None:
    check_backward(lambda x: x, numpy.array([1.0, 2.0]), numpy.array([0.5, -1.0]))


def test_check_backward_clears_grads_left_by_func() -> None:
    def func(x: Variable) -> Variable:
        y = sin(x)
        # A func that runs backward itself must not pollute the check.
        F.sum(y).backward()
        return sin(x)

    check_backward(func, numpy.array([0.1, 0.2]), numpy.array([1.0, 1.0]))


# ------------------------------------------------------------------------------------ no_grads
def test_integer_inputs_are_skipped_by_default(xp: types.ModuleType) -> None:
    x = _uniform(xp, (4, 2))
    indices = xp.asarray([3, 0, 0])
    check_backward(lambda x, i: Take().apply((x, i))[0], (x, indices), _uniform(xp, (3, 2)))


def test_no_grads_input_that_receives_a_gradient_is_an_error() -> None:
    x = numpy.random.uniform(-1, 1, (4, 2))
    indices = numpy.array([3, 0])
    # inputs[1] feeds both a and b of ScaleShift, so backprop gives it a gradient.
    with pytest.raises(RuntimeError, match=r"gradient of inputs\[1\] must be None"):
        check_backward(lambda x, a: ScaleShift().apply((x, a, a))[0],
                       (x, numpy.ones((4, 2))), numpy.ones((4, 2)), no_grads=[False, True])
    check_backward(lambda x, i: Take().apply((x, i))[0], (x, indices), numpy.ones((2, 2)),
                   no_grads=[False, True])


def test_no_grads_excludes_an_input_from_the_check() -> None:
    x = numpy.random.uniform(0.5, 1.0, (3,))
    gy = numpy.ones(3)

    def func(x: Variable, c: Variable) -> Variable:
        # c is detached: backprop never gives it a gradient although y depends on it.
        return Square().apply((x,))[0] + Variable(c.array, requires_grad=False)

    # By default c is checked, and its numerical gradient (nonzero) disagrees with None.
    with pytest.raises(AssertionError):
        check_backward(func, (x, numpy.ones(3)), gy)
    check_backward(func, (x, numpy.ones(3)), gy, no_grads=[False, True])


def test_no_grads_must_have_one_flag_per_input() -> None:
    with pytest.raises(ValueError, match="one flag per input"):
        check_backward(sin, numpy.ones(2), numpy.ones(2), no_grads=[False, False])


def test_all_inputs_skipped_checks_nothing_but_still_runs() -> None:
    calls = []

    def func(x: Variable) -> Variable:
        calls.append(1)
        return Variable(x.array * 2, requires_grad=False)

    check_backward(func, numpy.ones(2), numpy.ones(2), no_grads=[True])
    assert calls


# ------------------------------------------------------------------------- argument validation
def test_y_grad_none_requires_a_scalar_output() -> None:
    with pytest.raises(ValueError, match="y_grad argument cannot be omitted"):
        check_backward(sin, numpy.ones(3), None)


def test_y_grad_must_match_outputs() -> None:
    with pytest.raises(ValueError, match="do not match"):
        check_backward(sin, numpy.ones(3), numpy.ones(4))
    with pytest.raises(ValueError, match="do not match"):
        check_backward(sin, numpy.ones(3), numpy.ones(3, numpy.float32))
    with pytest.raises(ValueError, match="one gradient per output"):
        check_backward(sin, numpy.ones(3), (numpy.ones(3), numpy.ones(3)))


def test_dtype_must_be_float() -> None:
    with pytest.raises(ValueError, match="only float"):
        check_backward(sin, numpy.ones(3), numpy.ones(3), dtype=numpy.int32)


def test_func_must_return_variables() -> None:
    with pytest.raises(TypeError, match="must return a Variable"):
        check_backward(lambda x: x.array, numpy.ones(3), numpy.ones(3))


# -------------------------------------------------------------------------------- low precision
class _TenTimesSin(Sin):
    """sin with a backward ten times too large."""

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return (super().backward(indexes, grad_outputs)[0] * 10.0,)


@testing.fix_random()
def test_float16_inputs_pass_with_loose_tolerances(xp: types.ModuleType) -> None:
    # float16 rounds each x + eps d to about 2**-11 |x| (up to 1e-3 here), which moves each
    # term of the numeric directional derivative by up to 1e-3 / (2 eps) = 0.016 times |gy d|:
    # over 12 elements the sum may be off by a few hundredths, so atol is 5e-2. (It was 1e-2,
    # and failed once on CuPy with an error of 0.011, the random direction being unseeded.)
    x = _uniform(xp, (3, 4), -2, 2, numpy.float16)
    gy = _uniform(xp, (3, 4), -1, 1, numpy.float16)
    check_backward(sin, x, gy, eps=2 ** -4, atol=5e-2, rtol=1e-2)
    with pytest.raises(AssertionError, match="check_backward failed"):
        check_backward(lambda x: _TenTimesSin().apply((x,))[0], x, gy, eps=2 ** -4, atol=5e-2,
                       rtol=1e-2)


def test_float16_inputs_with_float64_numerics_pass_tighter(xp: types.ModuleType) -> None:
    x = _uniform(xp, (3, 4), -2, 2, numpy.float16)
    gy = _uniform(xp, (3, 4), -1, 1, numpy.float16)
    check_backward(sin, x, gy, dtype=numpy.float64, atol=5e-3, rtol=5e-3)


def test_dtype_casts_what_func_sees_in_the_numerical_part() -> None:
    seen = set()

    def func(x: Variable, c: Variable) -> Variable:
        seen.add((x.dtype, c.dtype))
        return sin(x) * Variable(c.array, requires_grad=False)

    x = numpy.random.uniform(-1, 1, 3).astype(numpy.float32)
    c = numpy.ones(3, numpy.float32)
    check_backward(func, (x, c), numpy.ones(3, numpy.float32), no_grads=[False, True],
                   dtype=numpy.float64, atol=1e-3, rtol=1e-3)
    # The backward pass sees float32; the numerical one float64, skipped float inputs included.
    f32, f64 = numpy.dtype(numpy.float32), numpy.dtype(numpy.float64)
    assert seen == {(f32, f32), (f64, f64)}


def test_float16_wrong_backward_still_fails() -> None:
    x = numpy.random.uniform(0.5, 1.0, (3, 4)).astype(numpy.float16)
    with pytest.raises(AssertionError):
        check_backward(lambda x: Square(1.5).apply((x,))[0], x,
                       numpy.ones((3, 4), numpy.float16), eps=2 ** -4, atol=1e-2, rtol=1e-2)


# ---------------------------------------------------------------- non-differentiable in checks
def test_check_backward_detects_abs_at_zero(xp: types.ModuleType) -> None:
    x = xp.asarray([0.0, 0.5, -0.5])
    with pytest.raises(NondifferentiableError):
        check_backward(F.absolute, x, xp.ones(3), detect_nondifferentiable=True)


def test_check_backward_detection_accepts_smooth_functions(xp: types.ModuleType) -> None:
    check_backward(sin, _uniform(xp, (2, 3)), _uniform(xp, (2, 3)),
                   detect_nondifferentiable=True)
    check_backward(F.absolute, xp.asarray([0.25, -0.5]), xp.ones(2),
                   detect_nondifferentiable=True)


# ------------------------------------------------------------------------ immutable parameters
def test_is_immutable_params_passes_fresh_parameters() -> None:
    x = numpy.random.uniform(-1, 1, (2, 3))
    a = numpy.random.uniform(-1, 1, (2, 3))
    b = numpy.random.uniform(-1, 1, (2, 3))
    seen = []

    def func(xs: list[Variable], params: tuple[Parameter, ...]) -> Variable:
        seen.append(params)
        return ScaleShift().apply((xs[0], params[0], params[1]))[0]

    check_backward(func, x, numpy.ones((2, 3)), params=(a, b), is_immutable_params=True)
    assert all(isinstance(p, Parameter) for ps in seen for p in ps)
    with pytest.raises(ValueError, match="must all be arrays"):
        check_backward(func, x, numpy.ones((2, 3)), params=(Parameter(a),),
                       is_immutable_params=True)


def test_params_must_be_variables() -> None:
    with pytest.raises(TypeError, match="params must be Variables"):
        check_backward(sin, numpy.ones(2), numpy.ones(2), params=(numpy.ones(2),))


# ----------------------------------------------------------------------- check_double_backward
def test_check_double_backward_passes_on_cube(xp: types.ModuleType) -> None:
    x = _uniform(xp, (3, 2))
    check_double_backward(lambda x: x ** 3, x, _uniform(xp, (3, 2)), _uniform(xp, (3, 2)))


def test_check_double_backward_passes_on_function_node_with_variable_backward(
        xp: types.ModuleType) -> None:
    x = _uniform(xp, (4,), -2, 2)
    check_double_backward(sin, x, _uniform(xp, (4,)), _uniform(xp, (4,)))
    check_double_backward(lambda x: Cube().apply((x,))[0], x, _uniform(xp, (4,)),
                          _uniform(xp, (4,)))


def test_check_double_backward_fails_on_wrong_second_derivative(xp: types.ModuleType) -> None:
    x = _uniform(xp, (3,), 0.5, 1.5)
    gy = _uniform(xp, (3,), 0.5, 1.5)

    def wrong(x: Variable) -> Variable:
        return Cube(wrong_second=True).apply((x,))[0]

    # The first derivative is right, so check_backward is satisfied ...
    check_backward(wrong, x, gy)
    # ... but the second one is off by a factor.
    with pytest.raises(AssertionError) as info:
        check_double_backward(wrong, x, gy, _uniform(xp, (3,), 0.5, 1.5))
    message = str(info.value)
    for part in ("check_double_backward failed (eps=0.001 atol=0.0001 rtol=0.001)",
                 "input[0]:", "grad_output[0]:", "grad_grad_input[0]:",
                 "check_backward failed"):
        assert part in message


def test_check_double_backward_with_several_inputs_and_outputs() -> None:
    x = numpy.random.uniform(-1, 1, (3,))
    y = numpy.random.uniform(-1, 1, (3,))
    check_double_backward(lambda x, y: SumAndProduct().apply((x, y)), (x, y),
                          (numpy.random.uniform(-1, 1, 3), numpy.random.uniform(-1, 1, 3)),
                          (numpy.random.uniform(-1, 1, 3), numpy.random.uniform(-1, 1, 3)))


def test_check_double_backward_with_a_param() -> None:
    x = numpy.random.uniform(-1, 1, (2, 2))
    weight = Parameter(numpy.random.uniform(-1, 1, (2, 2)))

    def func(x: Variable) -> Variable:
        return x * x * weight

    check_double_backward(func, x, numpy.random.uniform(-1, 1, (2, 2)),
                          numpy.random.uniform(-1, 1, (2, 2)), params=weight,
                          params_grad_grad=numpy.random.uniform(-1, 1, (2, 2)))


def test_check_double_backward_with_an_integer_input() -> None:
    x = numpy.random.uniform(-1, 1, (4, 2))
    indices = numpy.array([1, 3, 3])

    def func(x: Variable, i: Variable) -> Variable:
        return F.get_item(x * x, i.array)

    check_double_backward(func, (x, indices), numpy.random.uniform(-1, 1, (3, 2)),
                          numpy.random.uniform(-1, 1, (4, 2)))


def test_check_double_backward_on_loss_function() -> None:
    x = numpy.random.uniform(-1, 1, (3,))
    check_double_backward(lambda x: F.sum(x * x * x), x, numpy.array(1.0),
                          numpy.random.uniform(-1, 1, 3))


# ----------------------------------------------------------------------------- assert_allclose
def test_assert_allclose_is_a_deprecated_alias() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient_check.assert_allclose(numpy.ones(2), numpy.ones(2) + 1e-7)
        with pytest.raises(AssertionError):
            gradient_check.assert_allclose(numpy.ones(2), numpy.zeros(2))
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)


def test_check_double_backward_skips_an_output_whose_gradient_is_none() -> None:
    # Chainer's FunctionTestCase passes None for an output without a gradient; that output
    # takes no part, and the other output's second-order gradient is still checked.
    x = numpy.random.uniform(0.5, 1, (3,))

    def two_outputs(x):
        return x * x * x, F.exp(x)

    check_double_backward(two_outputs, x, (numpy.ones(3), None), numpy.random.uniform(-1, 1, 3))
    check_double_backward(two_outputs, x, (None, numpy.ones(3)), numpy.random.uniform(-1, 1, 3),
                          no_grads=[False, True, False])  # the None gradient's flag drops

    def wrong_second_derivative(x):
        return F.exp(x), Cube(wrong_second=True).apply((x,))[0]

    with pytest.raises(AssertionError):
        check_double_backward(wrong_second_derivative, x, (None, numpy.ones(3)),
                              numpy.random.uniform(-1, 1, 3))
    with pytest.raises(ValueError, match="at least one output"):
        check_double_backward(two_outputs, x, (None, None), numpy.random.uniform(-1, 1, 3))
    with pytest.raises(ValueError, match="one flag per input and output gradient"):
        check_double_backward(two_outputs, x, (numpy.ones(3), None), numpy.ones(3),
                              no_grads=[False, False])
