"""``unary_math_function_unittest``: a class decorator that fills a ``unittest.TestCase`` with
forward, backward, double-backward and label tests of an elementwise unary math function, over
two shapes and three float dtypes, on the CPU and (``attr.gpu``) a CUDA device.

Layer 8: imports backends.cuda, function, functions, variable, gradient_check and testing.
"""

from __future__ import annotations

import unittest
import warnings
from collections.abc import Callable
from typing import Any

import numpy

from chainer_compat import function, functions, gradient_check, variable
from chainer_compat.backends import cuda
from chainer_compat.testing import array as array_module
from chainer_compat.testing import attr, parameterized

__all__ = ["check_available", "is_available", "unary_math_function_unittest"]


def is_available() -> bool:
    """Returns whether pytest, which the generated GPU tests' marks need, is available."""
    return attr.is_available()


def check_available() -> None:
    """Raises RuntimeError if pytest is missing."""
    attr.check_available()


def _function_name(func: Any) -> str:
    if isinstance(func, function.Function):
        return type(func).__name__.lower()
    return func.__name__


def _function_class(func: Any) -> type | None:
    # The class whose label is checked: the Function's own, or F.<Name> for F.<name>.
    if isinstance(func, function.Function):
        return type(func)
    return getattr(functions, func.__name__.capitalize(), None)


def _default_data(shape: tuple[int, ...], dtype: Any) -> tuple[numpy.ndarray, ...]:
    x = numpy.random.uniform(-1, 1, shape).astype(dtype, copy=False)
    gy = numpy.random.uniform(-1, 1, shape).astype(dtype, copy=False)
    ggx = numpy.random.uniform(-1, 1, shape).astype(dtype, copy=False)
    return x, gy, ggx


def _squared(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
    # A linear function has zero second derivative; squaring makes double backward testable.
    def squared(x: Any) -> Any:
        y = func(x)
        return y * y
    return squared


def unary_math_function_unittest(
        func: Any, func_expected: Callable[..., Any] | None = None,
        label_expected: str | None = None,
        make_data: Callable[[tuple[int, ...], Any], tuple[Any, ...]] | None = None,
        is_linear: bool | None = None, forward_options: dict[str, Any] | None = None,
        backward_options: dict[str, Any] | None = None,
        double_backward_options: dict[str, Any] | None = None) -> Callable[[type], Any]:
    """Returns a decorator that turns a ``unittest.TestCase`` into tests of ``func``.

    The decorated class gets ``setUp``, ``test_forward_cpu``/``_gpu``, ``test_backward_cpu``/
    ``_gpu``, for a new-style function ``test_double_backward_cpu``/``_gpu``, and when the
    function class is known ``test_label``; it is then parameterized over ``shape`` in
    ``(3, 2)`` and ``()`` and ``dtype`` in float16, float32 and float64.

    Args:
        func: The function under test: a callable such as ``F.sin``, or an old-style
            :class:`~chainer_compat.Function` instance (tested without double backward).
        func_expected: NumPy reference, called as ``func_expected(x, dtype=x.dtype)``;
            default: the NumPy function of the same name.
        label_expected: Expected label of the function class; default: the function's name.
        make_data: ``make_data(shape, dtype)`` returning ``(x, gy, ggx)`` (``(x, gy)`` for an
            old-style Function); default: uniform in [-1, 1).
        is_linear: Deprecated; if true, double backward is tested on ``func(x) ** 2``.
        forward_options: Overrides of ``testing.assert_allclose`` options (atol, rtol 1e-4).
        backward_options: Overrides of ``gradient_check.check_backward`` options.
        double_backward_options: Overrides of ``check_double_backward`` options.

    Returns:
        The class decorator.

    Raises:
        ValueError: If NumPy has no function of ``func``'s name and ``func_expected`` is not
            given, or ``label_expected`` is given for a function without a known class.
        RuntimeError: If pytest is missing.
    """
    check_available()
    is_new_style = not isinstance(func, function.Function)
    name = _function_name(func)
    function_class = _function_class(func)

    if func_expected is None:
        func_expected = getattr(numpy, name, None)
        if func_expected is None:
            raise ValueError(
                f"NumPy has no functions corresponding to Chainer function '{name}'.")
    if label_expected is None:
        label_expected = name
    elif function_class is None:
        raise ValueError(
            "Expected label is given even though Chainer function does not have its label.")
    if make_data is None:
        if is_new_style:
            make_data = _default_data
        else:
            def make_data(shape: tuple[int, ...], dtype: Any) -> tuple[Any, ...]:
                return _default_data(shape, dtype)[:2]
    if is_linear is not None:
        warnings.warn("is_linear option is deprecated", DeprecationWarning, stacklevel=1)
    reference = func_expected
    data_maker = make_data

    def decorate(klass: type) -> Any:
        if not (isinstance(klass, type) and issubclass(klass, unittest.TestCase)):
            raise TypeError(
                f"unary_math_function_unittest must decorate a unittest.TestCase subclass, got "
                f"{klass!r}")

        def setUp(self: Any) -> None:
            if is_new_style:
                self.x, self.gy, self.ggx = data_maker(self.shape, self.dtype)
            else:
                self.x, self.gy = data_maker(self.shape, self.dtype)
            self.forward_options = {"atol": 1e-4, "rtol": 1e-4}
            if self.dtype == numpy.float16:
                tolerance = {"eps": 2 ** -4, "atol": 2 ** -4, "rtol": 2 ** -4,
                             "dtype": numpy.float64}
            else:
                tolerance = {"dtype": numpy.float64, "atol": 1e-4, "rtol": 1e-4}
            self.backward_options = dict(tolerance)
            self.double_backward_options = dict(tolerance)
            self.forward_options.update(forward_options or {})
            self.backward_options.update(backward_options or {})
            self.double_backward_options.update(double_backward_options or {})

        def check_forward(self: Any, x_data: Any) -> None:
            y = func(variable.Variable(x_data))
            self.assertEqual(y.array.dtype, x_data.dtype)
            expected = reference(cuda.to_cpu(x_data), dtype=x_data.dtype)
            array_module.assert_allclose(expected, y.array, **self.forward_options)

        def test_forward_cpu(self: Any) -> None:
            self.check_forward(self.x)

        @attr.gpu
        def test_forward_gpu(self: Any) -> None:
            self.check_forward(cuda.to_gpu(self.x))

        def check_backward(self: Any, x_data: Any, y_grad: Any) -> None:
            gradient_check.check_backward(func, x_data, y_grad, **self.backward_options)

        def test_backward_cpu(self: Any) -> None:
            self.check_backward(self.x, self.gy)

        @attr.gpu
        def test_backward_gpu(self: Any) -> None:
            self.check_backward(cuda.to_gpu(self.x), cuda.to_gpu(self.gy))

        members: dict[str, Any] = {
            "setUp": setUp, "check_forward": check_forward,
            "test_forward_cpu": test_forward_cpu, "test_forward_gpu": test_forward_gpu,
            "check_backward": check_backward, "test_backward_cpu": test_backward_cpu,
            "test_backward_gpu": test_backward_gpu,
        }

        if is_new_style:
            def check_double_backward(self: Any, x_data: Any, y_grad: Any,
                                      x_grad_grad: Any) -> None:
                target = _squared(func) if is_linear else func
                gradient_check.check_double_backward(
                    target, x_data, y_grad, x_grad_grad, **self.double_backward_options)

            def test_double_backward_cpu(self: Any) -> None:
                self.check_double_backward(self.x, self.gy, self.ggx)

            @attr.gpu
            def test_double_backward_gpu(self: Any) -> None:
                self.check_double_backward(
                    cuda.to_gpu(self.x), cuda.to_gpu(self.gy), cuda.to_gpu(self.ggx))

            members.update(check_double_backward=check_double_backward,
                           test_double_backward_cpu=test_double_backward_cpu,
                           test_double_backward_gpu=test_double_backward_gpu)

        if function_class is not None:
            def test_label(self: Any) -> None:
                self.assertEqual(function_class().label, label_expected)

            members["test_label"] = test_label

        for member_name, member in members.items():
            setattr(klass, member_name, member)
        return parameterized.parameterize(*parameterized.product({
            "shape": [(3, 2), ()],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }))(klass)

    return decorate
