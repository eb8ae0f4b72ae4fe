"""NPZ serialization: ``DictionarySerializer`` flattens an object hierarchy into a dict of arrays
keyed by paths (``'child/W'``), ``save_npz`` writes it with NumPy, and ``NpzDeserializer`` and
``load_npz`` fill an existing hierarchy back from such a file.

Layer 8: imports backend, ``serializers._base`` and ``_checked``, and ``utils._shapes``.
"""

from __future__ import annotations

import io
import os
import pickle
from collections.abc import Callable, Sequence
from typing import IO, Any

import numpy

from chainer_compat import backend
from chainer_compat.serializers import _checked
from chainer_compat.serializers._base import Deserializer, Serializer
from chainer_compat.utils._shapes import broadcasts_to

__all__ = ["DictionarySerializer", "NpzDeserializer", "load_npz", "save_npz"]

FileLike = str | os.PathLike[str] | IO[bytes]
IgnoreNames = str | Callable[[str], bool] | Sequence[str | Callable[[str], bool]] | None


class DictionarySerializer(Serializer):
    """Records values into a flat dict whose keys are the values' paths in the hierarchy.

    The dict can be handed to :func:`numpy.savez` (that is what :func:`save_npz` does).
    Arrays are stored as NumPy arrays (CuPy arrays are copied to the host), scalars as 0-d
    arrays, and None as a 0-d object array holding None, as Chainer stores it.

    Args:
        target: The dict to fill; a new one if None.
        path: The path prefix of this serializer, ending with ``'/'`` unless empty.

    Attributes:
        target: The dict being filled.
        path: The path prefix.
    """

    def __init__(self, target: dict[str, Any] | None = None, path: str = "") -> None:
        self.target: dict[str, Any] = {} if target is None else target
        self.path = path

    def __getitem__(self, key: str) -> DictionarySerializer:
        return DictionarySerializer(self.target, self.path + key.strip("/") + "/")

    def __call__(self, key: str, value: Any) -> Any:
        # compat: what Chainer's serializer stores: arrays brought to the host, scalars as 0-d
        # arrays, lists and tuples item by item; anything else (a Variable) is a TypeError.
        stored = numpy.asarray(None) if value is None else backend._arrays_to_cpu(value)
        self.target[self.path + key.lstrip("/")] = stored
        return value


def serialize(obj: Any) -> dict[str, Any]:
    """Returns ``obj``'s values (anything with a ``serialize`` method) as a flat dict by path.

    Args:
        obj: The object to serialize, e.g. a Link.

    Returns:
        The dict a :class:`DictionarySerializer` filled: what :func:`save_npz` writes.
    """
    serializer = DictionarySerializer()
    serializer.save(obj)
    return serializer.target


def save_npz(file: FileLike, obj: Any, compression: bool = True) -> None:
    """Saves ``obj`` (anything with a ``serialize`` method, e.g. a Link) as an NPZ file.

    Args:
        file: A path (written as given: no ``.npz`` is appended) or a binary file object.
        obj: The object to save.
        compression: Whether the zip members are compressed.
    """
    serializer = DictionarySerializer()
    serializer.save(obj)
    write = numpy.savez_compressed if compression else numpy.savez
    if isinstance(file, (str, os.PathLike)):
        with open(file, "wb") as stream:
            write(stream, **serializer.target)
    else:
        write(file, **serializer.target)


# NOTE [None in NPZ files]
# Chainer stores None as a 0-d object array, which NumPy writes with pickle. Loading with
# allow_pickle=True would let a crafted file run code, so such members are read here with an
# unpickler that knows only the names an object ndarray needs.
_ALLOWED_PICKLE_NAMES = frozenset({
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("_codecs", "encode"),  # protocol-2 pickles (Python 2) encode bytes through it
})


class _ArrayOnlyUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED_PICKLE_NAMES:
            raise pickle.UnpicklingError(
                f"object arrays in an NPZ file must hold only None, got a pickled {module}.{name}"
                ": chainer_compat does not unpickle arbitrary objects from files")
        return super().find_class(module, name)


def _read_object_member(npz: Any, key: str) -> Any:
    """Reads the object array ``key`` of an NPZ file without general unpickling."""
    with npz.zip.open(key + ".npy") as stream:
        version = numpy.lib.format.read_magic(stream)
        if version == (1, 0):
            header = numpy.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            header = numpy.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(
                f"NPZ member {key!r} must use .npy format 1.0 or 2.0 to hold an object array, "
                f"got {version[0]}.{version[1]}")
        array = _ArrayOnlyUnpickler(io.BytesIO(stream.read())).load()
    if not isinstance(array, numpy.ndarray) or array.shape != header[0]:
        raise ValueError(f"NPZ member {key!r} must hold an array of shape {header[0]}, got "
                         f"{type(array).__name__}")
    return array


def _holds_none(dataset: Any) -> bool:
    return (dataset is None or (isinstance(dataset, numpy.ndarray) and dataset.dtype == object
                                and dataset.shape == () and dataset[()] is None))


def _is_ignored(key: str, ignore_names: IgnoreNames) -> bool:
    if ignore_names is None:
        return False
    names = ignore_names if isinstance(ignore_names, (list, tuple)) else [ignore_names]
    for name in names:
        if isinstance(name, str):
            if key == name:
                return True
        elif callable(name):
            if name(key):
                return True
        else:
            # compat: Chainer raises ValueError here.
            raise ValueError(  # noqa: TRY004
                "ignore_names needs to be a callable, string or list of them.")
    return False


class NpzDeserializer(Deserializer):
    """Restores values from an NPZ file (or any mapping from paths to arrays).

    Existing arrays are filled in place (NumPy or CuPy); for a value that is None the loaded
    array is returned; scalars are converted to the type of the current value.

    Args:
        npz: The result of :func:`numpy.load` on an NPZ file, or a dict such as a
            :class:`DictionarySerializer`'s ``target``.
        path: The path prefix of this deserializer.
        strict: Whether a key missing from ``npz`` raises KeyError; when False the value is
            left as it is.
        ignore_names: A key, a predicate on keys, or a list of them: matching values are left
            as they are.

    Raises:
        KeyError: (when called) If ``strict`` and the key is missing.
        TypeError: (when called) If a scalar cannot take the loaded dtype without loss.
        ValueError: (when called) If the loaded array does not fit the existing array, or
            ``ignore_names`` holds something else than strings and callables.
    """

    def __init__(self, npz: Any, path: str = "", strict: bool = True,
                 ignore_names: IgnoreNames = None) -> None:
        self.npz = npz
        self.path = path
        self.strict = strict
        self.ignore_names = ignore_names

    def __getitem__(self, key: str) -> NpzDeserializer:
        return NpzDeserializer(self.npz, self.path + key.strip("/") + "/", strict=self.strict,
                               ignore_names=self.ignore_names)

    def __call__(self, key: str, value: Any) -> Any:
        key = self.path + key.lstrip("/")
        if not self.strict and key not in self.npz:
            return value
        if _is_ignored(key, self.ignore_names):
            return value
        return self._load(key, value, self._read(key))

    def load(self, obj: Any) -> None:
        """Restores every value of ``obj``, or none of them if one cannot be loaded.

        A check pass that writes nothing runs first (NOTE [all-or-nothing loading]).
        """
        _checked.load_all_or_nothing(obj, self, _NpzCheck(
            self.npz, self.path, self.strict, self.ignore_names, _checked.LoadCheck()))

    def _load(self, key: str, value: Any, dataset: Any) -> Any:
        if _holds_none(dataset):
            return None
        if value is None:
            return dataset
        if isinstance(value, numpy.ndarray):
            self._fill(key, value, lambda: numpy.copyto(value, dataset))
            return value
        if backend.is_cupy_array(value):
            self._fill(key, value, lambda: backend.copyto(
                value, numpy.asarray(dataset, dtype=value.dtype)))
            return value
        return _as_scalar(key, value, dataset)

    def _read(self, key: str) -> Any:
        try:
            return self.npz[key]
        except ValueError:
            # NOTE [None in NPZ files]
            if not isinstance(self.npz, numpy.lib.npyio.NpzFile):
                raise
            return _read_object_member(self.npz, key)

    @staticmethod
    def _fill(key: str, value: Any, copy: Callable[[], None]) -> None:
        try:
            copy()
        except ValueError as error:
            raise ValueError(
                f"array '{key}' in the file must fit the existing array of shape "
                f"{value.shape}, got {error}: load it into an object built with the sizes "
                "it was saved with, or leave it out with ignore_names") from error


class _NpzCheck(_checked.CheckPass, NpzDeserializer):
    """The check pass of an NpzDeserializer's load: raises what the real call would raise,
    writes nothing, and returns each value unchanged (NOTE [all-or-nothing loading])."""

    def __init__(self, npz: Any, path: str, strict: bool, ignore_names: IgnoreNames,
                 check: _checked.LoadCheck) -> None:
        super().__init__(npz, path=path, strict=strict, ignore_names=ignore_names)
        self._check = check

    def __getitem__(self, key: str) -> _NpzCheck:
        return _NpzCheck(self.npz, self.path + key.strip("/") + "/", self.strict,
                         self.ignore_names, self._check)

    def loaded_header(self, key: str) -> tuple[tuple[int, ...], numpy.dtype[Any]] | None:
        """The shape and dtype of the array the real pass would return for ``key`` and a value
        of None, or None if it would return None; read from the array's header where it can be."""
        def run() -> tuple[tuple[int, ...], numpy.dtype[Any]] | None:
            full = self.path + key.lstrip("/")
            if (not self.strict and full not in self.npz) or _is_ignored(
                    full, self.ignore_names):
                return None
            header = self._header(full)
            if header is not None:
                return header
            dataset = self._read(full)
            if _holds_none(dataset):
                return None
            array = numpy.asarray(dataset)
            return array.shape, array.dtype
        return self.check(run)

    def _try(self, key: str, value: Any) -> None:
        key = self.path + key.lstrip("/")
        if not self.strict and key not in self.npz:
            return
        if _is_ignored(key, self.ignore_names):
            return
        header = self._header(key)
        if header is not None and (value is None or _fits(value, *header)):
            return
        self._load(key, _checked.stand_in(value), self._read(key))

    def _header(self, key: str) -> tuple[tuple[int, ...], numpy.dtype[Any]] | None:
        """The shape and dtype of ``key``'s array, without reading its data; None when only
        reading it tells (an object array may hold None)."""
        npz = self.npz
        if not isinstance(npz, numpy.lib.npyio.NpzFile):
            dataset = npz[key]
            if isinstance(dataset, numpy.ndarray) and dataset.dtype.kind != "O":
                return dataset.shape, dataset.dtype
            return None
        if key not in npz:
            npz[key]  # raises the KeyError of the real pass
        archive: Any = npz.zip
        try:
            member = archive.getinfo(key)
        except KeyError:
            member = archive.getinfo(key + ".npy")
        with archive.open(member) as stream:
            try:
                version = numpy.lib.format.read_magic(stream)
            except ValueError:
                return None
            if version == (1, 0):
                shape, _, dtype = numpy.lib.format.read_array_header_1_0(stream)
            elif version == (2, 0):
                shape, _, dtype = numpy.lib.format.read_array_header_2_0(stream)
            else:
                return None
        return None if dtype.kind == "O" else (shape, dtype)


def _fits(value: Any, shape: tuple[int, ...], dtype: numpy.dtype[Any]) -> bool:
    """Whether an array of ``shape`` and ``dtype`` certainly loads into ``value`` (False for a
    scalar: converting it tells)."""
    if backend.is_cupy_array(value):
        # Cast on the host first (NpzDeserializer._load), so any number goes.
        return dtype.kind in "biufc" and broadcasts_to(shape, value.shape)
    return isinstance(value, numpy.ndarray) and _checked.copy_fits(value, shape, dtype)


def _as_scalar(key: str, value: Any, dataset: Any) -> Any:
    value_type = type(value)
    loaded = numpy.asarray(dataset)
    # Python's int has unlimited precision, so any NumPy integer fits it.
    integer_into_int = numpy.issubdtype(loaded.dtype, numpy.integer) and value_type is int
    if (numpy.issubdtype(loaded.dtype, numpy.number) and not integer_into_int
            and not numpy.can_cast(loaded.dtype, value_type)):
        # compat: Chainer 7.8.1's sentence first; then which value it was.
        raise TypeError(
            f"Cannot safely deserialize from numpy array with dtype={loaded.dtype} into a "
            f"variable of type {value_type}. (value '{key}' must be loadable into "
            f"{value_type.__name__} without loss: save it with that type, or give the "
            "attribute the type stored in the file)")
    return value_type(_scalar_array(loaded, value_type))


def _scalar_array(loaded: numpy.ndarray, value_type: type) -> numpy.ndarray:
    """``loaded``, as a 0-d array when it has one element and ``value_type`` is a number type.

    compat: NumPy 1, which Chainer ran on, converted a one-element array of any shape to a
    Python number (with a DeprecationWarning); NumPy 2 only converts 0-d arrays. ``str`` of
    such an array was, and is, its text with brackets.
    """
    if loaded.ndim and loaded.size == 1 and value_type is not str:
        return loaded.reshape(())
    return loaded


def load_npz(file: FileLike, obj: Any, path: str = "", strict: bool = True,
             ignore_names: IgnoreNames = None) -> None:
    """Loads ``obj`` (e.g. a Link) in place from an NPZ file written by :func:`save_npz`.

    Args:
        file: A path or a binary file object.
        obj: The object to fill; its structure must match the file's.
        path: The path inside the file the object was saved at (e.g. ``'updater/model:main/'``
            for a trainer snapshot); empty for a file written by ``save_npz(file, obj)``.
        strict: Whether a missing value raises KeyError.
        ignore_names: Keys (or predicates on keys) whose values are left as they are.

    Compat: a value that cannot be loaded (missing, misfit, unconvertible) is raised before
    any value is written, so a failed load leaves ``obj`` as it was; Chainer leaves it half
    loaded. For that, ``obj.serialize`` runs twice: once to check, once to load (NOTE
    [all-or-nothing loading]).
    """
    try:
        npz = numpy.load(file, allow_pickle=False)
    except ValueError as error:
        if "pickled" not in str(error):
            raise
        raise NotAnNpzFileError(
            f"Failed to interpret file {file!r} as a pickle: load_npz reads NPZ archives "
            "(written by save_npz or numpy.savez), and this file is not one; other files are "
            "not unpickled, since unpickling a file can run code") from None
    with npz:
        NpzDeserializer(npz, path=path, strict=strict, ignore_names=ignore_names).load(obj)


class NotAnNpzFileError(ValueError, pickle.UnpicklingError):
    """load_npz was given a file that is not an NPZ archive.

    compat: Chainer loads with ``allow_pickle=True``, so it tries to unpickle such a file and
    raises ``pickle.UnpicklingError`` (for a file that is not a pickle either); we never
    unpickle it, and raise an error that is both that and NumPy's ValueError.
    """
