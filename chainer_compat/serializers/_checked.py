"""All or nothing: a deserializer's ``load`` first runs a check pass that writes nothing, so
that a missing key or a misfit array is raised before any value changes; and the tests of
whether a copy into an array can fail, which ``copyparams`` and ``update()`` check with too.

Layer 8: imports backend, ``serializers._base`` and ``utils._shapes``.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numpy

from chainer_compat import backend
from chainer_compat.serializers._base import Deserializer
from chainer_compat.utils._shapes import broadcasts_to

_T = TypeVar("_T")

# NOTE [all-or-nothing loading]
# load_npz and load_hdf5 (any NpzDeserializer's or HDF5Deserializer's load) run the object's
# serialize twice. The first pass gets a checking deserializer: it reads what it must to
# know whether the real call would succeed (an array's header, a scalar, an object array),
# writes nothing, and returns each current value unchanged, so `x = serializer('x', x)`
# changes nothing. A missing key, an array that does not fit, or a scalar that cannot be
# converted is raised from that pass, before anything is written; only then does the real
# pass run. The library's own serialize methods ask `checks_only(serializer)` and skip their
# assignments and resets in the check pass (and read, with `peek`, what they must parse to
# go on). An object whose own serialize fails on an unchanged value (say, one that parses
# the default '' it passes when loading) loads in one pass, as before the check existed;
# so does a deserializer used by calling `obj.serialize(deserializer)` directly.
# compat: Chainer loads in one pass, and an error leaves the object half loaded.


class LoadCheck:
    """What one check pass has found: the last error its deserializers raised."""

    def __init__(self) -> None:
        self.failure: BaseException | None = None


def checks_only(serializer: Any) -> bool:
    """Whether ``serializer`` is the check pass of an all-or-nothing load.

    Only ``True`` itself counts: a serializer that answers any attribute (a mock in a test,
    or a proxy) is an ordinary serializer.
    """
    return getattr(serializer, "_checks_only", False) is True


def load_json(serializer: Any, key: str) -> Any:
    """Loads the JSON text stored under ``key`` (``serializer(key, '')``, parsed).

    In the check pass it parses what the real pass would get, and a parse error is the
    load's failure; the caller must still skip its assignment there.
    """
    if checks_only(serializer):
        return serializer.check(lambda: json.loads(serializer.peek(key, "")))
    # compat: no str(): a None stored in the file fails with Chainer's TypeError.
    return json.loads(serializer(key, ""))


def load_all_or_nothing(obj: Any, deserializer: Any, checker: Any) -> None:
    """Loads ``obj`` through ``deserializer`` once ``checker`` has found nothing wrong.

    ``checker`` is the check-pass twin of ``deserializer``, with a ``LoadCheck`` as ``_check``.
    """
    try:
        with warnings.catch_warnings():
            # The real pass gives every warning; the check pass must not give them twice.
            warnings.simplefilter("ignore")
            obj.serialize(checker)
    except Exception as error:
        if _arose_from(error, checker._check.failure):
            raise
        # Else the object's serialize failed on a value the check passed through unchanged:
        # only the real pass, which hands it the loaded values, can tell.
    obj.serialize(deserializer)


def _arose_from(error: BaseException, failure: BaseException | None) -> bool:
    seen = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if current is failure:
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def copy_fits(dst: Any, shape: tuple[int, ...], dtype: Any) -> bool:
    """Whether ``backend.copyto(dst, src)`` certainly succeeds for a source of ``shape`` and
    ``dtype``: a writable array, a same-kind cast, a shape that broadcasts to ``dst``'s."""
    if isinstance(dst, numpy.ndarray):
        if not dst.flags.writeable:
            return False
    elif not backend.is_cupy_array(dst):
        return False
    return bool(numpy.can_cast(dtype, dst.dtype, "same_kind")) and broadcasts_to(shape, dst.shape)


def stand_in(value: Any) -> Any:
    """What the check pass writes into instead of ``value``: an empty array like it.

    A read-only NumPy array stands for itself: writing to it fails before anything is written.
    """
    if isinstance(value, numpy.ndarray):
        return numpy.empty_like(value) if value.flags.writeable else value
    if backend.is_cupy_array(value):
        return backend.get_array_module(value).empty_like(value)
    return value


class CheckPass(Deserializer):
    """Mixed into a deserializer class (first) to make its check-pass twin, which defines
    ``_try(key, value)`` (raise what the real call would raise, and write nothing) and
    ``loaded_header(key)`` (the shape and dtype of the array the real call would return for a
    value of None, or None for None)."""

    _checks_only = True
    _check: LoadCheck

    def __call__(self, key: str, value: Any) -> Any:
        self.check(lambda: self._try(key, value))
        return value

    def _try(self, key: str, value: Any) -> None:
        raise NotImplementedError

    def peek(self, key: str, value: Any = None) -> Any:
        """What the real pass would return for ``key`` and ``value``, which must not be an
        array (it would be written to)."""
        load = super().__call__  # the deserializer's own call
        return self.check(lambda: load(key, value))

    def check(self, run: Callable[[], _T]) -> _T:
        """Runs ``run()``; an error it raises is the load's failure."""
        try:
            return run()
        except Exception as error:
            self._check.failure = error
            raise
