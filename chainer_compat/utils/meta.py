"""``final`` and ``enable_final``: methods a subclass may not override, checked when the
subclass is created.

Layer 1: imports only the standard library.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, MutableMapping, Sequence
from typing import Any

# The attribute ``final`` sets on a method: a one-tuple holding the action for an override.
_ACTION_ATTRIBUTE = "__override_action"


def _check_action(action: Any) -> None:
    if not (isinstance(action, type) and issubclass(action, (Exception, Warning))):
        raise TypeError(
            f"final action must be an Exception or a Warning class, got {action!r} "
            "(for example final(action=TypeError) or final(action=UserWarning))")


def final(*args: Any, **kwargs: Any) -> Any:
    """Marks a method as final: overriding it in a subclass raises (or warns).

    Use it bare (``@final``) or with an action (``@final(action=UserWarning)``). The check runs
    only for classes deriving from a base made by :func:`enable_final`.

    Args:
        args: The method, when used bare.
        kwargs: ``action``: the Exception class raised (default ``TypeError``) or the Warning
            class warned when a subclass overrides the method.

    Returns:
        The method itself, marked; or, with keywords, a decorator that marks it.

    Raises:
        TypeError: If the decorated object is not callable, or ``action`` is neither an
            Exception nor a Warning class.

    Compat:
        Chainer checks these with ``assert`` (an invalid action only when a subclass is made);
        here they raise TypeError at decoration time.
    """
    def mark(method: Callable[..., Any], action: type = TypeError) -> Callable[..., Any]:
        if not callable(method):
            raise TypeError(
                f"final must decorate a callable (a method), got {type(method).__name__}")
        _check_action(action)
        setattr(method, _ACTION_ATTRIBUTE, (action,))
        return method

    if not kwargs and len(args) == 1:
        return mark(args[0])
    if args:
        raise TypeError(
            f"final takes the method alone or keywords alone, got {len(args)} positional "
            "arguments (write @final or @final(action=...))")
    unknown = set(kwargs) - {"action"}
    if unknown:
        raise TypeError(f"final accepts only the keyword 'action', got {sorted(unknown)}")

    def decorate(method: Callable[..., Any]) -> Callable[..., Any]:
        return mark(method, **kwargs)

    return decorate


class _EnableFinal(type):
    """Metaclass that checks, as each class is created, that it overrides no final method."""

    def __new__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any],
                **kwargs: Any) -> _EnableFinal:
        for attribute in namespace:
            for base in bases:
                inherited = getattr(base, attribute, None)
                marker = getattr(inherited, _ACTION_ATTRIBUTE, None)
                if marker is None:
                    continue
                action, = marker
                if issubclass(action, Warning):
                    # compat: attributed here, as Chainer's is, so that Python's default
                    # filters hide a DeprecationWarning as they do Chainer's.
                    warnings.warn(f"Overriding method {attribute!r}.", action, stacklevel=1)
                else:
                    # compat: Chainer's message.
                    raise action(f"method {attribute!r} is final.")
        return super().__new__(cls, name, bases, namespace, **kwargs)


def enable_final(base: type | Sequence[type] = (),
                 meta_base: type | Sequence[type] = ()) -> Any:
    """Returns a base class whose subclasses may not override methods marked :func:`final`.

    Args:
        base: The base class (or classes) the returned class derives from.
        meta_base: Metaclass (or metaclasses) to combine with the checking metaclass, needed
            when the bases or any subclass have a metaclass of their own.

    Returns:
        A class to derive from. Like Chainer's, it does not appear in its subclasses' MRO: the
        subclasses derive directly from ``base``.
    """
    bases = tuple(base) if isinstance(base, (list, tuple)) else (base,)
    meta_bases = tuple(meta_base) if isinstance(meta_base, (list, tuple)) else (meta_base,)
    checking_meta = type("base_metaclass", (_EnableFinal, *meta_bases), {})

    class _Placeholder(type):
        # A one-use metaclass: the class derived from the placeholder is made by checking_meta
        # with the real bases, so the placeholder itself vanishes from the hierarchy.
        def __new__(cls, name: str, this_bases: tuple[type, ...],
                    namespace: dict[str, Any]) -> Any:
            return checking_meta(name, bases, namespace)

        @classmethod
        def __prepare__(cls, name: str, this_bases: tuple[type, ...], /,
                        **kwargs: Any) -> MutableMapping[str, object]:
            return checking_meta.__prepare__(name, bases)

    return type.__new__(_Placeholder, "temporary_class", (), {})
