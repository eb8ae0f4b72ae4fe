"""``install_as_chainer()``: ``import chainer`` (and every ``chainer.*`` module path we implement)
gives chainer_compat's own module objects; plus a ``chainerx`` stand-in that is never available.

Top layer: imports ``_surface`` at module level, the package's modules when installing.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NoReturn

from chainer_compat import _surface

__all__ = ["install_as_chainer"]

_ALIAS = "chainer"
_PACKAGE = "chainer_compat"
_STUB_MARK = "__chainer_compat_stub__"


class _AliasLoader(importlib.abc.Loader):
    """Hands out the already imported ``chainer_compat`` module instead of making a new one."""

    def __init__(self, target: str) -> None:
        self._target = target
        self._own_spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self._target)
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system has just set module.__spec__ to the alias spec; the module keeps its
        # own, so that importlib.reload and tools reading __spec__.name see chainer_compat.
        alias = module.__spec__.name if module.__spec__ is not None else None
        module.__spec__ = self._own_spec
        if alias is not None:
            _alias_loaded_submodules(self._target, alias)


def _alias_loaded_submodules(target: str, alias: str) -> None:
    """Registers the already imported submodules of ``target`` under ``alias``'s names too.

    Importing a submodule the import system has not seen under its alias name sets it as an
    attribute of the parent package, and the parent is chainer_compat's own module: that would
    replace a function that shares the submodule's name (``chainer.dataset.tabular.from_data``
    is both). A name already in ``sys.modules`` is returned as it is, as in Chainer.
    """
    prefix = target + "."
    for name, module in list(sys.modules.items()):
        if name.startswith(prefix):
            sys.modules.setdefault(alias + name[len(target):], module)


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Maps ``chainer.x.y`` to ``chainer_compat.x.y``, so both names share one module object.

    It sits first on ``sys.meta_path``: the package's ``__path__`` would otherwise let the path
    finder load a second copy of ``chainer_compat/x.py`` under the name ``chainer.x``.
    """

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(_ALIAS + "."):
            return None
        target_name = _surface.compat_path(fullname)
        try:
            target_spec = importlib.util.find_spec(target_name)
        except ModuleNotFoundError:
            target_spec = None
        if target_spec is None:
            _raise_not_implemented(fullname)
        return importlib.util.spec_from_loader(
            fullname, _AliasLoader(target_name),
            is_package=target_spec.submodule_search_locations is not None)


def _raise_not_implemented(fullname: str) -> NoReturn:
    reason = _surface.divergence_reason(fullname)
    if reason is not None:
        detail = f"it is left out on purpose: {reason}"
    elif _surface.is_chainer_module(fullname):
        detail = ("chainer_compat does not implement that Chainer module yet; "
                  "`python -m chainer_compat check PATH` lists what a code base needs")
    else:
        detail = f"Chainer {_surface.CHAINER_VERSION} has no public module of that name either"
    raise ModuleNotFoundError(f"No module named {fullname!r}: {detail}", name=fullname)


def _is_ours(module: Any) -> bool:
    name = getattr(module, "__name__", "")
    return (name == _PACKAGE or name.startswith(_PACKAGE + ".")
            or getattr(module, _STUB_MARK, False))


def _refuse_real_chainer() -> None:
    for name, module in list(sys.modules.items()):
        if (name == _ALIAS or name.startswith(_ALIAS + ".")) and module is not None \
                and not _is_ours(module):
            origin = getattr(module, "__file__", None) or repr(module)
            raise ImportError(
                f"install_as_chainer() must run before anything imports Chainer, got the real "
                f"Chainer already imported as {name!r} from {origin}: call "
                f"chainer_compat.install_as_chainer() before the first `import chainer`, or run "
                f"the program with `python -m chainer_compat SCRIPT`", name=name)


def _chainerx_getattr(name: str) -> NoReturn:
    raise AttributeError(
        f"module 'chainerx' has no attribute {name!r}: ChainerX is not available under "
        f"chainer_compat (chainerx.is_available() is False); take the NumPy/CuPy code path")


def _make_chainerx_stub() -> ModuleType:
    module = ModuleType("chainerx", "Stand-in for ChainerX, which chainer_compat does not "
                                    "support: is_available() returns False.")

    class ndarray:  # ChainerX's name, lower case
        """ChainerX's array type; no array is ever an instance of it under chainer_compat."""

        def __new__(cls, *args: Any, **kwargs: Any) -> NoReturn:
            raise RuntimeError("chainerx.ndarray must not be created: ChainerX is not available "
                               "under chainer_compat; use a NumPy or CuPy array")

    def is_available() -> bool:
        """Always False: chainer_compat runs on NumPy and CuPy only."""
        return False

    ndarray.__module__ = is_available.__module__ = "chainerx"
    ndarray.__qualname__ = "ndarray"
    module.ndarray = ndarray  # type: ignore[attr-defined]
    module.is_available = is_available  # type: ignore[attr-defined]
    module.__getattr__ = _chainerx_getattr  # type: ignore[method-assign]
    # A spec lets importlib.util.find_spec('chainerx') answer instead of raising ValueError.
    module.__spec__ = importlib.machinery.ModuleSpec("chainerx", None)
    setattr(module, _STUB_MARK, True)
    return module


def _install_chainerx_stub() -> None:
    if "chainerx" in sys.modules:
        return
    try:
        real = importlib.util.find_spec("chainerx")
    except (ImportError, ValueError):
        real = None
    if real is None:
        sys.modules["chainerx"] = _make_chainerx_stub()


def install_as_chainer() -> None:
    """Makes ``import chainer`` give chainer_compat, for code written against Chainer.

    After the call, ``import chainer``, ``import chainer.functions as F``,
    ``from chainer.backends import cuda`` and every other ``chainer.*`` module path that
    chainer_compat implements resolve to chainer_compat's own module objects, so ``isinstance``
    checks and monkeypatching agree under both names. The submodules that ``import chainer``
    makes attributes in Chainer (``chainer.cuda``, ``chainer.functions``, ...) are imported too,
    where chainer_compat has them. When no real ``chainerx`` can be imported, a stand-in is
    installed whose ``is_available()`` returns False and whose ``ndarray`` no array is an
    instance of. Calling it again does nothing.

    Raises:
        ImportError: If the real Chainer is already imported (mixing the two would give two
            ``Variable`` classes); call this before anything imports ``chainer``.
    """
    _refuse_real_chainer()
    if not any(isinstance(finder, _AliasFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
    sys.modules[_ALIAS] = sys.modules[_PACKAGE]
    _alias_loaded_submodules(_PACKAGE, _ALIAS)
    _install_chainerx_stub()
    for name in _surface.TOP_LEVEL_SUBMODULES:
        if importlib.util.find_spec(f"{_PACKAGE}.{name}") is not None:
            importlib.import_module(f"{_ALIAS}.{name}")
