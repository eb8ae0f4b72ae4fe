"""Backend modules: ``backends.cuda`` is Chainer's CUDA module (CuPy loaded only on demand),
``backends.intel64`` its iDeep module, which reports iDeep unavailable.

Layer 1. Submodules load on first attribute access, so importing the package imports nothing.
"""

from __future__ import annotations

import importlib
from types import ModuleType

_SUBMODULES = frozenset({"cuda", "intel64"})


def __getattr__(name: str) -> ModuleType:
    # Lazy so that backend.py can import backends._cuda without pulling in backends.cuda,
    # which itself imports backend.py.
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
