"""``observe_value`` and ``observe_lr``: extensions that put a value into the observation.

Layer 8: imports ``training.extension``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer_compat.training import extension

__all__ = ["observe_lr", "observe_value"]


def observe_value(observation_key: str, target_func: Callable[[Any], Any]) -> Any:
    """Returns an extension that stores ``target_func(trainer)`` as
    ``trainer.observation[observation_key]``.

    Its default trigger is ``(1, 'epoch')`` and its priority ``PRIORITY_WRITER``, so a
    :class:`LogReport` called in the same iteration sees the value.

    Args:
        observation_key: Key to store the value under.
        target_func: Function of the trainer giving the value.

    Returns:
        The extension.
    """
    @extension.make_extension(trigger=(1, "epoch"), priority=extension.PRIORITY_WRITER)
    def _observe_value(trainer: Any) -> None:
        trainer.observation[observation_key] = target_func(trainer)

    return _observe_value


def observe_lr(optimizer_name: str = "main", observation_key: str = "lr") -> Any:
    """Returns an extension that observes the ``lr`` of an optimizer of the updater.

    Args:
        optimizer_name: Name of the optimizer in the updater.
        observation_key: Key to store the learning rate under.

    Returns:
        The extension.
    """
    return observe_value(
        observation_key, lambda trainer: trainer.updater.get_optimizer(optimizer_name).lr)
