"""``chainer.utils.cache``: ``cached_property``, a read-only property computed once per
``enable_backprop`` mode.

Layer 1: imports ``configuration``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from chainer_compat import configuration

__all__ = ["cached_property"]

_Value = TypeVar("_Value")


class cached_property(Generic[_Value]):  # noqa: N801 - Chainer's public name
    """A read-only property computed at first access and kept on the instance.

    One value is kept per ``chainer.config.enable_backprop`` mode: a value computed under
    ``no_backprop_mode`` has no graph and must not be handed out when backprop is on, and the
    reverse would keep a graph alive needlessly. The values live in the instance's
    ``__dict__`` under the property's name, as a dict keyed by the mode.

    Args:
        func: The method that computes the value from the instance.

    Raises:
        AttributeError: On assignment; the property is read-only.
    """

    __name__: str

    def __init__(self, func: Callable[[Any], _Value]) -> None:
        self.func = func
        # What functools.update_wrapper copies, so help() and doctest see the method's.
        self.__name__ = func.__name__
        self.__qualname__ = func.__qualname__
        self.__doc__ = func.__doc__
        self.__module__ = func.__module__
        self.__wrapped__ = func

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        if obj is None:
            return self
        caches = obj.__dict__.setdefault(self.__name__, {})
        mode = configuration.config.enable_backprop
        if mode not in caches:
            caches[mode] = self.func(obj)
        return caches[mode]

    # A data descriptor, so the cache dict in the instance's __dict__ never shadows it.
    def __set__(self, obj: Any, value: Any) -> None:
        raise AttributeError(
            f"attribute '{self.__name__}' of {type(obj).__name__} is readonly: it is computed "
            f"from the instance; set what it is computed from instead")
