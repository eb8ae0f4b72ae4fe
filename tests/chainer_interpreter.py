"""Runs a script under both libraries for the conformance tests that compare whole runs: ours
in this interpreter, Chainer 7.8.1 in the one set up at ``CHAINER_PYTHON`` (benchmarks/README.md
says how), both on OpenBLAS's Prescott kernels so that their products round alike."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
from typing import Any

CHAINER_PYTHON = pathlib.Path("/tmp/chvenv/bin/python")


def last_json_line(python: Any, arguments: list[str]) -> Any:
    """Runs ``python arguments...`` single-threaded and parses the last line it prints."""
    environment = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                       OPENBLAS_CORETYPE="Prescott")
    output = subprocess.run([str(python), *arguments], check=True, capture_output=True,
                            text=True, env=environment).stdout
    return json.loads(output.splitlines()[-1])
