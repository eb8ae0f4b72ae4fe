"""Fixtures for the activation tests: seeding and ``check_function`` with this group's tolerances.

``check_function`` runs what every differentiable function gets: the forward value against a
NumPy reference written in the test, ``check_backward`` and ``check_double_backward``. The
harness itself and ``uniform`` come from ``tests/unit/functions/conftest.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy
import pytest

FORWARD_TOLERANCE = {
    numpy.dtype(numpy.float16): {"atol": 1e-3, "rtol": 1e-2},
    numpy.dtype(numpy.float32): {"atol": 1e-6, "rtol": 1e-5},
    numpy.dtype(numpy.float64): {"atol": 1e-12, "rtol": 1e-12},
}


@pytest.fixture(autouse=True)
def _seeded() -> None:
    numpy.random.seed(0)  # check_backward draws its directions from the global generator


@pytest.fixture
def check_function(check_close: Callable[..., None]) -> Callable[..., None]:
    """The checking harness: ``check_close`` with this group's forward tolerances."""
    return functools.partial(check_close, forward_tolerances=FORWARD_TOLERANCE)
