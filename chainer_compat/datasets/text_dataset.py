"""``TextDataset``: random access to the lines of one text file, or of several files zipped
line by line, through an index of line offsets built once.

Layer 8: imports chainer_compat.dataset.dataset_mixin.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable, Sequence
from typing import Any

from chainer_compat.dataset.dataset_mixin import DatasetMixin

__all__ = ["TextDataset"]


def _per_file(option: str | Sequence[str | None] | None, count: int) -> list[str | None]:
    """Returns ``option`` repeated for ``count`` files, or as a list when it is one per file."""
    if option is None or isinstance(option, str):
        return [option] * count
    return list(option)


class TextDataset(DatasetMixin):
    """A dataset of the lines of text files, read from disk on each access.

    The constructor reads every file once and records where each line starts, so any line can
    be read later with one seek. Lines keep their line terminator, as ``readline`` returns it.
    The dataset can be pickled; the unpickled copy reopens the files and reuses the recorded
    offsets, so the files must not change in between.

    Args:
        paths: The path of one text file, whose examples are ``str`` lines, or a list of paths,
            whose ``i``-th example is the tuple of the ``i``-th lines of the files. The files
            must then have the same number of lines. (A list of one path gives ``str`` lines,
            as in Chainer.)
        encoding: The encoding of the files (see :func:`open`), or a list with one per file.
        errors: How to handle decoding errors (see :func:`open`), or a list with one per file.
        newline: How universal newlines work (see :func:`open`), or a list with one per file.
        filter_func: A callable taking one line of each file; lines (or rows of lines) for
            which it returns a false value are left out of the dataset.

    Raises:
        ValueError: If ``paths`` is empty, a per-file option list has the wrong length, or the
            files have different numbers of lines.
    """

    def __init__(
        self,
        paths: str | Sequence[str],
        encoding: str | Sequence[str | None] | None = None,
        errors: str | Sequence[str | None] | None = None,
        newline: str | Sequence[str | None] | None = None,
        filter_func: Callable[..., Any] | None = None,
    ) -> None:
        if isinstance(paths, str):
            paths = [paths]
        elif not paths:
            # compat: Chainer's wording.
            raise ValueError("at least one text file must be specified")
        self._paths = list(paths)
        count = len(self._paths)
        self._encoding = _per_file(encoding, count)
        self._errors = _per_file(errors, count)
        self._newline = _per_file(newline, count)
        if not (count == len(self._encoding) == len(self._errors) == len(self._newline)):
            raise ValueError(
                f"length of each option must match with the number of text files to read: "
                f"{count} files, got {len(self._encoding)} encodings, {len(self._errors)} "
                f"errors and {len(self._newline)} newlines")
        self._files: list[io.TextIOWrapper] = []
        self._open()
        try:
            kept, line_count = self._index_lines(filter_func)
        except BaseException:
            # The caller never gets the dataset, so nothing else would close the files.
            self.close()
            raise
        self._lines: Sequence[int] = range(line_count) if filter_func is None else kept
        self._lock = threading.Lock()

    def _index_lines(self, filter_func: Callable[..., Any] | None) -> tuple[list[int], int]:
        """Records where every line starts; returns the kept line numbers and the line count.

        Raises:
            ValueError: If the files have different numbers of lines.
        """
        # _bounds[k][n] is where line n of file k starts; the last entry is the end of file.
        self._bounds: tuple[list[int], ...] = tuple([0] for _ in self._files)
        kept: list[int] = []
        line_count = 0
        while True:
            lines = [file.readline() for file in self._files]
            if not all(lines):
                if any(lines):
                    raise ValueError(
                        "number of lines in files does not match: every file must have as "
                        f"many lines as the others, but some of {self._paths} ended first")
                return kept, line_count
            for bounds, file in zip(self._bounds, self._files, strict=True):
                bounds.append(file.tell())
            if filter_func is not None and filter_func(*lines):
                kept.append(line_count)
            line_count += 1

    def _open(self) -> None:
        self._files = []
        try:
            for path, encoding, errors, newline in zip(
                    self._paths, self._encoding, self._errors, self._newline, strict=True):
                self._files.append(
                    open(path, encoding=encoding, errors=errors, newline=newline))  # noqa: SIM115
        except BaseException:
            # Close the files already opened before the one that failed.
            self.close()
            raise

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        # Open files and locks cannot be pickled; __setstate__ makes new ones.
        del state["_files"]
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._open()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._lines)

    def close(self) -> None:
        """Closes the text files; the files are also closed when the dataset is collected.

        Raises:
            Exception: The last error raised while closing a file, after trying them all.
        """
        failure: BaseException | None = None
        for file in self._files:
            try:
                file.close()
            except Exception as error:  # noqa: BLE001 - close the others first, then re-raise
                failure = error
        if failure is not None:
            raise failure

    def get_example(self, idx: int) -> str | tuple[str, ...]:
        """Returns the ``idx``-th line (kept after filtering), or the tuple of lines of each file.

        Args:
            idx: A non-negative index below ``len(self)``.

        Raises:
            IndexError: If ``idx`` is negative or not below ``len(self)``.
        """
        # compat: negative indices are out of range, as in Chainer.
        if idx < 0 or len(self._lines) <= idx:
            raise IndexError(
                f"index must be in [0, {len(self._lines)}) for this TextDataset, got {idx}")
        line_number = self._lines[idx]
        with self._lock:
            for bounds, file in zip(self._bounds, self._files, strict=True):
                file.seek(bounds[line_number])
            lines = [file.readline() for file in self._files]
        if len(lines) == 1:
            return lines[0]
        return tuple(lines)
