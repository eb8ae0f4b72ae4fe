"""Where datasets are cached: the dataset root (``CHAINER_DATASET_ROOT``, else
``~/.chainer/dataset``), per-dataset directories, ``cached_download`` and ``cache_or_load_file``.

Layer 8: imports only the standard library.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import urllib.request
from collections.abc import Callable
from typing import Any

__all__ = [
    "cache_or_load_file",
    "cached_download",
    "get_dataset_directory",
    "get_dataset_root",
    "set_dataset_root",
]

# compat: read once at import, as Chainer does; set_dataset_root changes it afterwards.
_dataset_root: str = os.environ.get(
    "CHAINER_DATASET_ROOT", os.path.join(os.path.expanduser("~"), ".chainer", "dataset"))


def get_dataset_root() -> str:
    """Returns the root directory where datasets are downloaded and cached."""
    return _dataset_root


def set_dataset_root(path: str) -> None:
    """Sets the root directory where datasets are downloaded and cached.

    It overrides the ``CHAINER_DATASET_ROOT`` environment variable, which is read when the
    module is imported (default ``~/.chainer/dataset``).

    Args:
        path: The new root directory.
    """
    global _dataset_root
    _dataset_root = path


def get_dataset_directory(dataset_name: str, create_directory: bool = True) -> str:
    """Returns the directory of a dataset under the dataset root.

    Args:
        dataset_name: The dataset's name; slashes in it make nested directories.
        create_directory: Whether to create the directory when it does not exist yet.

    Returns:
        The path ``<dataset root>/<dataset_name>``.
    """
    path = os.path.join(_dataset_root, dataset_name)
    if create_directory:
        os.makedirs(path, exist_ok=True)
    return path


def cached_download(url: str) -> str:
    """Downloads ``url`` once and returns the path of the cached copy.

    The copy lives in ``<dataset root>/_dl_cache/`` under the MD5 hex digest of the URL; a
    later call with the same URL returns that path without downloading.

    Args:
        url: The URL to download (anything :func:`urllib.request.urlretrieve` accepts).

    Returns:
        The path of the cached file.

    Raises:
        OSError: If the cache directory cannot be created or the download fails.
    """
    cache_path = _cache_path(url)
    cache_root = os.path.dirname(cache_path)
    os.makedirs(cache_root, exist_ok=True)
    if os.path.exists(cache_path):
        return cache_path
    with tempfile.TemporaryDirectory(dir=cache_root) as temporary_root:
        temporary_path = os.path.join(temporary_root, "dl")
        sys.stderr.write(f"Downloading from {url}...\n")
        sys.stderr.flush()
        _urlretrieve()(url, temporary_path)
        # os.replace is atomic: a concurrent downloader sees no file or the whole file.
        os.replace(temporary_path, cache_path)
    return cache_path


def _urlretrieve() -> Callable[[str, str], Any]:
    """``urllib.request.urlretrieve``, or six's name for it where six is imported.

    compat: Chainer downloads through ``six.moves.urllib.request.urlretrieve``, so tests of
    code written against Chainer patch that name; six's lazy module holds its own copy of
    the attribute, which a patch of it replaces. Unpatched, both are the same function.
    """
    six = sys.modules.get("six")
    moves = getattr(six, "moves", None)
    if moves is not None:
        retrieve = getattr(getattr(moves.urllib, "request", None), "urlretrieve", None)
        if callable(retrieve):
            return retrieve  # type: ignore[no-any-return]
    return urllib.request.urlretrieve


def _cache_path(url: str) -> str:
    """Where :func:`cached_download` keeps the copy of ``url`` (whether or not it exists)."""
    # The digest only names a cache file; it is no security check.
    digest = hashlib.md5(url.encode("utf-8"), usedforsecurity=False).hexdigest()
    return os.path.join(_dataset_root, "_dl_cache", digest)


def cache_or_load_file(path: str, creator: Callable[[str], Any],
                       loader: Callable[[str], Any]) -> Any:
    """Loads ``path`` with ``loader`` if it exists, else creates it with ``creator``.

    ``creator`` writes the file at a temporary path it is given and returns the content; the
    file is then moved to ``path``, unless another thread or process put one there first.

    Args:
        path: Where the cached file lives.
        creator: Called with a temporary path (no file there yet); writes the file and
            returns its content.
        loader: Called with ``path`` when the file exists; returns its content.

    Returns:
        What ``loader`` or ``creator`` returned.

    Raises:
        RuntimeError: If the dataset root cannot be created.
    """
    if os.path.exists(path):
        return loader(path)
    try:
        os.makedirs(_dataset_root, exist_ok=True)
    except OSError as error:
        raise RuntimeError(
            f"dataset root {_dataset_root!r} must be a creatable directory, got {error}: "
            f"cannot create dataset directory. Point CHAINER_DATASET_ROOT or "
            f"set_dataset_root() elsewhere.") from error
    # The temporary directory sits beside ``path`` so that os.replace is an atomic rename.
    directory = os.path.dirname(os.path.abspath(path))
    with tempfile.TemporaryDirectory(dir=directory) as temporary_directory:
        temporary_path = os.path.join(temporary_directory, os.path.basename(path))
        content = creator(temporary_path)
        if not os.path.exists(path):
            os.replace(temporary_path, path)
    return content
