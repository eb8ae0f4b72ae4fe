"""Test helpers: skip unless (or if) packages are installed, expect a warning, patch with wrapping.

Layer 8: imports only the standard library and `testing.parameterized`; `packaging` is imported
when a requirement is checked.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import sys
import unittest
import unittest.mock
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from chainer_compat.testing.parameterized import _for_each_class


def _requirement_met(text: str) -> bool:
    """Returns whether the installed distributions satisfy one PEP 508 requirement string."""
    # packaging comes with pytest; importing it here keeps `chainer_compat.testing` importable
    # without it.
    from packaging.requirements import Requirement
    from packaging.version import InvalidVersion

    requirement = Requirement(text)
    if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
        # A requirement for another platform or Python holds vacuously here.
        return True
    installed = _standing_in_version(requirement.name)
    if installed is None:
        try:
            installed = importlib.metadata.version(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            return False
    try:
        return requirement.specifier.contains(installed, prereleases=True)
    except InvalidVersion:
        return False


def _standing_in_version(name: str) -> str | None:
    """chainer_compat's version when ``name`` is Chainer and chainer_compat stands in for it.

    compat: legacy tests guard on Chainer's version (``with_requires('chainer>=5')``); there is
    no ``chainer`` distribution to ask then, or it is not the ``chainer`` that code imports.
    """
    if name.lower().replace("_", "-") != "chainer":
        return None
    ours = sys.modules[__name__.split(".")[0]]
    imported = sys.modules.get("chainer")
    if imported is ours:
        return str(ours.__version__)
    if imported is None:
        try:
            importlib.metadata.version("chainer")
        except importlib.metadata.PackageNotFoundError:
            return str(ours.__version__)
    return None


def _skip_decorator(skip: bool, reason: str) -> Callable[[Any], Any]:
    if not skip:
        return lambda target: target

    def apply(target: Any) -> Any:
        target = unittest.skip(reason)(target)
        # unittest's skip flag is ignored by pytest on plain (non-TestCase) classes.
        pytest = sys.modules.get("pytest")
        if pytest is not None:
            target = pytest.mark.skip(reason=reason)(target)
        return target

    return lambda target: _for_each_class(target, apply)


def with_requires(*requirements: str) -> Callable[[Any], Any]:
    """Decorator that runs a test (function, method or class) only if requirements are installed.

    Args:
        *requirements: PEP 508 requirement strings such as ``'numpy>=1.10'``; a requirement whose
            environment marker does not hold here counts as met.

    Returns:
        A decorator that marks the test skipped (reason ``'requires: ...'``) when any requirement
        is not met, and otherwise returns it unchanged.
    """
    skip = not all(_requirement_met(requirement) for requirement in requirements)
    return _skip_decorator(skip, "requires: {}".format(",".join(requirements)))


def without_requires(*requirements: str) -> Callable[[Any], Any]:
    """Decorator that runs a test only if some of the requirements are not installed.

    Args:
        *requirements: PEP 508 requirement strings.

    Returns:
        A decorator that skips the test when every requirement is met.
    """
    skip = all(_requirement_met(requirement) for requirement in requirements)
    return _skip_decorator(skip, "requires: {}".format(",".join(requirements)))


@contextlib.contextmanager
def assert_warns(expected: type[Warning]) -> Iterator[None]:
    """Context manager asserting that its block emits a warning of category ``expected``.

    Every warning is recorded inside the block, whatever the active filters.

    Args:
        expected: The warning class (subclasses match).

    Raises:
        AssertionError: If no such warning was emitted.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    if not any(isinstance(item.message, expected) for item in caught):
        name = getattr(expected, "__name__", str(expected))
        # compat: Chainer's wording, misspelling included.
        raise AssertionError(f"{name} not triggerred")


def _import_object(fullname: str) -> Any:
    parts = fullname.split(".")
    obj = sys.modules.get(parts[0])
    if obj is None:
        raise RuntimeError(
            f"patch target's top-level module must be imported, got {fullname!r}"
            f" (import {parts[0]} before patching)")
    for depth, part in enumerate(parts[1:], start=1):
        obj = getattr(obj, part)
        if obj is None:
            raise RuntimeError(
                f"patch target must name an object, got None at {'.'.join(parts[:depth + 1])}")
    return obj


def patch(target: str, *args: Any, **kwargs: Any) -> Any:
    """``unittest.mock.patch`` whose mock wraps the patched object unless ``wraps`` is given.

    Args:
        target: Dotted name of the object to patch; its top-level module must be imported.
        *args: Passed to ``unittest.mock.patch``.
        **kwargs: Passed to ``unittest.mock.patch``; ``wraps`` defaults to the target itself.

    Returns:
        The patcher.
    """
    if "wraps" not in kwargs:
        kwargs["wraps"] = _import_object(target)
    return unittest.mock.patch(target, *args, **kwargs)
