"""Fixtures for the math function tests: seeding and ``check_function`` with its tolerances.

``check_function`` runs the three checks every differentiable function gets: forward values
against an independent NumPy reference, ``check_backward`` and ``check_double_backward``. The
harness itself and ``uniform`` come from ``tests/unit/functions/conftest.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy
import pytest

# Forward tolerances per input dtype; the gradient tolerances are the shared ones.
FORWARD_TOLERANCE = {
    numpy.dtype(numpy.float16): {"atol": 1e-3, "rtol": 1e-2},
    numpy.dtype(numpy.float32): {"atol": 1e-5, "rtol": 1e-5},
    numpy.dtype(numpy.float64): {"atol": 1e-12, "rtol": 1e-12},
}


@pytest.fixture(autouse=True)
def _seeded(request: pytest.FixtureRequest) -> None:
    # check_backward draws its directions from the global generator of the array module.
    numpy.random.seed(0)
    if "xp" in request.fixturenames:
        xp = request.getfixturevalue("xp")
        if xp is not numpy:
            xp.random.seed(0)


@pytest.fixture
def check_function(check_close: Callable[..., None]) -> Callable[..., None]:
    """The checking harness: ``check_close`` with this group's forward tolerances."""
    return functools.partial(check_close, forward_tolerances=FORWARD_TOLERANCE)
