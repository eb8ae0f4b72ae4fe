"""Chainer's iDeep module as Chainer has it on a machine without iDeep: nothing is available.

Legacy code asks ``is_ideep_available()`` or ``should_use_ideep(...)`` before it sends a model
to iDeep; here both say no, so that code takes its CPU path. Layer 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer_compat.backend import _IDEEP_UNAVAILABLE, Intel64Device

__all__ = ["Intel64Device", "check_ideep_available", "inputs_all_ready", "is_ideep_available",
           "mdarray", "should_use_ideep"]

_LEVELS = ("==always", ">=auto")


class mdarray:  # noqa: N801 -- Chainer's (and iDeep's) name
    """Stands for iDeep's array type, which no array is here (Chainer's own stand-in)."""


def is_ideep_available() -> bool:
    """Whether iDeep can be used: never, in chainer_compat.

    Returns:
        False.
    """
    return False


def check_ideep_available() -> None:
    """Raises, as Chainer does where iDeep is not installed.

    Raises:
        RuntimeError: Always; the message starts with Chainer's ``iDeep is not available.``
    """
    raise RuntimeError(_IDEEP_UNAVAILABLE)


def should_use_ideep(level: str) -> bool:
    """Whether a function should use iDeep at ``level``: never, since iDeep is unavailable.

    Args:
        level: ``'==always'`` or ``'>=auto'``.

    Returns:
        False.

    Raises:
        ValueError: If ``level`` is neither. Compat: Chainer does not look at ``level`` when
            iDeep is missing; a wrong one is refused here, since it would fail where iDeep is.
    """
    if level not in _LEVELS:
        raise ValueError(f"invalid iDeep use level: {level!r} "
                         "(must be either of \"==always\" or \">=auto\")")
    return False


def inputs_all_ready(inputs: Sequence[Any], supported_ndim: Sequence[int] = (2, 4)) -> bool:
    """Whether ``inputs`` are ready for an iDeep primitive: never, since iDeep is unavailable.

    Args:
        inputs: Arrays or Variables.
        supported_ndim: The dimensions the primitive takes.

    Returns:
        False.
    """
    return False
