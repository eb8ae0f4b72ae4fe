"""``chainer.serializer``: the serializer protocol classes, at the path Chainer keeps them.

Layer 8: re-exports ``serializers._base``.
"""

from __future__ import annotations

from chainer_compat.serializers._base import AbstractSerializer, Deserializer, Serializer

__all__ = ["AbstractSerializer", "Deserializer", "Serializer"]
