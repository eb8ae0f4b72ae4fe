"""``Updater``: the interface the Trainer drives (one ``update`` per iteration).

Layer 8: imports only the standard library.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Updater"]


class Updater:
    """Interface of updaters: objects that run one training step per ``update()`` call.

    An updater also exposes ``iteration``, ``epoch``, ``epoch_detail``,
    ``previous_epoch_detail`` and ``is_new_epoch``, which triggers read.
    """

    def connect_trainer(self, trainer: Any) -> None:
        """Called by the Trainer that owns this updater (nothing by default)."""

    def finalize(self) -> None:
        """Releases the resources (e.g. iterators) at the end of training."""
        raise NotImplementedError

    def get_optimizer(self, name: str) -> Any:
        """Returns the optimizer of the given name."""
        raise NotImplementedError

    def get_all_optimizers(self) -> dict[str, Any]:
        """Returns a dict of all optimizers by name."""
        raise NotImplementedError

    def update(self) -> None:
        """Runs one update step and advances the iteration count."""
        raise NotImplementedError

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the updater's state."""
        raise NotImplementedError
