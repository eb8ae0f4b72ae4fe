"""``WalkerAlias``: draws integers from a fixed discrete distribution in constant time per draw,
with Walker's alias method.

Layer 1: imports numpy, the backend and device_resident.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.device_resident import DeviceResident, DeviceResidentsVisitor

__all__ = ["WalkerAlias"]


class WalkerAlias(DeviceResident):
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
    def use_gpu(self) -> bool:
        """Whether the table lives on a CUDA device."""
        return backend.is_cupy_array(self.threshold)

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Visits the table's two arrays (``to_device`` and friends move them)."""
        super().device_resident_accept(visitor)
        self.threshold = visitor.visit_array(self.threshold)
        self.values = visitor.visit_array(self.values)

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
