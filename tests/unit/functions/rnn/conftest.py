"""Fixtures for the recurrent function tests: a seeded global generator.

The gradient harness (``check_gradients``) and ``uniform`` come from
``tests/unit/functions/conftest.py``.
"""

from __future__ import annotations

import numpy
import pytest


@pytest.fixture(autouse=True)
def _seeded(request: pytest.FixtureRequest) -> None:
    # check_backward draws its directions from the global generator of the array module.
    numpy.random.seed(0)
    if "xp" in request.fixturenames:
        xp = request.getfixturevalue("xp")
        if xp is not numpy:
            xp.random.seed(0)
