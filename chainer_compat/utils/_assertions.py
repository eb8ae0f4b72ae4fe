"""Errors for the checks Chainer makes with a bare ``assert``.

Layer 1: imports nothing from chainer_compat.

NOTE [bare asserts]: where Chainer rejects bad input with ``assert`` (so an AssertionError, or
nothing at all under ``python -O``), we always check, and raise an error that is both the type
our style calls for and the AssertionError that code written against Chainer may catch.
"""

from __future__ import annotations

__all__ = ["AssertRuntimeError", "AssertTypeError", "AssertValueError"]


class AssertValueError(ValueError, AssertionError):
    """A bad value Chainer rejects with ``assert`` (NOTE [bare asserts])."""


class AssertRuntimeError(RuntimeError, AssertionError):
    """A failed run-time condition Chainer checks with ``assert`` (NOTE [bare asserts])."""


class AssertTypeError(TypeError, AssertionError):
    """An argument of the wrong type Chainer rejects with ``assert`` (NOTE [bare asserts])."""
