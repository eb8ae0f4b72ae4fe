"""``chainer_compat.iterators``: dataset iterators (``SerialIterator``,
``MultithreadIterator``, ``MultiprocessIterator``, ``DaliIterator``) and the order samplers
that shuffle them.

Layer 8: re-exports its submodules.
"""

from __future__ import annotations

from chainer_compat.iterators.dali_iterator import DaliIterator
from chainer_compat.iterators.multiprocess_iterator import MultiprocessIterator
from chainer_compat.iterators.multithread_iterator import MultithreadIterator
from chainer_compat.iterators.order_samplers import OrderSampler, ShuffleOrderSampler
from chainer_compat.iterators.serial_iterator import SerialIterator

__all__ = [
    "DaliIterator",
    "MultiprocessIterator",
    "MultithreadIterator",
    "OrderSampler",
    "SerialIterator",
    "ShuffleOrderSampler",
]
