"""``PickleDataset``: random access to objects pickled one after another into a single file,
and ``PickleDatasetWriter``, which writes such a file. The format is Chainer's: plain
consecutive ``pickle.dump`` records, so files move freely between Chainer and this package.

Layer 8: imports chainer_compat.dataset.dataset_mixin.
"""

from __future__ import annotations

import io
import multiprocessing.util
import pickle
import threading
from types import TracebackType
from typing import IO, Any

from chainer_compat.dataset.dataset_mixin import DatasetMixin

__all__ = [
    "PickleDataset",
    "PickleDatasetWriter",
    "open_pickle_dataset",
    "open_pickle_dataset_writer",
]


class PickleDatasetWriter:
    """Appends objects to a binary stream in the format :class:`PickleDataset` reads.

    Each :meth:`write` pickles one object right after the previous one. Use it as a context
    manager, or call :meth:`close`, to close the stream.

    Args:
        writer: A binary file-like object with ``write`` and ``tell``.
        protocol: The :mod:`pickle` protocol to write with.
    """

    def __init__(self, writer: IO[bytes], protocol: int = pickle.HIGHEST_PROTOCOL) -> None:
        self._positions: list[int] = []
        self._writer = writer
        self._protocol = protocol

    def close(self) -> None:
        """Closes the underlying stream."""
        self._writer.close()

    def __enter__(self) -> PickleDatasetWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def write(self, x: Any) -> None:
        """Appends the object ``x`` to the stream as one example."""
        position = self._writer.tell()
        pickle.dump(x, self._writer, protocol=self._protocol)
        self._positions.append(position)

    def flush(self) -> None:
        """Flushes the underlying stream, if it can be flushed."""
        if hasattr(self._writer, "flush"):
            self._writer.flush()


class PickleDataset(DatasetMixin):
    """A dataset of the objects pickled one after another in a seekable binary stream.

    The constructor reads the stream once to record where each object starts; each access
    then seeks there and unpickles one object, so a dataset larger than memory can be used.
    Use it as a context manager, or call :meth:`close`, to close the stream.

    Only read files you trust: unpickling can run arbitrary code.

    Example:
        >>> with open_pickle_dataset_writer(path) as writer:  # doctest: +SKIP
        ...     writer.write((1, 'a'))
        >>> with open_pickle_dataset(path) as dataset:  # doctest: +SKIP
        ...     dataset[0]
        (1, 'a')

    Args:
        reader: A binary file-like object that supports random access (``seekable()``).

    Raises:
        ValueError: If ``reader`` is not seekable.
    """

    def __init__(self, reader: IO[bytes] | io.RawIOBase) -> None:
        if not reader.seekable():
            # compat: Chainer's wording.
            raise ValueError(
                "reader must support random access: pass a seekable binary stream, got "
                f"{type(reader).__name__}")
        self._reader = reader
        self._positions: list[int] = []
        reader.seek(0)
        while True:
            position = reader.tell()
            try:
                pickle.load(reader)
            except EOFError:
                break
            self._positions.append(position)
        self._lock = threading.RLock()
        self._register_hook()

    def _register_hook(self) -> None:
        # compat: like Chainer, reopen the file in processes that multiprocessing forks (the
        # registry holds the dataset weakly), so parent and child do not share a file offset.
        multiprocessing.util.register_after_fork(self, PickleDataset._after_fork)

    def _after_fork(self) -> None:
        after_fork = getattr(self._reader, "after_fork", None)
        if callable(after_fork):
            after_fork()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()
        self._register_hook()

    def close(self) -> None:
        """Closes the stream; the dataset cannot be read afterwards."""
        with self._lock:
            self._reader.close()

    def __enter__(self) -> PickleDataset:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __len__(self) -> int:
        return len(self._positions)

    def get_example(self, index: int) -> Any:
        """Unpickles and returns the ``index``-th object (a negative one counts from the end).

        Raises:
            IndexError: If ``index`` is out of range.
        """
        with self._lock:
            self._reader.seek(self._positions[index])
            return pickle.load(self._reader)


class _FileReader(io.RawIOBase):
    """A read-only binary file that reopens itself in a forked child and when unpickled.

    A forked child shares the parent's open file description, offset included, so two
    processes seeking one descriptor would race; reopening gives each its own.
    """

    def __init__(self, path: str) -> None:
        super().__init__()
        self._path = path
        self._file = open(path, "rb")  # noqa: SIM115 - closed by close()

    def after_fork(self) -> None:
        """Reopens the file, so this process has its own offset."""
        self._file.close()
        self._file = open(self._path, "rb")  # noqa: SIM115 - closed by close()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_file"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._file = open(self._path, "rb")  # noqa: SIM115 - closed by close()

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    @property
    def closed(self) -> bool:
        return self._file.closed

    def fileno(self) -> int:
        return self._file.fileno()

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self._file.seekable()

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()

    def readinto(self, buffer: Any) -> int:
        return self._file.readinto(buffer)


def open_pickle_dataset(path: str) -> PickleDataset:
    """Opens the file at ``path`` in binary mode and returns a :class:`PickleDataset` on it.

    The file stays open until :meth:`PickleDataset.close` is called; use the dataset as a
    context manager to close it.

    Args:
        path: The path of a file written by :class:`PickleDatasetWriter`.

    Returns:
        The opened dataset.
    """
    return PickleDataset(_FileReader(path))


def open_pickle_dataset_writer(
    path: str, protocol: int = pickle.HIGHEST_PROTOCOL,
) -> PickleDatasetWriter:
    """Opens (truncating) the file at ``path`` in binary mode and returns a writer on it.

    The file stays open until :meth:`PickleDatasetWriter.close` is called; use the writer as a
    context manager to close it.

    Args:
        path: The path of the file to write.
        protocol: The :mod:`pickle` protocol to write with.

    Returns:
        The opened writer.
    """
    return PickleDatasetWriter(open(path, "wb"), protocol=protocol)  # noqa: SIM115
