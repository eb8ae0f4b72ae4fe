"""The harness the function-test groups share: random inputs and the value and gradient checks.

``check_close`` checks a forward value against a NumPy reference, then the gradients;
``check_gradients`` runs ``check_backward`` and ``check_double_backward``. The group conftests
(activation, array, math) build their ``check_function`` from these with their own tolerances.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.testing.array import assert_allclose

# The numerical side of the gradient checks runs in float64, the backward in the input dtype.
GRAD_TOLERANCE = {
    numpy.dtype(numpy.float16): {"atol": 5e-2, "rtol": 1e-1},
    numpy.dtype(numpy.float32): {"atol": 1e-3, "rtol": 1e-3},
    numpy.dtype(numpy.float64): {"atol": 1e-6, "rtol": 1e-5},
}


def _to_numpy(array: Any) -> Any:
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _random_like(xp: types.ModuleType, array: Any) -> Any:
    return xp.asarray(numpy.random.uniform(-1, 1, array.shape)).astype(array.dtype)


def _check_gradients(func: Callable[..., Any], inputs: tuple[Any, ...], outputs: Any, *,
                     double: bool = True, grad_tolerance: dict[str, float] | None = None,
                     no_grads: list[bool] | None = None,
                     check_dtype: Any = numpy.float64, eps: float = 1e-3) -> None:
    """Runs ``check_backward`` and, with ``double``, ``check_double_backward`` on ``func``.

    Args:
        func: The function under test, taking one Variable or array per input.
        inputs: The input arrays (NumPy or CuPy).
        outputs: What ``func(*inputs)`` returned: a Variable, or a tuple of them; the random
            output gradients take the same form.
        double: Run check_double_backward too.
        grad_tolerance: Overrides the tolerance for the first float input's dtype.
        no_grads: Passed to check_backward.
        check_dtype: The ``dtype`` given to the gradient checks (None: the inputs' own).
        eps: The step of the numerical gradients.
    """
    xp = numpy if isinstance(inputs[0], numpy.ndarray) else __import__("cupy")
    float_inputs = [x for x in inputs if x.dtype.kind == "f"]
    tolerance = grad_tolerance or GRAD_TOLERANCE[numpy.dtype(float_inputs[0].dtype)]
    if isinstance(outputs, tuple):
        gy: Any = tuple(_random_like(xp, y) for y in outputs)
    else:
        gy = _random_like(xp, outputs)
    gradient_check.check_backward(func, inputs, gy, dtype=check_dtype, no_grads=no_grads,
                                  eps=eps, **tolerance)
    if double:
        ggx = tuple(_random_like(xp, x) for x in float_inputs)
        gradient_check.check_double_backward(func, inputs, gy, ggx, dtype=check_dtype, eps=eps,
                                             **tolerance)


def _check_close(func: Callable[..., Any], inputs: tuple[Any, ...],
                 reference: Callable[..., Any] | None, *,
                 forward_tolerances: dict[numpy.dtype, dict[str, float]],
                 backward: bool = True, double: bool = True, dtype: Any = None,
                 forward_tolerance: dict[str, float] | None = None,
                 grad_tolerance: dict[str, float] | None = None,
                 no_grads: list[bool] | None = None,
                 check_dtype: Any = numpy.float64, eps: float = 1e-3) -> None:
    """Checks ``func`` on ``inputs``: forward against ``reference``, then its gradients.

    Args:
        func: The function under test, taking one Variable or array per input.
        inputs: The input arrays (NumPy or CuPy).
        reference: Computes the expected output from float64 NumPy copies of the inputs;
            None skips the forward check.
        forward_tolerances: The forward tolerance per first-input dtype (the group's table).
        backward: Run the gradient checks (see ``_check_gradients``).
        double: Run check_double_backward too.
        dtype: Expected output dtype (default: the first input's).
        forward_tolerance: Overrides the per-dtype forward tolerance.
        grad_tolerance: Overrides the per-dtype gradient tolerance.
        no_grads: Passed to check_backward.
        check_dtype: The ``dtype`` given to the gradient checks (None: the inputs' own).
        eps: The step of the numerical gradients.
    """
    first = numpy.dtype(inputs[0].dtype)
    expected_dtype = numpy.dtype(dtype) if dtype is not None else first
    y = func(*inputs)
    assert y.dtype == expected_dtype
    assert type(y.array) is type(inputs[0])
    if reference is not None:
        expected = reference(*[_to_numpy(x).astype(numpy.float64) for x in inputs])
        assert y.shape == numpy.shape(expected)
        tolerance = forward_tolerance or forward_tolerances.get(first, {})
        assert_allclose(_to_numpy(y.array).astype(numpy.float64), expected, **tolerance)
    if backward:
        _check_gradients(func, inputs, y, double=double, grad_tolerance=grad_tolerance,
                         no_grads=no_grads, check_dtype=check_dtype, eps=eps)


@pytest.fixture
def check_gradients() -> Callable[..., None]:
    """The gradient checks; see ``_check_gradients``."""
    return _check_gradients


@pytest.fixture
def check_close() -> Callable[..., None]:
    """The forward-within-tolerance check followed by the gradient checks; see ``_check_close``."""
    return _check_close


@pytest.fixture
def uniform(xp: types.ModuleType) -> Callable[..., Any]:
    """``uniform(shape, dtype, low=-1, high=1, gap=0)``: a random array on ``xp``.

    Entries closer than ``gap`` to zero are pushed out to ``gap``, away from kinks.
    """
    def make(shape: tuple[int, ...], dtype: Any, low: float = -1.0, high: float = 1.0,
             gap: float = 0.0) -> Any:
        values = numpy.random.uniform(low, high, shape)
        values = numpy.where(numpy.abs(values) < gap, numpy.copysign(gap, values), values)
        return xp.asarray(values.astype(dtype))
    return make
