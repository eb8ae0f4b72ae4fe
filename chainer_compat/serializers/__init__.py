"""``chainer_compat.serializers``: save and load Links (and anything with a ``serialize`` method)
as NPZ or HDF5 files (h5py, imported on first use).

Layer 8: re-exports ``npz``, ``hdf5`` and the serializer base classes.
"""

from __future__ import annotations

from chainer_compat.serializers._base import AbstractSerializer, Deserializer, Serializer
from chainer_compat.serializers.hdf5 import HDF5Deserializer, HDF5Serializer, load_hdf5, save_hdf5
from chainer_compat.serializers.npz import (
    DictionarySerializer,
    NpzDeserializer,
    load_npz,
    save_npz,
)

__all__ = [
    "AbstractSerializer", "Deserializer", "DictionarySerializer", "HDF5Deserializer",
    "HDF5Serializer", "NpzDeserializer", "Serializer",
    "load_hdf5", "load_npz", "save_hdf5", "save_npz",
]
