"""Checks and size helpers shared by the convolution links: Chainer's pairs of sizes, the groups
check and ``from_params``'s bias check.

Layer 8: imports nothing from chainer_compat.
"""

from __future__ import annotations

from typing import Any

__all__ = ["as_pair", "check_from_params_bias", "check_groups"]


def as_pair(value: Any) -> Any:
    """``value`` if it is a sequence, else ``(value, value)``, as Chainer stores sizes."""
    if hasattr(value, "__getitem__"):
        return value
    return value, value


def check_groups(in_channels: int, out_channels: int, groups: int) -> None:
    """Raises ValueError unless ``groups`` divides both channel counts (Chainer's wording)."""
    if out_channels % groups != 0:
        raise ValueError(
            "the number of output channels must be divisible by the number of groups: "
            f"got out_channels={out_channels}, groups={groups}")
    if in_channels % groups != 0:
        raise ValueError(
            "the number of input channels must be divisible by the number of groups: "
            f"got in_channels={in_channels}, groups={groups}")


def check_from_params_bias(b: Any, out_channels: int) -> None:
    """Raises ValueError unless ``b`` is None or has ``out_channels = W.shape[0]`` elements."""
    if b is not None and b.size != out_channels:
        raise ValueError(
            f"b must have out_channels = W.shape[0] = {out_channels} elements, got "
            f"{b.size}; pass a bias with one element per output channel")
