"""Our side of the small top-level helpers: the mixed16 environment setting, the package's own
version next to Chainer's, and a runtime report that never imports CuPy."""

from __future__ import annotations

import importlib.metadata
import io
import subprocess
import sys

import chainer_compat


def _run(script: str, **env: str) -> str:
    import os
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=False, timeout=60, env={**os.environ, **env})
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_chainer_dtype_environment_variable_accepts_mixed16():
    out = _run("import chainer_compat as c; print(c.config.dtype is c.mixed16, c.get_dtype())",
               CHAINER_DTYPE="mixed16")
    assert out.split() == ["True", "float16"]


def test_compat_version_is_the_installed_distributions():
    assert chainer_compat.compat_version == importlib.metadata.version("chainer_compat")
    assert chainer_compat.__version__ != chainer_compat.compat_version


def test_runtime_info_names_both_versions():
    out = io.StringIO()
    chainer_compat.print_runtime_info(out)
    assert (f"Chainer: {chainer_compat.__version__} "
            f"(chainer_compat {chainer_compat.compat_version})") in out.getvalue()


def test_runtime_info_does_not_import_cupy():
    out = _run("import io, sys, chainer_compat as c; c.print_runtime_info(io.StringIO()); "
               "print('cupy' in sys.modules)")
    assert out.strip() == "False"


def test_the_package_imports_without_pytest_or_the_optional_libraries():
    # The README's first command installs NumPy only: nothing imported by `import chainer_compat`
    # (testing helpers included) may need pytest, SciPy, h5py, matplotlib or Pillow.
    blocked = ["pytest", "scipy", "h5py", "matplotlib", "PIL", "hypothesis"]
    out = _run("import sys\n"
               f"for name in {blocked!r}: sys.modules[name] = None  # import raises ImportError\n"
               "import chainer_compat, chainer_compat.links, chainer_compat.training\n"
               "print(chainer_compat.testing.assert_allclose.__name__)")
    assert out.strip() == "assert_allclose"
