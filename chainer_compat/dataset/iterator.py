"""``Iterator``: the base class of dataset iterators, which yield one minibatch (a list of
examples) per step and can be saved and restored through a serializer.

Layer 8: imports nothing from chainer_compat.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any


class Iterator:
    """Base class of dataset iterators.

    An iterator yields minibatches (lists of examples) through the iterator protocol.
    Implementations are expected to expose ``batch_size``, ``epoch`` (completed sweeps),
    ``epoch_detail`` (epochs as a float, e.g. 2.5 halfway through the third),
    ``previous_epoch_detail`` (``epoch_detail`` before the last step, None before the first)
    and ``is_new_epoch`` (whether the last step finished an epoch), and to save and restore
    their progress in :meth:`serialize`.

    An iterator is a context manager: leaving the ``with`` block calls :meth:`finalize`.
    """

    def __del__(self) -> None:
        self.finalize()

    def __iter__(self) -> Iterator:
        """Returns the iterator itself."""
        return self

    def __next__(self) -> Any:
        """Returns the next minibatch; raises StopIteration when the iteration is over."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement __next__ to return the next minibatch")

    def next(self) -> Any:
        """Returns the next minibatch: the same as ``next(iterator)``."""
        return self.__next__()

    def finalize(self) -> None:
        """Releases the resources the iterator holds (worker threads, for example).

        Does nothing by default; calling it more than once is harmless.
        """

    def __enter__(self) -> Iterator:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc_value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.finalize()

    def serialize(self, serializer: Any) -> None:
        """Saves or restores the progress of the iteration.

        Only state that changes while iterating belongs here, not settings the user passed,
        such as the batch size. Does nothing by default.

        Args:
            serializer: A serializer or deserializer (see :mod:`chainer.serializers`).
        """
