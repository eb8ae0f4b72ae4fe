"""Argument checks shared by the loss functions (private).

Layer 5: imports nothing from chainer_compat.
"""

from __future__ import annotations

from typing import Any


def _quoted_choices(allowed: tuple[str, ...]) -> str:
    quoted = [repr(choice) for choice in allowed]
    if len(quoted) == 1:
        return quoted[0]
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]


def check_reduce(reduce: Any, allowed: tuple[str, ...], function: str) -> None:
    """Raises ValueError unless ``reduce`` is one of ``allowed``.

    Args:
        reduce: The value given by the user.
        allowed: The accepted values, in the order the message lists them.
        function: The public name of the function, for the message.
    """
    if reduce not in allowed:
        raise ValueError(
            f"reduce of {function} must be {_quoted_choices(allowed)}, got {reduce!r}")


def check_positive_margin(margin: Any, function: str) -> None:
    """Raises ValueError unless ``margin`` is positive."""
    if margin <= 0:
        raise ValueError(f"margin of {function} must be positive, got {margin!r}")
