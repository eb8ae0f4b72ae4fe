"""Errors for the checks Chainer makes with a bare ``assert``.

Layer 1: imports nothing from chainer_compat.

NOTE [bare asserts]: where Chainer rejects bad input with ``assert`` (so an AssertionError, or
nothing at all under ``python -O``), we always check, and raise an error that is both the type
our style calls for and the AssertionError that code written against Chainer may catch.
"""

from __future__ import annotations

__all__ = ["AssertRuntimeError", "AssertTypeError", "AssertValueError", "ZeroDivisionValueError"]


class AssertValueError(ValueError, AssertionError):
    """A bad value Chainer rejects with ``assert`` (NOTE [bare asserts])."""


class AssertRuntimeError(RuntimeError, AssertionError):
    """A failed run-time condition Chainer checks with ``assert`` (NOTE [bare asserts])."""


class AssertTypeError(TypeError, AssertionError):
    """An argument of the wrong type Chainer rejects with ``assert`` (NOTE [bare asserts])."""


class ZeroDivisionValueError(ValueError, ZeroDivisionError):
    """A zero Chainer divides by before it checks it, failing with ZeroDivisionError.

    Like the classes above (NOTE [bare asserts]): we check first and raise the ValueError our
    style calls for, which is also the ZeroDivisionError code written against Chainer may catch.
    """
