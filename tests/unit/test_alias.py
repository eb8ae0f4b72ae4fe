"""install_as_chainer(): every implemented Chainer module path resolves to chainer_compat's own
module object, the real Chainer is refused, and a never-available chainerx stands in."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import subprocess
import sys
import types

import numpy
import pytest

import chainer_compat
from chainer_compat import _alias, _surface

# The paths the issue names explicitly, checked on top of everything the surface lists.
NAMED_PATHS = [
    "chainer", "chainer.functions", "chainer.backends.cuda", "chainer.cuda",
    "chainer.utils.type_check", "chainer.testing", "chainer.gradient_check",
    "chainer.function_hooks", "chainer.computational_graph",
]


def _implemented_modules() -> list[str]:
    """The Chainer module paths chainer_compat has a module for (the supported list)."""
    paths = set()
    for path in _surface.CHAINER_MODULES | set(NAMED_PATHS):
        try:
            found = importlib.util.find_spec(_surface.compat_path(path)) is not None
        except ModuleNotFoundError:  # its parent package is missing
            found = False
        if found:
            paths.add(path)
    return sorted(paths)


SUPPORTED_MODULES = _implemented_modules()


def _alias_state() -> dict[str, object]:
    return {name: module for name, module in sys.modules.items()
            if name in ("chainer", "chainerx") or name.startswith("chainer.")}


def _clear_alias() -> None:
    for name in _alias_state():
        del sys.modules[name]
    sys.meta_path[:] = [finder for finder in sys.meta_path
                        if not isinstance(finder, _alias._AliasFinder)]


@pytest.fixture
def clean_alias():
    """Runs a test with no alias installed and puts the interpreter's state back afterwards."""
    saved_modules = _alias_state()
    saved_meta_path = list(sys.meta_path)
    saved_specs = {name: module.__spec__ for name, module in sys.modules.items()
                   if name.startswith("chainer_compat")}
    _clear_alias()
    yield
    _clear_alias()
    sys.modules.update(saved_modules)
    sys.meta_path[:] = saved_meta_path
    for name, spec in saved_specs.items():
        if name in sys.modules:
            sys.modules[name].__spec__ = spec


@pytest.fixture
def no_real_chainerx(monkeypatch):
    """Makes `chainerx` look uninstalled to the alias, whatever this machine has."""
    real_find_spec = importlib.util.find_spec

    def find_spec(name, package=None):
        return None if name == "chainerx" else real_find_spec(name, package)

    monkeypatch.setattr(_alias.importlib.util, "find_spec", find_spec)


@pytest.mark.parametrize("path", SUPPORTED_MODULES)
def test_every_implemented_module_path_is_chainer_compats_own_object(clean_alias, path):
    chainer_compat.install_as_chainer()
    aliased = importlib.import_module(path)
    own = importlib.import_module(_surface.compat_path(path))
    assert aliased is own
    assert sys.modules[path] is own
    assert aliased.__name__.startswith("chainer_compat")


def test_supported_list_covers_the_paths_the_issue_names():
    assert set(NAMED_PATHS) <= set(SUPPORTED_MODULES)
    assert "chainer.functions.math.basic_math" in SUPPORTED_MODULES


def test_from_imports_give_chainer_compats_objects(clean_alias):
    chainer_compat.install_as_chainer()
    namespace: dict[str, object] = {}
    exec(  # noqa: S102 - the import lines under test
        "import chainer\n"
        "import chainer.functions as F\n"
        "from chainer import Variable, Function, FunctionNode, cuda\n"
        "from chainer.backends import cuda as backends_cuda\n"
        "from chainer.utils import type_check\n", namespace)
    assert namespace["chainer"] is chainer_compat
    assert namespace["F"] is chainer_compat.functions
    assert namespace["Variable"] is chainer_compat.Variable
    assert namespace["Function"] is chainer_compat.Function
    assert namespace["FunctionNode"] is chainer_compat.FunctionNode
    assert namespace["cuda"] is namespace["backends_cuda"] is chainer_compat.backends.cuda
    assert namespace["type_check"] is chainer_compat.utils.type_check


def test_isinstance_and_monkeypatching_agree_under_both_names(clean_alias, monkeypatch):
    chainer_compat.install_as_chainer()
    import chainer
    import chainer.functions as F

    variable = chainer.Variable(numpy.ones(3, numpy.float32))
    assert isinstance(variable, chainer_compat.Variable)
    assert isinstance(chainer_compat.Variable(numpy.ones(1)), chainer.Variable)

    def patched_sum(x, axis=None, keepdims=False):
        return "patched"

    monkeypatch.setattr(F, "sum", patched_sum)
    assert chainer_compat.functions.sum is patched_sum


def test_submodules_chainer_imports_are_attributes_after_install(clean_alias):
    chainer_compat.install_as_chainer()
    import chainer

    for name in _surface.TOP_LEVEL_SUBMODULES:
        if importlib.util.find_spec(f"chainer_compat.{name}") is not None:
            assert getattr(chainer, name) is importlib.import_module(f"chainer_compat.{name}")
    assert chainer.cuda.to_gpu is chainer_compat.backends.cuda.to_gpu


def test_modules_keep_their_own_spec(clean_alias):
    chainer_compat.install_as_chainer()
    from chainer.functions.math import basic_math

    assert basic_math.__spec__.name == "chainer_compat.functions.math.basic_math"
    assert importlib.reload(basic_math) is basic_math


def test_install_is_idempotent(clean_alias):
    chainer_compat.install_as_chainer()
    first = dict(_alias_state())
    chainer_compat.install_as_chainer()
    finders = [finder for finder in sys.meta_path if isinstance(finder, _alias._AliasFinder)]
    assert len(finders) == 1
    assert sys.meta_path[0] is finders[0]
    assert all(sys.modules[name] is module for name, module in first.items())


def test_refuses_when_the_real_chainer_is_already_imported(clean_alias):
    fake = types.ModuleType("chainer")
    fake.__file__ = "/site-packages/chainer/__init__.py"
    sys.modules["chainer"] = fake
    with pytest.raises(ImportError, match="real Chainer") as info:
        chainer_compat.install_as_chainer()
    assert "/site-packages/chainer/__init__.py" in str(info.value)
    assert "install_as_chainer() must run before" in str(info.value)
    assert sys.modules["chainer"] is fake
    assert not any(isinstance(finder, _alias._AliasFinder) for finder in sys.meta_path)


def test_refuses_when_only_a_real_chainer_submodule_is_loaded(clean_alias):
    sys.modules["chainer.functions"] = types.ModuleType("chainer.functions")
    with pytest.raises(ImportError, match="'chainer.functions'"):
        chainer_compat.install_as_chainer()


def test_chainerx_stub_is_never_available(clean_alias, no_real_chainerx):
    chainer_compat.install_as_chainer()
    import chainerx

    assert chainerx.is_available() is False
    assert not isinstance(numpy.zeros(3), chainerx.ndarray)
    assert not isinstance(chainer_compat.Variable(numpy.zeros(3)).array, chainerx.ndarray)
    with pytest.raises(RuntimeError, match="ChainerX is not available"):
        chainerx.ndarray((2, 3))
    with pytest.raises(AttributeError, match="ChainerX is not available"):
        chainerx.zeros  # noqa: B018
    assert not hasattr(chainerx, "get_default_device")
    # importlib.util.find_spec('chainerx') answers with this instead of raising ValueError.
    assert chainerx.__spec__.name == "chainerx"


def test_a_real_chainerx_is_left_alone(clean_alias, monkeypatch):
    real_find_spec = importlib.util.find_spec

    def find_spec(name, package=None):
        if name == "chainerx":
            return importlib.machinery.ModuleSpec("chainerx", None)
        return real_find_spec(name, package)

    monkeypatch.setattr(_alias.importlib.util, "find_spec", find_spec)
    chainer_compat.install_as_chainer()
    assert "chainerx" not in sys.modules


def test_an_imported_chainerx_is_kept(clean_alias):
    existing = types.ModuleType("chainerx")
    sys.modules["chainerx"] = existing
    chainer_compat.install_as_chainer()
    assert sys.modules["chainerx"] is existing


def test_out_of_scope_module_says_why(clean_alias):
    chainer_compat.install_as_chainer()
    with pytest.raises(ModuleNotFoundError, match="Theano is no longer maintained") as info:
        importlib.import_module("chainer.functions.theano")
    assert info.value.name == "chainer.functions.theano"


def test_the_ideep_module_imports_and_reports_ideep_unavailable(clean_alias):
    # As Chainer's own module does on a machine without iDeep, so legacy checks take the CPU.
    chainer_compat.install_as_chainer()
    intel64 = importlib.import_module("chainer.backends.intel64")
    assert intel64.is_ideep_available() is False
    assert intel64.should_use_ideep(">=auto") is False
    with pytest.raises(RuntimeError, match="^iDeep is not available"):
        intel64.check_ideep_available()


def test_unknown_module_is_not_found(clean_alias):
    chainer_compat.install_as_chainer()
    with pytest.raises(ModuleNotFoundError, match="no public module of that name") as info:
        importlib.import_module("chainer.no_such_module")
    assert info.value.name == "chainer.no_such_module"


def test_chainer_module_not_implemented_yet_points_to_the_report(clean_alias, monkeypatch):
    # Every top-level Chainer module exists now, so the surface gains one that does not.
    missing = "chainer.module_not_written_yet"
    monkeypatch.setattr(_surface, "CHAINER_MODULES", _surface.CHAINER_MODULES | {missing})
    assert importlib.util.find_spec(_surface.compat_path(missing)) is None
    chainer_compat.install_as_chainer()
    with pytest.raises(ModuleNotFoundError, match="python -m chainer_compat check"):
        importlib.import_module(missing)


def test_import_chainer_compat_as_chainer_supports_the_legacy_import_lines():
    namespace: dict[str, object] = {}
    exec(  # noqa: S102 - the import lines under test
        "import chainer_compat as chainer\n"
        "import chainer_compat.functions as F\n"
        "from chainer_compat import Variable, Function, FunctionNode, cuda\n"
        "from chainer_compat.backends import cuda as backends_cuda\n"
        "from chainer_compat.utils import type_check\n"
        "from chainer_compat import testing, gradient_check, function_hooks\n"
        "from chainer_compat import computational_graph\n", namespace)
    assert namespace["F"] is chainer_compat.functions
    assert namespace["cuda"] is namespace["backends_cuda"]
    assert namespace["Variable"] is chainer_compat.variable.Variable
    assert namespace["testing"].assert_allclose is not None


def test_import_chainer_compat_as_chainer_has_chainers_top_level_submodules():
    """``chainer.cuda.to_gpu(x)`` after a plain ``import chainer``: Chainer's package imports
    these submodules itself. A fresh interpreter, so no other test has imported them first."""
    expected = [name for name in _surface.TOP_LEVEL_SUBMODULES
                if importlib.util.find_spec(f"chainer_compat.{name}") is not None]
    script = ("import chainer_compat as chainer\n"
              f"print(' '.join(n for n in {expected!r} if not hasattr(chainer, n)))\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=False, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [], (
        f"`import chainer_compat` must make {run.stdout.split()} attributes, as "
        f"`import chainer` does in Chainer")


def test_importing_a_submodule_by_its_alias_keeps_a_same_named_function():
    """``chainer.dataset.tabular.from_data`` is both a module and the function the package
    exports; importing the module under the alias must not replace the function (the import
    system sets a newly seen submodule as an attribute of its parent). A fresh interpreter, so
    no other test has imported the alias names first."""
    script = ("import chainer_compat\n"
              "chainer_compat.install_as_chainer()\n"
              "import chainer.dataset.tabular.from_data\n"
              "import chainer.links.connection.linear\n"
              "import chainer\n"
              "print(callable(chainer.dataset.tabular.from_data),\n"
              "      isinstance(chainer.links.Linear, type))\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=False, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True"]
