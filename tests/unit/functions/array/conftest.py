"""Fixtures for the array function tests: the array module, seeding, random inputs, a harness.

``check_function`` runs what every differentiable function gets: the forward value against a
NumPy reference written in the test, ``check_backward`` and ``check_double_backward``. It also
handles functions with several outputs (a tuple of Variables).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy
import pytest

from chainer_compat import gradient_check

# The numerical side of the gradient checks runs in float64, the backward in the input dtype.
GRAD_TOLERANCE = {
    numpy.dtype(numpy.float16): {"atol": 5e-2, "rtol": 1e-1},
    numpy.dtype(numpy.float32): {"atol": 1e-3, "rtol": 1e-3},
    numpy.dtype(numpy.float64): {"atol": 1e-6, "rtol": 1e-5},
}


def _cupy_with_device() -> types.ModuleType:
    cupy = pytest.importorskip("cupy")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # noqa: BLE001 - without a driver CuPy raises its own error
        pytest.skip(f"CuPy cannot count CUDA devices: {error}")
    if count < 1:
        pytest.skip("CuPy sees no CUDA device")
    return cupy


@pytest.fixture(params=["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def xp(request: pytest.FixtureRequest) -> types.ModuleType:
    """The array module: NumPy, and CuPy where a CUDA device exists."""
    if request.param == "cupy":
        return _cupy_with_device()
    return numpy


@pytest.fixture
def cupy() -> types.ModuleType:
    """CuPy, for tests that move arrays between devices; skips without a CUDA device."""
    return _cupy_with_device()


@pytest.fixture(autouse=True)
def _seeded() -> None:
    numpy.random.seed(0)  # check_backward draws its directions from the global generator


def _to_numpy(array: Any) -> Any:
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _as_tuple(value: Any) -> tuple[Any, ...]:
    return value if isinstance(value, tuple) else (value,)


def _check_function(func: Callable[..., Any], inputs: tuple[Any, ...],
                    reference: Callable[..., Any] | None, *, backward: bool = True,
                    double: bool = True, grad_tolerance: dict[str, float] | None = None,
                    no_grads: list[bool] | None = None,
                    check_dtype: Any = numpy.float64) -> None:
    """Checks ``func`` on ``inputs``: exact forward against ``reference``, then gradients.

    ``reference`` gets NumPy copies of the inputs and returns an array or a tuple of arrays
    (None skips the value check). Array functions only move data, so values must match
    exactly and keep the input dtype. ``check_dtype`` is the ``dtype`` given to the gradient
    checks (None keeps the inputs' own dtypes).
    """
    outputs = _as_tuple(func(*inputs))
    if reference is not None:
        expected = _as_tuple(reference(*[_to_numpy(x) for x in inputs]))
        assert len(outputs) == len(expected)
        for y, e in zip(outputs, expected):
            assert type(y.array) is type(inputs[0])
            assert y.dtype == e.dtype
            assert y.shape == e.shape
            numpy.testing.assert_array_equal(_to_numpy(y.array), e)
    if not backward:
        return
    xp = numpy if isinstance(inputs[0], numpy.ndarray) else __import__("cupy")
    float_inputs = [x for x in inputs if x.dtype.kind == "f"]
    tolerance = grad_tolerance or GRAD_TOLERANCE[numpy.dtype(float_inputs[0].dtype)]
    gys = tuple(xp.asarray(numpy.random.uniform(-1, 1, y.shape)).astype(y.dtype)
                for y in outputs)
    gradient_check.check_backward(func, inputs, gys, dtype=check_dtype, no_grads=no_grads,
                                  **tolerance)
    if double:
        ggx = tuple(xp.asarray(numpy.random.uniform(-1, 1, x.shape)).astype(x.dtype)
                    for x in float_inputs)
        gradient_check.check_double_backward(func, inputs, gys, ggx, dtype=check_dtype,
                                             **tolerance)


@pytest.fixture
def check_function() -> Callable[..., None]:
    """The checking harness; see ``_check_function``."""
    return _check_function


@pytest.fixture
def uniform(xp: types.ModuleType) -> Callable[..., Any]:
    """``uniform(shape, dtype, low=-1, high=1)``: a random array on ``xp``."""
    def make(shape: tuple[int, ...], dtype: Any, low: float = -1.0, high: float = 1.0) -> Any:
        return xp.asarray(numpy.random.uniform(low, high, shape).astype(dtype))
    return make
