"""Fixtures for the activation tests: the array module, seeding, random inputs and a harness.

``check_function`` runs what every differentiable function gets: the forward value against a
NumPy reference written in the test, ``check_backward`` and ``check_double_backward``.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.testing.array import assert_allclose

FORWARD_TOLERANCE = {
    numpy.dtype(numpy.float16): {"atol": 1e-3, "rtol": 1e-2},
    numpy.dtype(numpy.float32): {"atol": 1e-6, "rtol": 1e-5},
    numpy.dtype(numpy.float64): {"atol": 1e-12, "rtol": 1e-12},
}
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


@pytest.fixture(autouse=True)
def _seeded() -> None:
    numpy.random.seed(0)  # check_backward draws its directions from the global generator


def _to_numpy(array: Any) -> Any:
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _check_function(func: Callable[..., Any], inputs: tuple[Any, ...],
                    reference: Callable[..., Any] | None, *, double: bool = True,
                    grad_tolerance: dict[str, float] | None = None,
                    no_grads: list[bool] | None = None) -> None:
    """Checks ``func`` on ``inputs``: forward against ``reference``, then its gradients.

    ``reference`` gets float64 NumPy copies of the inputs (None skips the value check).
    """
    dtype = numpy.dtype(inputs[0].dtype)
    y = func(*inputs)
    assert y.dtype == dtype
    assert type(y.array) is type(inputs[0])
    if reference is not None:
        expected = reference(*[_to_numpy(x).astype(numpy.float64) for x in inputs])
        assert y.shape == numpy.shape(expected)
        assert_allclose(_to_numpy(y.array).astype(numpy.float64), expected,
                        **FORWARD_TOLERANCE[dtype])
    xp = numpy if isinstance(inputs[0], numpy.ndarray) else __import__("cupy")
    tolerance = grad_tolerance or GRAD_TOLERANCE[dtype]
    gy = xp.asarray(numpy.random.uniform(-1, 1, y.shape)).astype(y.dtype)
    gradient_check.check_backward(func, inputs, gy, dtype=numpy.float64, no_grads=no_grads,
                                  **tolerance)
    if double:
        ggx = tuple(xp.asarray(numpy.random.uniform(-1, 1, x.shape)).astype(x.dtype)
                    for x in inputs if x.dtype.kind == "f")
        gradient_check.check_double_backward(func, inputs, gy, ggx, dtype=numpy.float64,
                                             **tolerance)


@pytest.fixture
def check_function() -> Callable[..., None]:
    """The checking harness; see ``_check_function``."""
    return _check_function


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
