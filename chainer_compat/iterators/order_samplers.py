"""Order samplers: callables that an iterator asks for the order of the next epoch's indices.

Layer 8: imports numpy only.
"""

from __future__ import annotations

from typing import Any

import numpy


class OrderSampler:
    """Base class of order samplers.

    An iterator calls the sampler at the start and at the end of every epoch with the current
    order and position, and reads the next epoch in the order it returns.
    """

    def __call__(self, current_order: numpy.ndarray, current_position: int) -> numpy.ndarray:
        """Returns the order of the next epoch.

        Args:
            current_order: The 1-D array of dataset indices of the epoch just read.
            current_position: The iterator's position in that epoch.

        Returns:
            A 1-D array of dataset indices of the same length as ``current_order``.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement __call__(current_order, current_position)")


def _global_random_state() -> numpy.random.RandomState:
    """The RandomState object behind ``numpy.random.permutation`` and ``numpy.random.seed``."""
    return numpy.random.random.__self__  # type: ignore[attr-defined]


class ShuffleOrderSampler(OrderSampler):
    """Samples a fresh random permutation of the indices for every epoch.

    ``SerialIterator(dataset, n, shuffle=True)`` and
    ``SerialIterator(dataset, n, order_sampler=ShuffleOrderSampler())`` behave the same.

    Args:
        random_state: The ``numpy.random.RandomState`` to draw from; None draws from NumPy's
            global one, so ``numpy.random.seed`` fixes the order.
    """

    def __init__(self, random_state: Any = None) -> None:
        # compat: None means the global RandomState object itself, taken now, as in Chainer:
        # numpy.random.seed reseeds that object, and a deep copy or pickle of an iterator carries
        # its own snapshot, so the copy replays the original's shuffles.
        self._random = _global_random_state() if random_state is None else random_state

    def __call__(self, current_order: numpy.ndarray, current_position: int) -> numpy.ndarray:
        return self._random.permutation(len(current_order))
