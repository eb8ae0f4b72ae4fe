"""NumPy 1 names that NumPy 2 removed, put back on request, so that legacy code written against
NumPy 1 (``numpy.float``, ``numpy.asscalar``, ``numpy.NaN``, ...) runs unmodified:
:func:`install_numpy1_aliases`, and ``python -m chainer_compat --numpy1-aliases SCRIPT``.

Layer 0: imports numpy only.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable
from typing import Any

import numpy

__all__ = ["NumPy1Aliases", "install_numpy1_aliases", "removed_numpy_name"]


# NOTE [NumPy 1 aliases]
# Chainer-era code leans on names NumPy removed: the builtin aliases (numpy.float is float,
# removed in 1.24), asscalar (1.23), and the aliases and helpers NEP 52 dropped in 2.0. Each
# name below is put back as exactly what NumPy 1 had, defined through NumPy 2's own
# replacement, and only where NumPy has no attribute of that name (numpy.bool and numpy.long
# exist again in NumPy 2 with new meanings, and are left alone). Nothing changes unless the
# user asks: it is a process-wide edit of the numpy module.
def _asscalar(a: Any) -> Any:
    """``a.item()``: NumPy 1's ``asscalar``."""
    return a.item()


def _msort(a: Any) -> Any:
    """``numpy.sort(a, axis=0)``: NumPy 1's ``msort``."""
    return numpy.sort(a, axis=0)


def _asfarray(a: Any, dtype: Any = numpy.float64) -> Any:
    """``a`` as an array of a float dtype (``dtype`` if it is inexact, else float64)."""
    if not numpy.issubdtype(dtype, numpy.inexact):
        dtype = numpy.float64
    return numpy.asarray(a, dtype=dtype)


def _in1d(ar1: Any, ar2: Any, assume_unique: bool = False, invert: bool = False,
          **kwargs: Any) -> Any:
    """``numpy.isin(ar1, ar2, ...).ravel()``: NumPy 1's ``in1d``."""
    return numpy.isin(ar1, ar2, assume_unique=assume_unique, invert=invert, **kwargs).ravel()


def _rank(a: Any) -> int:
    """``numpy.ndim(a)``: NumPy 1's ``rank``."""
    return int(numpy.ndim(a))


class _Cast(dict):  # type: ignore[type-arg]
    """NumPy 1's ``numpy.cast``: ``cast[dtype](a)`` is ``numpy.asarray(a, dtype)``."""

    def __missing__(self, key: Any) -> Callable[[Any], Any]:
        dtype = numpy.dtype(key)
        converter = self[key] = lambda a: numpy.asarray(a, dtype=dtype)
        return converter


_SCTYPES = {
    "int": [numpy.int8, numpy.int16, numpy.int32, numpy.int64],
    "uint": [numpy.uint8, numpy.uint16, numpy.uint32, numpy.uint64],
    "float": [numpy.float16, numpy.float32, numpy.float64, numpy.longdouble],
    "complex": [numpy.complex64, numpy.complex128, numpy.clongdouble],
    "others": [builtins.bool, builtins.object, builtins.bytes, builtins.str, numpy.void],
}

# name -> (what NumPy 1 had, what to write instead)
_ALIASES: dict[str, tuple[Any, str]] = {
    # Builtin aliases, removed in NumPy 1.24.
    "int": (builtins.int, "int"),
    "float": (builtins.float, "float"),
    "complex": (builtins.complex, "complex"),
    "object": (builtins.object, "object"),
    "str": (builtins.str, "str"),
    "unicode": (builtins.str, "str"),
    # Removed in NumPy 1.23.
    "asscalar": (_asscalar, "a.item()"),
    # Type aliases NEP 52 removed in NumPy 2.0.
    "float_": (numpy.float64, "numpy.float64"),
    "complex_": (numpy.complex128, "numpy.complex128"),
    "cfloat": (numpy.complex128, "numpy.complex128"),
    "singlecomplex": (numpy.complex64, "numpy.complex64"),
    "longfloat": (numpy.longdouble, "numpy.longdouble"),
    "clongfloat": (numpy.clongdouble, "numpy.clongdouble"),
    "string_": (numpy.bytes_, "numpy.bytes_"),
    "unicode_": (numpy.str_, "numpy.str_"),
    "int0": (numpy.intp, "numpy.intp"),
    "uint0": (numpy.uintp, "numpy.uintp"),
    "bool8": (numpy.bool_, "numpy.bool_"),
    "object0": (numpy.object_, "numpy.object_"),
    "str0": (numpy.str_, "numpy.str_"),
    "bytes0": (numpy.bytes_, "numpy.bytes_"),
    "void0": (numpy.void, "numpy.void"),
    "sctypes": (_SCTYPES, "the dtypes themselves"),
    # Constants NEP 52 removed.
    "Inf": (numpy.inf, "numpy.inf"),
    "Infinity": (numpy.inf, "numpy.inf"),
    "infty": (numpy.inf, "numpy.inf"),
    "PINF": (numpy.inf, "numpy.inf"),
    "NINF": (-numpy.inf, "-numpy.inf"),
    "NaN": (numpy.nan, "numpy.nan"),
    "PZERO": (0.0, "0.0"),
    "NZERO": (-0.0, "-0.0"),
    # Functions NEP 52 removed, or renamed since.
    "product": (numpy.prod, "numpy.prod"),
    "cumproduct": (numpy.cumprod, "numpy.cumprod"),
    "sometrue": (numpy.any, "numpy.any"),
    "alltrue": (numpy.all, "numpy.all"),
    "round_": (numpy.round, "numpy.round"),
    "msort": (_msort, "numpy.sort(a, axis=0)"),
    "asfarray": (_asfarray, "numpy.asarray(a, dtype=float)"),
    "mat": (numpy.asmatrix, "numpy.asmatrix"),
    "rank": (_rank, "numpy.ndim"),
    "in1d": (_in1d, "numpy.isin(...).ravel()"),
    "trapz": (getattr(numpy, "trapezoid", None), "numpy.trapezoid"),
    "cast": (_Cast(), "numpy.asarray(a, dtype=dtype)"),
}

_REMOVED_NAME = re.compile(r"module 'numpy' has no attribute '(\w+)'|`np\.(\w+)` was removed")


def removed_numpy_name(error: BaseException) -> str | None:
    """The NumPy 1 name an ``AttributeError`` from NumPy 2 is about, when it is one that
    :func:`install_numpy1_aliases` puts back; else None."""
    if not isinstance(error, AttributeError):
        return None
    match = _REMOVED_NAME.search(str(error))
    name = match and (match.group(1) or match.group(2))
    return name if name in _ALIASES else None


def replacement_for(name: str) -> str:
    """What NumPy 2 code writes instead of NumPy 1's ``numpy.<name>``."""
    return _ALIASES[name][1]


class NumPy1Aliases:
    """The names one :func:`install_numpy1_aliases` call put on ``numpy``.

    Attributes:
        names: Those names, in the order they were set.
    """

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names

    def remove(self) -> None:
        """Takes the names off ``numpy`` again (those still holding what was put there);
        harmless to call twice."""
        for name in self.names:
            value = _ALIASES[name][0]
            if name in vars(numpy) and vars(numpy)[name] is value:
                delattr(numpy, name)
        self.names = ()


def install_numpy1_aliases() -> NumPy1Aliases:
    """Puts back on ``numpy`` the NumPy 1 names NumPy 2 removed (NOTE [NumPy 1 aliases]).

    Each is what NumPy 1 had: ``numpy.float`` is ``float``, ``numpy.float_`` is
    ``numpy.float64``, ``numpy.asscalar(a)`` is ``a.item()``, ``numpy.NaN`` is ``numpy.nan``,
    ``numpy.product`` is ``numpy.prod``, ``numpy.sctypes`` lists the dtypes by kind, and so
    on. Names NumPy already has (again) are left as they are.

    Returns:
        A handle whose ``remove()`` takes the names off again.
    """
    added = []
    for name, (value, _) in _ALIASES.items():
        if value is None or name in vars(numpy):
            continue
        setattr(numpy, name, value)
        added.append(name)
    return NumPy1Aliases(tuple(added))
