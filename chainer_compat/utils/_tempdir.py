"""``tempdir``: a temporary directory that lives exactly as long as a ``with`` block.

Layer 1: imports only the standard library.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def tempdir(**kwargs: Any) -> Iterator[str]:
    """Creates a temporary directory, yields its path and removes it with its contents on exit.

    Args:
        kwargs: ``ignore_errors`` (default False) is passed to ``shutil.rmtree`` on removal;
            every other keyword (``suffix``, ``prefix``, ``dir``) goes to ``tempfile.mkdtemp``.

    Yields:
        The path of the new directory.
    """
    ignore_errors = kwargs.pop("ignore_errors", False)
    path = tempfile.mkdtemp(**kwargs)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=ignore_errors)
