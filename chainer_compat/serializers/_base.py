"""The serializer protocol: ``AbstractSerializer``, ``Serializer`` (saving), ``Deserializer``
(loading). Chainer keeps these in ``chainer.serializer``.

Layer 8: imports nothing from chainer_compat.
"""

from __future__ import annotations

from typing import Any


class AbstractSerializer:
    """A visitor that saves or loads the values of an object hierarchy.

    An object takes part by defining ``serialize(serializer)`` and calling
    ``serializer(key, value)`` for each of its values and ``serializer[name]`` to get the
    serializer of a child object.
    """

    def __getitem__(self, key: str) -> AbstractSerializer:
        """Returns the serializer of the child object ``key``."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement __getitem__(key) to serialize children")

    def __call__(self, key: str, value: Any) -> Any:
        """Saves or loads ``value`` under ``key``.

        Args:
            key: Name of the value within the current object.
            value: The current value (an array, a scalar or None).

        Returns:
            The value to keep: a serializer returns ``value``; a deserializer returns the loaded
            value (arrays are filled in place and returned).
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement __call__(key, value)")


class Serializer(AbstractSerializer):
    """Base class of serializers, which record values."""

    def save(self, obj: Any) -> None:
        """Records every value of ``obj`` by calling ``obj.serialize(self)``."""
        obj.serialize(self)


class Deserializer(AbstractSerializer):
    """Base class of deserializers, which restore values."""

    def load(self, obj: Any) -> None:
        """Restores every value of ``obj`` by calling ``obj.serialize(self)``."""
        obj.serialize(self)
