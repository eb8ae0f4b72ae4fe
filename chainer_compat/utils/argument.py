"""Keyword-argument helpers of Chainer-era code: ``parse_kwargs`` and its two checks.

Layer 1: imports only the standard library.

Legacy functions and links take ``**kwargs`` and read them with these, so that removed options
(``train=``, ``volatile=``) fail with a message saying what replaced them.
"""

from __future__ import annotations

import sys
from typing import Any


def check_unexpected_kwargs(kwargs: dict[str, Any], **unexpected: str) -> None:
    """Raises ValueError with the given message if ``kwargs`` holds a name it should not.

    Args:
        kwargs: The keyword arguments a function received.
        unexpected: For each refused name, the message to raise (typically saying what to use
            instead, e.g. ``train="train argument is not supported anymore. Use
            chainer.using_config"``).

    Raises:
        ValueError: With the message of the first refused name found in ``kwargs``.
    """
    for name, message in unexpected.items():
        if name in kwargs:
            raise ValueError(message)


def parse_kwargs(kwargs: dict[str, Any], *name_and_values: tuple[str, Any],
                 **unexpected: str) -> tuple[Any, ...]:
    """Takes the named values out of ``kwargs``, with defaults, and refuses anything left.

    ``kwargs`` is emptied of the names read, as Chainer's helper does.

    Args:
        kwargs: The keyword arguments a function received.
        name_and_values: ``(name, default)`` pairs, in the order the values are returned.
        unexpected: Refused names with their messages, as for :func:`check_unexpected_kwargs`.

    Returns:
        The values of the names, in the order given.

    Raises:
        ValueError: If a name left in ``kwargs`` is one of ``unexpected``.
        TypeError: If any other name is left, naming the calling function as Python does.
    """
    values = tuple(kwargs.pop(name, default) for name, default in name_and_values)
    if kwargs:
        check_unexpected_kwargs(kwargs, **unexpected)
        # compat: Chainer names the function that called this one; the frame is cheaper to
        # read than inspect.stack().
        caller = sys._getframe(1).f_code.co_name
        names = ", ".join(repr(name) for name in sorted(kwargs))
        raise TypeError(f"{caller}() got unexpected keyword argument(s) {names}")
    return values


def assert_kwargs_empty(kwargs: dict[str, Any]) -> None:
    """Raises TypeError if ``kwargs`` holds anything (a function that takes no options).

    Raises:
        TypeError: Naming the leftover keyword arguments.
    """
    parse_kwargs(kwargs)
