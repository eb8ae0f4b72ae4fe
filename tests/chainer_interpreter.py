"""Runs a script under both libraries for the conformance tests that compare whole runs: ours
in this interpreter, Chainer 7.8.1 in the one set up at ``CHAINER_PYTHON`` (benchmarks/README.md
says how), both on OpenBLAS's Prescott kernels so that their products round alike."""

from __future__ import annotations

import functools
import json
import os
import pathlib
import subprocess
import sys
from typing import Any

import pytest

CHAINER_PYTHON = pathlib.Path("/tmp/chvenv/bin/python")


def _environment() -> dict[str, str]:
    return dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                OPENBLAS_CORETYPE="Prescott")


# A float32 product that OpenBLAS 0.3.34 (NumPy 2.5's) kills the process on with the Prescott
# kernels; 0.3.31 (NumPy 2.4's) and 0.3.23 (NumPy 1.26's) compute it.
_PRESCOTT_PROBE = ("import numpy; a = numpy.ones((8, 1000), numpy.float32); "
                   "b = numpy.ones((1000, 16), numpy.float32); assert (a @ b == 1000).all()")


@functools.cache
def _prescott_failure(python: str) -> str | None:
    done = subprocess.run([python, "-c", _PRESCOTT_PROBE], capture_output=True, text=True,
                          env=_environment(), check=False)
    if done.returncode == 0:
        return None
    return (f"{python}'s NumPy cannot run OpenBLAS's Prescott kernels, on which both "
            f"libraries are compared (exit status {done.returncode} on a (8, 1000) x "
            f"(1000, 16) float32 product with OPENBLAS_CORETYPE=Prescott)")


def require_both_interpreters() -> None:
    """Skips unless Chainer's interpreter is set up and both run the Prescott kernels."""
    if not CHAINER_PYTHON.exists():
        pytest.skip(f"Chainer 7.8.1 interpreter not found at {CHAINER_PYTHON}")
    for python in (sys.executable, str(CHAINER_PYTHON)):
        failure = _prescott_failure(python)
        if failure is not None:
            pytest.skip(failure)


def last_json_line(python: Any, arguments: list[str]) -> Any:
    """Runs ``python arguments...`` single-threaded and parses the last line it prints."""
    environment = _environment()
    output = subprocess.run([str(python), *arguments], check=True, capture_output=True,
                            text=True, env=environment).stdout
    return json.loads(output.splitlines()[-1])
