"""Trainer extensions: the ``Extension`` base class, ``make_extension`` and the priorities.

Layer 8: imports only ``utils.argument``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer_compat.utils import argument

__all__ = ["PRIORITY_EDITOR", "PRIORITY_READER", "PRIORITY_WRITER", "Extension",
           "make_extension"]

PRIORITY_WRITER = 300
"""Priority of extensions that write observations (called first)."""
PRIORITY_EDITOR = 200
"""Priority of extensions that edit observations already written."""
PRIORITY_READER = 100
"""Priority of extensions that only read observations (called last)."""

_INVOKE_BEFORE_TRAINING_REMOVED = (
    "invoke_before_training has been removed since Chainer v2.0.0. Use {} instead.")


class Extension:
    """Base class of trainer extensions: a callable run on the trainer after each update.

    Subclasses override ``__call__`` and may override ``initialize``, ``finalize``,
    ``on_error`` and ``serialize``. The class attributes give the defaults that
    :meth:`Trainer.extend` uses when it is not told otherwise.

    Attributes:
        trigger: Default trigger, ``(1, 'iteration')``.
        priority: Default priority, ``PRIORITY_READER``.
        name: Name given by the trainer on registration; ``None`` before.
    """

    trigger: Any = (1, "iteration")
    priority: int = PRIORITY_READER
    name: str | None = None

    @property
    def default_name(self) -> str:
        """The name used when none is given: the class name."""
        return type(self).__name__

    def __call__(self, trainer: Any) -> Any:
        """Runs the extension on ``trainer``."""
        raise NotImplementedError("Extension implementation must override __call__.")

    def __getattr__(self, name: str) -> Any:
        # compat: Chainer names the replacement of the removed pre-v2 hook.
        if name == "invoke_before_training":
            raise AttributeError(
                _INVOKE_BEFORE_TRAINING_REMOVED.format("Extension.initialize"))
        raise AttributeError(f"{type(self).__name__} object has no attribute {name}")

    def finalize(self) -> None:
        """Releases resources at the end of the training loop (no-op by default)."""

    def initialize(self, trainer: Any) -> None:
        """Sets the trainer state up before the loop starts (also after resuming)."""

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        """Handles an exception raised in the training loop, before finalization."""

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the extension's state (nothing by default)."""


def make_extension(trigger: Any = None, default_name: str | None = None,
                   priority: int | None = None, finalizer: Callable[[], Any] | None = None,
                   initializer: Callable[[Any], Any] | None = None,
                   on_error: Callable[[Any, BaseException, Any], Any] | None = None,
                   **kwargs: Any) -> Callable[[Any], Any]:
    """Decorator that turns a function of the trainer into an extension.

    It sets the attributes :meth:`Trainer.extend` reads on the function and returns it.

    Args:
        trigger: Default trigger; ``(1, 'iteration')`` when ``None``.
        default_name: Default name; the function's ``__name__`` when ``None``.
        priority: Default priority; ``PRIORITY_READER`` when ``None``.
        finalizer: Called with no argument at the end of the training loop.
        initializer: Called with the trainer before the training loop.
        on_error: Called with ``(trainer, exception, traceback)`` when the loop fails.

    Returns:
        The decorator.
    """
    if kwargs:
        argument.check_unexpected_kwargs(
            kwargs, invoke_before_training=_INVOKE_BEFORE_TRAINING_REMOVED.format("initializer="))
        argument.assert_kwargs_empty(kwargs)
    chosen_trigger = Extension.trigger if trigger is None else trigger
    chosen_priority = Extension.priority if priority is None else priority

    def decorator(function: Any) -> Any:
        function.trigger = chosen_trigger
        function.default_name = default_name or function.__name__
        function.priority = chosen_priority
        function.finalize = finalizer
        function.on_error = on_error
        function.initialize = initializer
        return function

    return decorator
