"""HDF5 serialization: ``HDF5Serializer`` maps an object hierarchy onto HDF5 groups, and
``HDF5Deserializer`` fills an existing hierarchy back from them; ``save_hdf5`` and
``load_hdf5`` do it for a whole file. h5py is imported only when one of them is used.

Layer 8: imports backend and ``serializers._base``.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.serializers import _checked
from chainer_compat.serializers._base import Deserializer, Serializer
from chainer_compat.serializers.npz import _scalar_array

__all__ = ["HDF5Deserializer", "HDF5Serializer", "load_hdf5", "save_hdf5"]

_MISSING_H5PY = """h5py is not installed on your environment.
Please install h5py to activate hdf5 serializers.

  $ pip install h5py"""


class _H5pyUnavailableError(RuntimeError, ImportError):
    """Raised when an HDF5 serializer is used without h5py installed.

    Compat: Chainer raises RuntimeError here; this is also an ImportError, so both
    ``except`` clauses catch it.
    """


def _h5py() -> ModuleType:
    """Returns the h5py module, imported on first use."""
    try:
        import h5py  # optional dependency: only HDF5 users need it
    except ImportError as error:
        raise _H5pyUnavailableError(_MISSING_H5PY) from error
    return h5py


class HDF5Serializer(Serializer):
    """Writes values as datasets of an HDF5 group; child objects become subgroups.

    Arrays are written with gzip compression (CuPy arrays are copied to the host), scalars
    and one-element arrays without, and None as an empty dataset (``h5py.Empty``).

    Args:
        group: The ``h5py.Group`` (or ``h5py.File``) this serializer writes into.
        compression: Gzip compression level.

    Attributes:
        group: The group being written.
        compression: The gzip compression level.

    Raises:
        RuntimeError: If h5py is not installed (also an ImportError).
    """

    def __init__(self, group: Any, compression: int = 4) -> None:
        _h5py()
        self.group = group
        self.compression = compression

    def __getitem__(self, key: str) -> HDF5Serializer:
        name = self.group.name.rstrip("/") + "/" + key
        return HDF5Serializer(self.group.require_group(name), self.compression)

    def __call__(self, key: str, value: Any) -> Any:
        compression: int | None
        if value is None:
            # compat: Chainer writes None as an empty float32 dataset.
            data: Any = _h5py().Empty("f")
            compression = None
        else:
            data = numpy.asarray(backend._array_to_cpu(value))
            compression = None if data.size <= 1 else self.compression
        self.group.create_dataset(key, data=data, compression=compression)
        return value


def save_hdf5(filename: str | os.PathLike[str], obj: Any, compression: int = 4) -> None:
    """Saves ``obj`` (anything with a ``serialize`` method, e.g. a Link) as an HDF5 file.

    A dict is written as it is instead: each item becomes a dataset at the item's key, read as
    a path (``'child/W'`` makes the group ``child``).

    Args:
        filename: The file to write (replaced if it exists).
        obj: The object or dict to save.
        compression: Gzip compression level of arrays with more than one element.

    Raises:
        RuntimeError: If h5py is not installed (also an ImportError).
        TypeError: If a dict value has a dtype HDF5 cannot store, such as object.
    """
    h5py = _h5py()
    with h5py.File(filename, "w") as file:
        if not isinstance(obj, dict):
            HDF5Serializer(file, compression=compression).save(obj)
            return
        for key, value in obj.items():
            data = numpy.asarray(value)
            try:
                file.create_dataset("/" + key.lstrip("/"), data=data,
                                    compression=None if data.size <= 1 else compression)
            except TypeError as error:
                raise TypeError(
                    f"value '{key}' must have a dtype HDF5 can store, got {data.dtype}: "
                    "save it with save_npz instead") from error


class HDF5Deserializer(Deserializer):
    """Restores values from the datasets of an HDF5 group written by :class:`HDF5Serializer`.

    Existing arrays are filled in place (NumPy or CuPy); for a value that is None the loaded
    array is returned; for a scalar, the loaded value converted to the scalar's type.

    Args:
        group: The ``h5py.Group`` (or ``h5py.File``) to read from; None for a group missing
            from the file.
        strict: Whether a missing group or dataset is an error; when False the value is left
            as it is.

    Attributes:
        group: The group being read, or None.
        strict: Whether missing values are errors.

    Raises:
        RuntimeError: If h5py is not installed (also an ImportError).
        ValueError: (when called) If ``strict`` and the group is missing from the file.
        KeyError: (when called) If ``strict`` and the dataset is missing from the group.
        TypeError: (when called) If the dataset does not fit the existing array.
    """

    def __init__(self, group: Any, strict: bool = True) -> None:
        _h5py()
        self.group = group
        self.strict = strict

    def __getitem__(self, key: str) -> HDF5Deserializer:
        if self.group is None:
            return HDF5Deserializer(None, strict=self.strict)
        name = self.group.name.rstrip("/") + "/" + key
        try:
            group = self.group.require_group(name)
        except ValueError:
            # h5py refuses to create a missing group in a file opened for reading.
            group = None
        return HDF5Deserializer(group, strict=self.strict)

    def __call__(self, key: str, value: Any) -> Any:
        if self.group is None:
            if not self.strict:
                return value
            # compat: Chainer's wording and type for a child group missing from the file.
            raise ValueError("Inexistent group is specified")
        if not self.strict and key not in self.group:
            return value
        return self._load(value, self.group[key])

    def load(self, obj: Any) -> None:
        """Restores every value of ``obj``, or none of them if one cannot be loaded.

        A check pass that writes nothing runs first (NOTE [all-or-nothing loading]).
        """
        _checked.load_all_or_nothing(
            obj, self, _HDF5Check(self.group, self.strict, _checked.LoadCheck()))

    @staticmethod
    def _load(value: Any, dataset: Any) -> Any:
        if dataset.shape is None:  # an empty dataset stands for None
            return None
        if value is None:
            return numpy.asarray(dataset)
        if isinstance(value, numpy.ndarray):
            dataset.read_direct(value)
            return value
        if backend.is_cupy_array(value):
            value.set(numpy.asarray(dataset, dtype=value.dtype))
            return value
        # compat: Chainer converts with the scalar's type, without a check for lost precision.
        return type(value)(_scalar_array(numpy.asarray(dataset), type(value)))


class _HDF5Check(_checked.CheckPass, HDF5Deserializer):
    """The check pass of an HDF5Deserializer's load: raises what the real call would raise,
    writes nothing, and returns each value unchanged (NOTE [all-or-nothing loading])."""

    def __init__(self, group: Any, strict: bool, check: _checked.LoadCheck) -> None:
        super().__init__(group, strict=strict)
        self._check = check

    def __getitem__(self, key: str) -> _HDF5Check:
        return _HDF5Check(super().__getitem__(key).group, self.strict, self._check)

    def loaded_header(self, key: str) -> tuple[tuple[int, ...], numpy.dtype[Any]] | None:
        """The shape and dtype of the array the real pass would return for ``key`` and a value
        of None, or None if it would return None; without reading the dataset."""
        def run() -> tuple[tuple[int, ...], numpy.dtype[Any]] | None:
            if self.group is None or (not self.strict and key not in self.group):
                HDF5Deserializer.__call__(self, key, None)  # raises, or returns None
                return None
            dataset = self.group[key]
            return None if dataset.shape is None else (dataset.shape, dataset.dtype)
        return self.check(run)

    def _try(self, key: str, value: Any) -> None:
        if self.group is None or (not self.strict and key not in self.group):
            HDF5Deserializer.__call__(self, key, value)  # raises, or returns value untouched
            return
        dataset = self.group[key]
        if value is None or dataset.shape is None:
            return
        if backend.is_cupy_array(value):
            fits = dataset.shape == value.shape and dataset.dtype.kind in "biufc"
        elif isinstance(value, numpy.ndarray):
            # h5py converts between integers and floats; other kinds are found by reading.
            fits = (dataset.shape == value.shape and value.flags.writeable
                    and value.flags.c_contiguous and dataset.dtype.kind in "biuf"
                    and value.dtype.kind in "biuf")
        else:
            fits = False  # a scalar: converting it tells
        if fits:
            return
        self._load(_checked.stand_in(value), dataset)


def load_hdf5(filename: str | os.PathLike[str], obj: Any) -> None:
    """Loads ``obj`` (e.g. a Link) in place from an HDF5 file written by :func:`save_hdf5`.

    Args:
        filename: The file to read.
        obj: The object to fill; its structure must match the file's.

    Raises:
        RuntimeError: If h5py is not installed (also an ImportError).
        ValueError: If a child object's group is missing from the file.
        KeyError: If a value is missing from its group.

    Compat: a value that cannot be loaded (missing, misfit, unconvertible) is raised before
    any value is written, so a failed load leaves ``obj`` as it was; Chainer leaves it half
    loaded. For that, ``obj.serialize`` runs twice: once to check, once to load (NOTE
    [all-or-nothing loading]).
    """
    h5py = _h5py()
    with h5py.File(filename, "r") as file:
        HDF5Deserializer(file).load(obj)
