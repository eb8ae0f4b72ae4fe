"""Conditions for skipping doctests, as Chainer's documentation writes them
(``:skipif: doctest_helper.skipif_not_enough_cuda_devices(2)``).

Layer 8: imports nothing from chainer_compat; ``packaging`` (which pytest installs) when a
requirement is checked.
"""

from __future__ import annotations

import importlib.metadata
import os
from typing import Any

__all__ = ["skipif", "skipif_not_enough_cuda_devices", "skipif_requires_satisfied"]


def skipif(condition: bool) -> bool:
    """``condition``, except on Read the Docs, where no example may disappear from the page.

    Args:
        condition: Whether to skip.

    Returns:
        False when the ``READTHEDOCS`` environment variable is ``'True'``, else ``condition``.
    """
    if os.environ.get("READTHEDOCS") == "True":
        return False
    return condition


def skipif_requires_satisfied(*requirements: str) -> bool:
    """Skips when every requirement is installed: for examples that show what happens when one
    is missing.

    Args:
        requirements: Requirement strings, such as ``'scipy>=1.0'``.

    Returns:
        ``skipif(True)`` when every requirement is installed at a version it admits, with the
        extras it names (which the distribution must offer, their own requirements installed
        too), else False. Compat: Chainer also resolves the requirements' requirements in
        turn; here one level is checked.
    """
    from packaging.requirements import Requirement  # pytest's dependency; only needed here

    return skipif(all(_installed(Requirement(text), follow_extras=True)
                      for text in requirements))


def _installed(requirement: Any, follow_extras: bool) -> bool:
    """Whether ``requirement`` is installed at an admitted version (and, when
    ``follow_extras``, with its extras offered and their requirements installed)."""
    from packaging.requirements import Requirement

    try:
        distribution = importlib.metadata.distribution(requirement.name)
    except importlib.metadata.PackageNotFoundError:
        return False
    if not requirement.specifier.contains(distribution.version, prereleases=True):
        return False
    if not (follow_extras and requirement.extras):
        return True
    offered = set(distribution.metadata.get_all("Provides-Extra") or ())
    if not requirement.extras <= offered:
        return False
    for text in distribution.requires or ():
        needed = Requirement(text)
        if needed.marker is not None and any(needed.marker.evaluate({"extra": extra})
                                             for extra in requirement.extras):
            if not _installed(needed, follow_extras=False):
                return False
    return True


def skipif_not_enough_cuda_devices(device_count: int) -> bool:
    """Skips when ``CHAINER_TEST_GPU_LIMIT`` allows fewer than ``device_count`` devices.

    Args:
        device_count: The CUDA devices the example needs.

    Returns:
        ``skipif(True)`` when the limit is set (not negative) and below ``device_count``.
    """
    limit = int(os.environ.get("CHAINER_TEST_GPU_LIMIT", "-1"))
    return skipif(0 <= limit < device_count)
