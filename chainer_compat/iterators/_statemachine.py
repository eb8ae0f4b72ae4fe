"""The position of an iterator, at the path where Chainer 7.8.1 defines it, so that pickled
iterators load from either library (NOTE [pickles] in variable.py).

Layer 8: imports numpy only.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy


class IteratorState(NamedTuple):
    """Where an iterator stands; ``order`` is None when examples are read in index order."""

    current_position: int
    epoch: int
    is_new_epoch: bool
    order: numpy.ndarray | None
