"""``broadcasts_to``: whether one shape broadcasts to exactly another.

Layer 1: imports nothing from chainer_compat.
"""

from __future__ import annotations


def broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether NumPy broadcasting takes ``shape`` to exactly ``target`` (as an operand written
    into an array of ``target``'s shape, or added to one in place)."""
    return len(shape) <= len(target) and all(
        size in (1, goal) for size, goal in zip(shape[::-1], target[::-1]))
