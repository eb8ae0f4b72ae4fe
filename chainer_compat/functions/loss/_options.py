"""Argument checks shared by the loss functions (private).

Layer 5: imports nothing from chainer_compat.
"""

from __future__ import annotations

from typing import Any

# compat: Chainer's two losses whose message starts with a capital letter.
_CAPITALIZED = frozenset({"huber_loss", "cross_covariance"})


def _quoted_choices(allowed: tuple[str, ...]) -> str:
    quoted = [repr(choice) for choice in allowed]
    if len(quoted) == 1:
        return quoted[0]
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]


def check_reduce(reduce: Any, allowed: tuple[str, ...], function: str) -> None:
    """Raises ValueError unless ``reduce`` is one of ``allowed``.

    The message starts with Chainer's sentence (code may match it), then names the function.

    Args:
        reduce: The value given by the user.
        allowed: The accepted values, in the order the message lists them.
        function: The public name of the function, for the message.
    """
    if reduce not in allowed:
        only = "Only" if function in _CAPITALIZED else "only"
        raise ValueError(
            f"{only} {_quoted_choices(allowed)} are valid for 'reduce', but '{reduce}' is "
            f"given\nFunction: {function}; pass reduce={allowed[0]!r} or one of the others")


def check_positive_margin(margin: Any, function: str) -> None:
    """Raises ValueError unless ``margin`` is positive, starting with Chainer's sentence."""
    if margin <= 0:
        raise ValueError(
            f"margin should be positive value.\nmargin of {function} must be positive, got "
            f"{margin!r}")
