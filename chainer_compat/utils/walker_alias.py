"""``WalkerAlias``: draws integers from a fixed discrete distribution in constant time per draw,
with Walker's alias method.

Layer 1: imports numpy and the backend.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend

__all__ = ["WalkerAlias"]


class WalkerAlias:
    """Sampler of integers ``i`` in ``[0, len(probs))`` with probability ``probs[i] / sum(probs)``.

    The table splits the range into ``n`` equal columns; column ``i`` keeps ``i`` with
    probability ``threshold[i]`` and otherwise gives its alias. A draw picks a uniform point in
    ``[0, n)``: its integer part selects the column, its fractional part decides between the two.
    The table is built once in O(n); each draw is O(1).

    Args:
        probs: Non-negative weights, one per integer; they need not sum to one.

    Attributes:
        threshold: ``float32`` array of shape ``(n,)``: the probability that column ``i`` keeps
            ``i``.
        values: ``int32`` array of shape ``(2 * n,)``: ``values[2 * i]`` is ``i`` and
            ``values[2 * i + 1]`` its alias.
    """

    def __init__(self, probs: Any) -> None:
        weights = numpy.asarray(probs, dtype=numpy.float64).ravel()
        if weights.size == 0 or (weights < 0).any() or not weights.sum() > 0:
            raise ValueError(
                "probs of WalkerAlias must be non-negative weights with a positive sum, got "
                f"{numpy.asarray(probs)!r}")
        count = len(weights)
        # Each column holds mass 1 after scaling; small columns are topped up by large ones.
        scaled = weights * count / weights.sum()
        threshold = numpy.ones(count, dtype=numpy.float64)
        alias = numpy.arange(count, dtype=numpy.int32)
        small = [i for i in range(count) if scaled[i] < 1.0]
        large = [i for i in range(count) if scaled[i] >= 1.0]
        while small and large:
            low = small.pop()
            high = large[-1]
            threshold[low] = scaled[low]
            alias[low] = high
            scaled[high] -= 1.0 - scaled[low]
            if scaled[high] < 1.0:
                large.pop()
                small.append(high)
        # Whatever remains holds mass 1 up to rounding: it always keeps its own value.
        values = numpy.empty(2 * count, dtype=numpy.int32)
        values[0::2] = numpy.arange(count, dtype=numpy.int32)
        values[1::2] = alias
        self.threshold = threshold.astype(numpy.float32)
        self.values = values
        self._device: backend.Device = backend.get_device("@numpy")

    @property
    def device(self) -> backend.Device:
        """The device the table lives on."""
        return self._device

    @property
    def use_gpu(self) -> bool:
        """Whether the table lives on a CUDA device."""
        return backend.is_cupy_array(self.threshold)

    def to_device(self, device: Any) -> WalkerAlias:
        """Moves the table to ``device`` (anything :func:`backend.get_device` accepts)."""
        target = backend.get_device(device)
        self.threshold = target.send(self.threshold)
        self.values = target.send(self.values)
        self._device = target
        return self

    def to_gpu(self, device: Any = None) -> WalkerAlias:
        """Moves the table to a CUDA device: the current one when ``device`` is None."""
        if device is None:
            device = backend.current_cuda_device_id()
        return self.to_device(("@cupy", device) if isinstance(device, int) else device)

    def to_cpu(self) -> WalkerAlias:
        """Moves the table to the host."""
        return self.to_device("@numpy")

    def sample(self, shape: Any) -> Any:
        """Returns an ``int32`` array of the given shape drawn from the distribution.

        Uses the global random state of the table's array module (``numpy.random`` or
        ``cupy.random``).
        """
        xp = self._device.xp
        with backend.using_device(self._device):
            count = len(self.threshold)
            points = xp.random.uniform(0, count, shape)
            columns = xp.minimum(points.astype(numpy.int32), count - 1)  # guards a draw of n
            fractions = (points - columns).astype(self.threshold.dtype)
            take_alias = (self.threshold[columns] < fractions).astype(numpy.int32)
            return self.values[columns * 2 + take_alias]
