"""NumPy 1 names that NumPy has since removed, put back on request, so that legacy code written
against NumPy 1 (``numpy.float``, ``numpy.asscalar``, ``numpy.NaN``, ...) runs unmodified:
:func:`install_numpy1_aliases`, and ``python -m chainer_compat --numpy1-aliases SCRIPT``.

Layer 0: imports numpy only.
"""

from __future__ import annotations

import builtins
import functools
import math
import re
from typing import Any

import numpy

__all__ = ["NumPy1Aliases", "install_numpy1_aliases", "installed", "numpy_lacks",
           "removed_numpy_name", "replacement_for"]


# NOTE [NumPy 1 aliases]
# Chainer-era code leans on names NumPy removed: the builtin aliases (numpy.float is float,
# removed in 1.24), asscalar (1.23), the aliases, helpers and constants NEP 52 dropped in 2.0,
# and the warnings and exceptions that moved to numpy.exceptions. Each name below is put back
# as exactly what NumPy 1 had, defined through NumPy 2's own replacement, and only where NumPy
# has no attribute of that name (numpy.bool and numpy.long exist again in NumPy 2 with new
# meanings; numpy.in1d, numpy.trapz and numpy.row_stack still exist in some NumPy 2 releases):
# those are left alone, and remove() leaves them too. Nothing changes unless the user asks: it
# is a process-wide edit of the numpy module, which ``from numpy import *`` does not see
# (numpy.__all__ is left as NumPy 2 has it).
def asscalar(a: Any) -> Any:
    """``a.item()``: NumPy 1's ``asscalar``."""
    return a.item()


def msort(a: Any) -> Any:
    """``numpy.sort(a, axis=0)``: NumPy 1's ``msort``."""
    return numpy.sort(a, axis=0)


def asfarray(a: Any, dtype: Any = numpy.float64) -> Any:
    """``a`` as an array of a float dtype (``dtype`` if it is inexact, else float64)."""
    if not numpy.issubdtype(dtype, numpy.inexact):
        dtype = numpy.float64
    return numpy.asarray(a, dtype=dtype)


def in1d(ar1: Any, ar2: Any, assume_unique: bool = False, invert: bool = False,
         **kwargs: Any) -> Any:
    """``numpy.isin(ar1, ar2, ...).ravel()``: NumPy 1's ``in1d``."""
    return numpy.isin(ar1, ar2, assume_unique=assume_unique, invert=invert, **kwargs).ravel()


def rank(a: Any) -> int:
    """``numpy.ndim(a)``: NumPy 1's ``rank``."""
    return int(numpy.ndim(a))


def alen(a: Any) -> int:
    """The length of ``a``'s first axis (1 for a scalar): NumPy 1's ``alen``."""
    try:
        return len(a)
    except TypeError:
        return len(numpy.array(a, ndmin=1))


class _Cast(dict):  # type: ignore[type-arg]
    """NumPy 1's ``numpy.cast``: a dict from every scalar type to a function that converts an
    array to it (``cast[numpy.int32](a)`` is ``numpy.asarray(a).astype(numpy.int32)``, a copy
    that wraps and truncates as ``astype`` does); indexing with any dtype-like key finds its
    scalar type."""

    def __init__(self) -> None:
        super().__init__()
        for code in numpy.typecodes["All"]:
            scalar_type = numpy.dtype(code).type
            self[scalar_type] = functools.partial(_astype, scalar_type=scalar_type)

    @staticmethod
    def _scalar_type(key: Any) -> Any:
        try:
            return numpy.dtype(key).type
        except TypeError:
            return key

    def __getitem__(self, key: Any) -> Any:
        # compat: only indexing reads a dtype-like key as its type; `in` and get() take the
        # scalar types themselves, as NumPy 1's did.
        return super().__getitem__(self._scalar_type(key))


def _astype(a: Any, scalar_type: Any) -> Any:
    return numpy.asarray(a).astype(scalar_type)


def _types_by_size(kind: str, bits: tuple[int, ...]) -> list[Any]:
    """The scalar types of ``kind`` this platform has, smallest first (NumPy 1 listed only
    distinct ones: no long double where it is a double)."""
    names = [f"{kind}{size}" for size in bits]
    return [numpy.sctypeDict[name] for name in names if name in numpy.sctypeDict]


_FLOAT_BITS = (16, 32, 64, 80, 96, 128)
_SCTYPES = {
    "int": _types_by_size("int", (8, 16, 32, 64)),
    "uint": _types_by_size("uint", (8, 16, 32, 64)),
    "float": _types_by_size("float", _FLOAT_BITS),
    "complex": _types_by_size("complex", tuple(2 * bits for bits in _FLOAT_BITS)),
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
    # Removed in NumPy 1.23 (asscalar) and 1.18 (rank, alen).
    "asscalar": (asscalar, "a.item()"),
    "rank": (rank, "numpy.ndim"),
    "alen": (alen, "len(a)"),
    # Type aliases NEP 52 removed in NumPy 2.0.
    "float_": (numpy.float64, "numpy.float64"),
    "complex_": (numpy.complex128, "numpy.complex128"),
    "cfloat": (numpy.complex128, "numpy.complex128"),
    "singlecomplex": (numpy.complex64, "numpy.complex64"),
    "longfloat": (numpy.longdouble, "numpy.longdouble"),
    "clongfloat": (numpy.clongdouble, "numpy.clongdouble"),
    "longcomplex": (numpy.clongdouble, "numpy.clongdouble"),
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
    "NAN": (numpy.nan, "numpy.nan"),
    "PZERO": (0.0, "0.0"),
    "NZERO": (-0.0, "-0.0"),
    # Functions NEP 52 removed, or renamed since.
    "product": (numpy.prod, "numpy.prod"),
    "cumproduct": (numpy.cumprod, "numpy.cumprod"),
    "sometrue": (numpy.any, "numpy.any"),
    "alltrue": (numpy.all, "numpy.all"),
    "round_": (numpy.round, "numpy.round"),
    "msort": (msort, "numpy.sort(a, axis=0)"),
    "asfarray": (asfarray, "numpy.asarray(a, dtype=float)"),
    "mat": (numpy.asmatrix, "numpy.asmatrix"),
    "in1d": (in1d, "numpy.isin(...).ravel()"),
    "trapz": (getattr(numpy, "trapezoid", None), "numpy.trapezoid"),
    "row_stack": (numpy.vstack, "numpy.vstack"),
    "cast": (_Cast(), "numpy.asarray(a).astype(dtype)"),
    "math": (math, "math"),
    # Moved to numpy.exceptions in NumPy 2.0.
    # (getattr: the module also imports under NumPy 1, where a cross-check runs it.)
    **{name: (getattr(getattr(numpy, "exceptions", None), name, None),
              f"numpy.exceptions.{name}")
       for name in ("AxisError", "ComplexWarning", "ModuleDeprecationWarning", "RankWarning",
                    "TooHardError", "VisibleDeprecationWarning")},
}

_REMOVED_NAME = re.compile(r"module 'numpy' has no attribute '(\w+)'|`np\.(\w+)` was removed"
                           r"|cannot import name '(\w+)' from 'numpy'")


def removed_numpy_name(error: BaseException) -> str | None:
    """The NumPy 1 name an error (or an error it was raised from) says NumPy lacks, when it is
    one that :func:`install_numpy1_aliases` puts back; else None. Never raises."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (AttributeError, ImportError)):
            try:
                match = _REMOVED_NAME.search(str(current))
            except Exception:  # noqa: BLE001 - a message that cannot be read names nothing
                match = None
            name = match and next(group for group in match.groups() if group)
            if name in _ALIASES:
                return name
        current = current.__cause__ or current.__context__
    return None


def _holds_ours(name: str) -> bool:
    """Whether ``numpy.<name>`` is the alias this module puts there."""
    value = _ALIASES[name][0]
    return value is not None and vars(numpy).get(name) is value


def installed() -> bool:
    """Whether this process's ``numpy`` holds any of the aliases now."""
    return any(_holds_ours(name) for name in _ALIASES)


def numpy_lacks(name: str) -> bool:
    """Whether ``numpy.<name>`` is a NumPy 1 name this NumPy no longer has (put back or not)."""
    return name in _ALIASES and (name not in vars(numpy) or _holds_ours(name))


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
            if _holds_ours(name):
                delattr(numpy, name)
        self.names = ()


def install_numpy1_aliases() -> NumPy1Aliases:
    """Puts back on ``numpy`` the NumPy 1 names NumPy has since removed (NOTE [NumPy 1 aliases]).

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
