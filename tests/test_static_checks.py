"""The code passes the linter and the type checker as pyproject.toml configures them.

They run with the tests so that `.ci/run` catches what they catch; the `test` extra installs
both (pinned to a minor version, so a new release's rules do not fail a clean checkout).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(module: str, *args: str) -> None:
    pytest.importorskip(module, reason=f"{module} is in the test extra: pip install -e '.[test]'")
    result = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{module} {' '.join(args)}:\n{result.stdout}{result.stderr}"


def test_ruff_reports_nothing():
    _run("ruff", "check", "--no-cache", ".")


def test_mypy_reports_nothing_on_the_package_the_benchmarks_and_the_tools():
    scripts = sorted(str(path.relative_to(ROOT))
                     for pattern in ("benchmarks/*.py", "tools/*/*.py")
                     for path in ROOT.glob(pattern))
    _run("mypy", "--cache-dir", "/dev/null", "chainer_compat", *scripts)
