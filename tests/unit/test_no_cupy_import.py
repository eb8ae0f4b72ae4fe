"""A NumPy-only process never imports cupy: the statements run in a fresh interpreter, then we
look.

To cover more of the package, append statements to ``STATEMENTS``; they run in order in one
namespace, and the first one after which ``cupy`` is in ``sys.modules`` is reported.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

STATEMENTS: list[str] = [
    "import numpy",
    "import chainer_compat.backend as backend",
    "import chainer_compat.backends.cuda as cuda",
    "import chainer_compat.cuda",
    "from chainer_compat.backends.cuda import *",
    "x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)",
    "assert backend.get_array_module(x) is numpy",
    "assert cuda.get_array_module(x) is numpy",
    "assert cuda.to_cpu(x) is x",
    "assert cuda.to_cpu([x, None, numpy.float32(1)])[0] is x",
    "assert backend.get_device('@numpy') == backend.CpuDevice()",
    "assert backend.get_device(-1) == backend.CpuDevice()",
    "assert backend.get_device(numpy) == backend.CpuDevice()",
    "assert backend.get_device_from_array(x) == backend.CpuDevice()",
    "assert backend.CpuDevice().send({'x': [x]})['x'][0] is x",
    "with backend.using_device('@numpy'): pass",
    "backend.copyto(numpy.empty_like(x), x)",
    "assert backend.get_array_types() == (numpy.ndarray,)",
    "assert backend.is_arrays_compatible([x, None, x])",
    "assert cuda.get_device_from_id(-1) is cuda.DummyDevice",
    "assert cuda.get_device_from_array(x) is cuda.DummyDevice",
    "double = cuda.memoize()(lambda value: value * 2); assert double(2) == 4",
    "assert (cuda.fuse()(lambda a: a * 2)(x) == x * 2).all()",
    "cuda.clear_memo()",
    # The whole package, a graph, backprop, double backprop, hooks and type checks.
    "import chainer_compat as chainer",
    "import chainer_compat.functions as F",
    "v = chainer.Variable(x)",
    "loss = F.sum(F.exp(v) * v ** 2) + F.sum(v @ chainer.Variable(x.T))",
    "loss.backward(enable_double_backprop=True)",
    "chainer.grad([F.sum(v.grad_var)], [v])",
    "assert v.device == backend.CpuDevice() and v.xp is numpy",
    "v.to_cpu(); v.to_device('@numpy')",
    "import chainer_compat.gradient_check, chainer_compat.testing, chainer_compat.initializers",
]

_RUNNER = """
import json, sys
namespace = {}
for statement in json.loads(sys.argv[1]):
    exec(statement, namespace)
    if "cupy" in sys.modules:
        print("cupy imported by: " + statement)
        sys.exit(3)
print("cupy not imported")
"""

# An importable module named cupy; a real one need not be installed for the check to bite.
_STAND_IN = "ndarray = type('ndarray', (), {})\n"


def run_statements(statements: list[str], extra_path: Path | None = None) -> \
        subprocess.CompletedProcess[str]:
    """Runs the statements in a fresh interpreter, with ``extra_path`` first on sys.path."""
    env = dict(os.environ)
    if extra_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(extra_path)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return subprocess.run(
        [sys.executable, "-c", _RUNNER, json.dumps(statements)],
        check=False, capture_output=True, text=True, env=env, timeout=120,
        cwd=Path(__file__).resolve().parents[2])


@pytest.fixture
def stand_in_cupy(tmp_path: Path) -> Path:
    package = tmp_path / "cupy"
    package.mkdir()
    (package / "__init__.py").write_text(_STAND_IN)
    return tmp_path


def test_numpy_only_use_never_imports_cupy_when_it_is_importable(stand_in_cupy: Path) -> None:
    result = run_statements(STATEMENTS, stand_in_cupy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cupy not imported" in result.stdout


def test_numpy_only_use_never_imports_an_installed_cupy() -> None:
    if importlib.util.find_spec("cupy") is None:
        pytest.skip("CuPy is not installed; the stand-in test covers this machine")
    result = run_statements(STATEMENTS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_check_detects_an_import_of_cupy(stand_in_cupy: Path) -> None:
    # Asking whether CUDA is available must import cupy, and the runner must notice it.
    result = run_statements(
        ["import chainer_compat.backends.cuda as cuda", "cuda.available"], stand_in_cupy)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "cupy imported by: cuda.available" in result.stdout
