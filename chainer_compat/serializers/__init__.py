"""``chainer_compat.serializers``: save and load Links (and anything with a ``serialize`` method)
as NPZ files.

Layer 8: re-exports ``npz`` and the serializer base classes.
"""

from __future__ import annotations

from chainer_compat.serializers._base import AbstractSerializer, Deserializer, Serializer
from chainer_compat.serializers.npz import (
    DictionarySerializer,
    NpzDeserializer,
    load_npz,
    save_npz,
)

__all__ = [
    "AbstractSerializer",
    "Deserializer",
    "DictionarySerializer",
    "NpzDeserializer",
    "Serializer",
    "load_npz",
    "save_npz",
]
