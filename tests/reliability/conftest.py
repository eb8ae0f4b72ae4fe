"""Puts ``tests/`` on sys.path so these tests share ``strategies`` and the ``reliability`` helpers.

The suite imports test files with ``--import-mode=importlib``, which adds no directory to
sys.path; the shared modules are imported as ``strategies`` and ``reliability.<name>``.
"""

from __future__ import annotations

import pathlib
import sys

_TESTS = str(pathlib.Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
