"""``TransformDataset``: a dataset whose examples are a function of a base dataset's.

Layer 8: imports ``dataset.dataset_mixin``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer_compat.dataset.dataset_mixin import DatasetMixin


class TransformDataset(DatasetMixin):
    """A dataset whose ``i``-th example is ``transform(dataset[i])``, computed on access.

    ``transform`` receives the base dataset's example itself, not a copy: it should build
    new arrays (``x = x - 0.5``) rather than change its input in place (``x -= 0.5``).

    Args:
        dataset: The base dataset (``__getitem__`` and ``__len__``).
        transform: A function from a base example to the transformed example.
    """

    def __init__(self, dataset: Any, transform: Callable[[Any], Any]) -> None:
        self._dataset = dataset
        self._transform = transform

    def __len__(self) -> int:
        return len(self._dataset)

    def get_example(self, i: int) -> Any:
        """Returns ``transform(dataset[i])``."""
        return self._transform(self._dataset[i])
