"""``DaliIterator`` (experimental): an iterator over the minibatches of an NVIDIA DALI pipeline,
with the epoch bookkeeping of the other iterators.

Layer 8: imports ``dataset.iterator``, ``serializers._checked`` and ``utils.experimental``;
never imports DALI itself.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.dataset.iterator import Iterator
from chainer_compat.serializers import _checked
from chainer_compat.utils.experimental import experimental

__all__ = ["DaliIterator"]


class DaliIterator(Iterator):
    """Iterates over the minibatches a DALI pipeline produces (experimental).

    The iterator only calls the pipeline's methods, so any object with DALI's ``Pipeline``
    interface works: ``build()`` (called once, at the first minibatch), ``epoch_size()`` (a
    dict of reader name to number of examples; the first value is the epoch size),
    ``run()`` (the next minibatch, returned as is) and the ``batch_size`` attribute.

    Args:
        pipeline: The DALI pipeline.
        repeat: Whether to loop over the data forever; if False, iteration stops after the
            first epoch.

    Warns:
        FutureWarning: The API is experimental (``chainer.disable_experimental_feature_warning``
            silences it).
    """

    current_position: int
    epoch: int
    epoch_size: int
    is_new_epoch: bool
    _previous_epoch_detail: float

    def __init__(self, pipeline: Any, repeat: bool = True) -> None:
        experimental("DaliIterator")
        self.pipeline = pipeline
        self._repeat = repeat
        self._is_build = False
        # compat: a stand-in until build() tells the real size, so epoch_detail is defined.
        self.epoch_size = 1
        self.reset()

    def __next__(self) -> Any:
        """Runs the pipeline once and returns its output; the pipeline is built on first use.

        Raises:
            StopIteration: When ``repeat`` is False and the first epoch is over.
        """
        if not self._is_build:
            self.pipeline.build()
            self._is_build = True
            self.epoch_size = next(iter(self.pipeline.epoch_size().values()))
        if not self._repeat and self.epoch > 0:
            raise StopIteration
        self._previous_epoch_detail = self.epoch_detail
        end = self.current_position + self.batch_size
        # An end exactly at the epoch size also closes the epoch, as in the other iterators.
        if end >= self.epoch_size:
            # compat: a non-repeating iterator restarts at 0 (it stops before reading on).
            self.current_position = end - self.epoch_size if self._repeat else 0
            self.epoch += 1
            self.is_new_epoch = True
        else:
            self.current_position = end
            self.is_new_epoch = False
        return self.pipeline.run()

    next = __next__

    @property
    def batch_size(self) -> int:
        """The pipeline's batch size."""
        return self.pipeline.batch_size

    @property
    def epoch_detail(self) -> float:
        """Epochs done as a float: ``epoch + current_position / epoch_size``."""
        return self.epoch + self.current_position / self.epoch_size

    @property
    def previous_epoch_detail(self) -> float | None:
        """``epoch_detail`` before the last minibatch; None before the first."""
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    @property
    def repeat(self) -> bool:
        """Whether the iterator loops over the data forever."""
        return self._repeat

    def reset(self) -> None:
        """Goes back to the start of the first epoch (the pipeline itself is not reset)."""
        self.current_position = 0
        self.epoch = 0
        self.is_new_epoch = False
        # -1 stands for "no minibatch yet" (previous_epoch_detail is then None).
        self._previous_epoch_detail = -1.0

    def serialize(self, serializer: Any) -> None:
        """Saves or restores ``current_position``, ``epoch``, ``is_new_epoch`` and
        ``previous_epoch_detail``.

        A snapshot without ``previous_epoch_detail`` (older Chainer) loads too: the value is
        then estimated as one minibatch before the restored position.
        """
        self.current_position = serializer("current_position", self.current_position)
        self.epoch = serializer("epoch", self.epoch)
        self.is_new_epoch = serializer("is_new_epoch", self.is_new_epoch)
        try:
            self._previous_epoch_detail = serializer(
                "previous_epoch_detail", self._previous_epoch_detail)
        except KeyError:
            if _checked.checks_only(serializer):  # NOTE [all-or-nothing loading]
                return
            estimate = (self.epoch
                        + (self.current_position - self.batch_size) / self.epoch_size)
            self._previous_epoch_detail = max(estimate, 0.0) if self.epoch_detail > 0 else -1.0
