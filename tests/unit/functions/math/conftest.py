"""Fixtures for the math function tests: seeding, random inputs and one checking harness.

``check_function`` runs the three checks every differentiable function gets: forward values
against an independent NumPy reference, ``check_backward`` and ``check_double_backward``.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.testing.array import assert_allclose

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]

# Forward tolerances per input dtype, and gradient tolerances (the numerical side runs in
# float64, the backward side in the input dtype).
FORWARD_TOLERANCE = {
    numpy.dtype(numpy.float16): {"atol": 1e-3, "rtol": 1e-2},
    numpy.dtype(numpy.float32): {"atol": 1e-5, "rtol": 1e-5},
    numpy.dtype(numpy.float64): {"atol": 1e-12, "rtol": 1e-12},
}
GRAD_TOLERANCE = {
    numpy.dtype(numpy.float16): {"atol": 5e-2, "rtol": 1e-1},
    numpy.dtype(numpy.float32): {"atol": 1e-3, "rtol": 1e-3},
    numpy.dtype(numpy.float64): {"atol": 1e-6, "rtol": 1e-5},
}


@pytest.fixture(autouse=True)
def _seeded(request: pytest.FixtureRequest) -> None:
    # check_backward draws its directions from the global generator of the array module.
    numpy.random.seed(0)
    if "xp" in request.fixturenames:
        xp = request.getfixturevalue("xp")
        if xp is not numpy:
            xp.random.seed(0)


def _to_numpy(array: Any) -> Any:
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _check_function(func: Callable[..., Any], inputs: tuple[Any, ...],
                    reference: Callable[..., Any] | None, *, backward: bool = True,
                    double: bool = True, dtype: Any = None,
                    forward_tolerance: dict[str, float] | None = None,
                    grad_tolerance: dict[str, float] | None = None,
                    no_grads: list[bool] | None = None,
                    check_dtype: Any = numpy.float64) -> None:
    """Checks ``func`` on ``inputs``: forward against ``reference``, then its gradients.

    Args:
        func: The function under test, taking one Variable or array per input.
        inputs: The input arrays (NumPy or CuPy).
        reference: Computes the expected output from float64 NumPy copies of the inputs;
            None skips the forward check.
        backward: Run check_backward.
        double: Run check_double_backward too.
        dtype: Expected output dtype (default: the first input's).
        forward_tolerance: Overrides the per-dtype forward tolerance.
        grad_tolerance: Overrides the per-dtype gradient tolerance.
        no_grads: Passed to check_backward.
        check_dtype: The ``dtype`` given to the gradient checks (None: the inputs' own).
    """
    first = numpy.dtype(inputs[0].dtype)
    expected_dtype = numpy.dtype(dtype) if dtype is not None else first
    y = func(*inputs)
    assert y.dtype == expected_dtype
    assert type(y.array) is type(inputs[0])
    if reference is not None:
        expected = reference(*[_to_numpy(x).astype(numpy.float64) for x in inputs])
        assert y.shape == numpy.shape(expected)
        tolerance = forward_tolerance or FORWARD_TOLERANCE.get(first, {})
        assert_allclose(_to_numpy(y.array).astype(numpy.float64), expected, **tolerance)
    if not backward:
        return
    xp = numpy if isinstance(inputs[0], numpy.ndarray) else __import__("cupy")
    tolerance = grad_tolerance or GRAD_TOLERANCE[first]
    gy = xp.asarray(numpy.random.uniform(-1, 1, y.shape)).astype(y.dtype)
    gradient_check.check_backward(func, inputs, gy, dtype=check_dtype, no_grads=no_grads,
                                  **tolerance)
    if double:
        ggx = tuple(xp.asarray(numpy.random.uniform(-1, 1, x.shape)).astype(x.dtype)
                    for x in inputs if x.dtype.kind == "f")
        gradient_check.check_double_backward(func, inputs, gy, ggx, dtype=check_dtype,
                                             **tolerance)


@pytest.fixture
def check_function() -> Callable[..., None]:
    """The checking harness; see ``_check_function``."""
    return _check_function


@pytest.fixture
def uniform(xp: types.ModuleType) -> Callable[..., Any]:
    """Returns ``uniform(shape, dtype, low=-1, high=1)``: a random array on ``xp``."""
    def make(shape: tuple[int, ...], dtype: Any, low: float = -1.0, high: float = 1.0) -> Any:
        return xp.asarray(numpy.random.uniform(low, high, shape).astype(dtype))
    return make
