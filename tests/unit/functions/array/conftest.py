"""Fixtures for the array function tests: seeding and an exact-value ``check_function``.

``check_function`` runs what every differentiable function gets: the forward value against a
NumPy reference written in the test, ``check_backward`` and ``check_double_backward``. It also
handles functions with several outputs (a tuple of Variables). The gradient checks and
``uniform`` come from ``tests/unit/functions/conftest.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy
import pytest


@pytest.fixture(autouse=True)
def _seeded() -> None:
    numpy.random.seed(0)  # check_backward draws its directions from the global generator


def _to_numpy(array: Any) -> Any:
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _as_tuple(value: Any) -> tuple[Any, ...]:
    return value if isinstance(value, tuple) else (value,)


def _check_function(check_gradients: Callable[..., None], func: Callable[..., Any],
                    inputs: tuple[Any, ...], reference: Callable[..., Any] | None, *,
                    backward: bool = True, double: bool = True,
                    grad_tolerance: dict[str, float] | None = None,
                    no_grads: list[bool] | None = None,
                    check_dtype: Any = numpy.float64, eps: float = 1e-3) -> None:
    """Checks ``func`` on ``inputs``: exact forward against ``reference``, then gradients.

    ``reference`` gets NumPy copies of the inputs and returns an array or a tuple of arrays
    (None skips the value check). Array functions only move data, so values must match
    exactly and keep the input dtype. ``check_dtype`` is the ``dtype`` given to the gradient
    checks (None keeps the inputs' own dtypes); ``eps`` their numerical step.
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
    if backward:
        check_gradients(func, inputs, outputs, double=double, grad_tolerance=grad_tolerance,
                        no_grads=no_grads, check_dtype=check_dtype, eps=eps)


@pytest.fixture
def check_function(check_gradients: Callable[..., None]) -> Callable[..., None]:
    """The checking harness; see ``_check_function``."""
    return functools.partial(_check_function, check_gradients)
