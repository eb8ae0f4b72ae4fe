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

    The table splits the range into ``n`` equal columns; column ``k`` keeps its own value with
    probability ``threshold[k]`` and otherwise gives its alias. A draw picks a uniform point in
    ``[0, n)``: its integer part selects the column, its fractional part decides between the two.
    The table is built once in O(n); each draw is O(1).

    Args:
        probs: Non-negative weights, one per integer; they need not sum to one.

    Attributes:
        threshold: ``float32`` array of shape ``(n,)``: the probability that column ``k`` keeps
            its own value.
        values: ``int32`` array of shape ``(2 * n,)``: ``values[2 * k]`` is column ``k``'s own
            value and ``values[2 * k + 1]`` its alias (Chainer's layout).
    """

    def __init__(self, probs: Any) -> None:
        weights = numpy.asarray(probs, dtype=numpy.float64).ravel()
        if weights.size == 0 or (weights < 0).any() or not weights.sum() > 0:
            raise ValueError(
                "probs of WalkerAlias must be non-negative weights with a positive sum, got "
                f"{numpy.asarray(probs)!r}")
        probabilities = weights.astype(numpy.float32)
        probabilities /= probabilities.sum()
        count = len(probabilities)
        threshold = numpy.zeros(count, dtype=numpy.float32)
        values = numpy.zeros(2 * count, dtype=numpy.int32)
        # compat: Chainer's construction, so that a seeded draw gives Chainer's samples.
        # Entries in ascending (probability, index) order take the columns left to right; an
        # entry whose scaled mass exceeds one column tops up the earliest columns still short
        # of mass, becoming their alias. Masses are float64, as NumPy 1 computed them there;
        # columns never topped up keep alias 0 and a threshold of 1 up to rounding.
        filled = 0
        topped = 0
        for probability, index in sorted(zip(probabilities.tolist(), range(count))):
            mass = probability * count
            while mass > 1.0 and topped < filled:
                values[2 * topped + 1] = index
                mass -= 1.0 - float(threshold[topped])
                topped += 1
            threshold[filled] = mass
            values[2 * filled] = index
            filled += 1
        self.threshold = threshold
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
            # Compared in float64, as Chainer compares them.
            take_alias = (self.threshold[columns] < points - columns).astype(numpy.int32)
            return self.values[columns * 2 + take_alias]
