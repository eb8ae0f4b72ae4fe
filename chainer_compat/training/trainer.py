"""``Trainer``: the standard training loop (updates, then extensions by priority).

Layer 8: imports ``reporter``, ``serializers`` and the ``training`` helpers.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from chainer_compat import reporter as reporter_module
from chainer_compat import serializer as serializer_module
from chainer_compat.serializers import _checked
from chainer_compat.training import extension as extension_module
from chainer_compat.training import util
from chainer_compat.utils import argument

__all__ = ["Trainer"]


class _ExtensionEntry:
    """An extension with the trigger, priority and flag it was registered with."""

    def __init__(self, extension: Any, priority: int, trigger: Callable[[Any], bool],
                 call_before_training: bool) -> None:
        self.extension = extension
        self.trigger = trigger
        self.priority = priority
        self.call_before_training = call_before_training


class Trainer:
    """The standard training loop.

    Each iteration makes a fresh observation dict, runs ``updater.update()`` and then every
    extension whose trigger fires, highest priority first (registration order among equals),
    all inside ``reporter.scope(observation)``. The optimizers' target links are the
    reporter's observers, named ``<optimizer name>`` and ``<optimizer name>/<link path>``,
    so a ``chainer.report({'loss': loss}, model)`` lands as ``'main/loss'``.

    Args:
        updater: The :class:`Updater` that runs one update per iteration.
        stop_trigger: When to stop (anything :func:`get_trigger` takes; ``None`` never stops).
        out: Output directory of the extensions; created when ``run`` starts.
        extensions: Extensions to register with their defaults.

    Attributes:
        updater: The updater.
        stop_trigger: The stop trigger.
        observation: Values observed in the current (or last) iteration.
        out: Output directory.
        reporter: The :class:`~chainer.Reporter` of the loop.
    """

    def __init__(self, updater: Any, stop_trigger: Any = None, out: str = "result",
                 extensions: list[Any] | None = None) -> None:
        self.updater = updater
        self.stop_trigger = util.get_trigger(stop_trigger)
        self.observation: dict[str, Any] = {}
        self.out = out
        reporter = reporter_module.Reporter()
        for name, optimizer in updater.get_all_optimizers().items():
            reporter.add_observer(name, optimizer.target)
            reporter.add_observers(name, optimizer.target.namedlinks(skipself=True))
        self.reporter = reporter
        self._done = False
        self._extensions: dict[str, _ExtensionEntry] = {}
        self._start_at: float | None = None
        self._snapshot_elapsed_time = 0.0
        self._final_elapsed_time: float | None = None
        updater.connect_trainer(self)
        for extension in extensions or []:
            self.extend(extension)

    @property
    def is_before_training(self) -> bool:
        """Whether no update has been done yet (``updater.iteration == 0``)."""
        return bool(self.updater.iteration == 0)

    @property
    def elapsed_time(self) -> float:
        """Seconds spent in training, including the time before a resumed snapshot.

        Raises:
            RuntimeError: If the training has not been started.
        """
        if self._done:
            return self._final_elapsed_time  # type: ignore[return-value]
        if self._start_at is None:
            # compat: Chainer's wording.
            raise RuntimeError("training has not been started yet")
        return time.perf_counter() - self._start_at + self._snapshot_elapsed_time

    def extend(self, extension: Any, name: str | None = None, trigger: Any = None,
               priority: int | None = None, *, call_before_training: bool = False,
               **kwargs: Any) -> None:
        """Registers an extension.

        A name already taken gets the suffix ``_1``, ``_2``, ... The extension's ``name``
        attribute is set to the name it was registered under.

        Args:
            extension: The extension (any callable of the trainer).
            name: Its name; by default ``extension.name``, then ``extension.default_name``,
                then ``extension.__name__``.
            trigger: When to call it; by default ``extension.trigger``, else every iteration.
            priority: Call order (higher first); by default ``extension.priority``, else
                ``PRIORITY_READER``.
            call_before_training: Whether to also call it once before the first update.

        Raises:
            TypeError: If no name can be found, or the trigger is neither a callable, None
                nor a ``(period, unit)`` pair.
            ValueError: If the name is ``'training'``, or the trigger's unit is unknown.
        """
        if kwargs:
            argument.check_unexpected_kwargs(
                kwargs, invoke_before_training="invoke_before_training has been removed since "
                "Chainer v2.0.0. Use initializer= instead.")
            argument.assert_kwargs_empty(kwargs)
        if name is None:
            name = _extension_name(extension)
        if name == "training":
            # compat: Chainer's wording (as for the other errors of this class).
            raise ValueError('the name "training" is prohibited as an extension name')
        if trigger is None:
            trigger = getattr(extension, "trigger", (1, "iteration"))
        if priority is None:
            priority = getattr(extension, "priority", extension_module.PRIORITY_READER)
        # Before anything changes: a bad trigger leaves the extension and the trainer as they were.
        trigger = util.get_trigger(trigger)
        unique_name = name
        ordinal = 0
        while unique_name in self._extensions:
            ordinal += 1
            unique_name = f"{name}_{ordinal}"
        extension.name = unique_name
        self._extensions[unique_name] = _ExtensionEntry(
            extension, priority, trigger, call_before_training)

    def get_extension(self, name: str) -> Any:
        """Returns the extension registered under ``name``.

        Raises:
            ValueError: If there is none.
        """
        if name in self._extensions:
            return self._extensions[name].extension
        raise ValueError(f"extension {name} not found")

    def run(self, show_loop_exception_msg: bool = True) -> None:
        """Runs the training loop until the stop trigger fires.

        Extensions' ``initialize`` run first (except for those whose trigger is
        ``finished``), then extensions registered with ``call_before_training`` if no update
        was done yet, then the loop. If the loop raises, every extension's ``on_error`` runs
        and the exception propagates; extensions' ``finalize`` and ``updater.finalize`` run in
        all cases.

        Args:
            show_loop_exception_msg: Whether to print the loop's exception to stderr before
                the handlers run (so a hanging finalizer does not hide it).

        Raises:
            RuntimeError: If the trainer has already run.
        """
        if self._done:
            raise RuntimeError("cannot run training loop multiple times")
        try:
            os.makedirs(self.out)
        except OSError:
            # compat: Chainer goes on when ``out`` exists (even as a file); writers fail later.
            pass
        # sorted() is stable: equal priorities keep their registration order.
        entries = sorted(self._extensions.values(), key=lambda entry: entry.priority,
                         reverse=True)
        self._start_at = time.perf_counter()
        for entry in entries:
            initializer = getattr(entry.extension, "initialize", None)
            if initializer and not getattr(entry.trigger, "finished", False):
                initializer(self)

        update = self.updater.update
        reporter = self.reporter
        stop_trigger = self.stop_trigger
        if self.is_before_training:
            self.observation = {}
            with reporter.scope(self.observation):
                for entry in entries:
                    if entry.call_before_training:
                        entry.extension(self)
        try:
            while not stop_trigger(self):
                self.observation = {}
                with reporter.scope(self.observation):
                    update()
                    for entry in entries:
                        if entry.trigger(self):
                            entry.extension(self)
        except Exception as error:
            if show_loop_exception_msg:
                _print_exception("Exception in main training loop", error)
                sys.stderr.write("Will finalize trainer extensions and updater before "
                                 "reraising the exception.\n")
            for entry in entries:
                handler = getattr(entry.extension, "on_error", None)
                if handler:
                    # Every handler runs; their own failures are printed and dropped.
                    try:
                        handler(self, error, error.__traceback__)
                    except Exception as handler_error:
                        _print_exception("Exception in error handler", handler_error)
            raise
        finally:
            for entry in entries:
                finalize = getattr(entry.extension, "finalize", None)
                if finalize:
                    finalize()
            self.updater.finalize()
        self._final_elapsed_time = self.elapsed_time
        self._done = True

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the updater, the stop trigger, the extensions, their triggers and the
        elapsed time, under ``updater/``, ``stop_trigger/``, ``extensions/<name>/``,
        ``extension_triggers/<name>/`` and ``_snapshot_elapsed_time``."""
        self.updater.serialize(serializer["updater"])
        if hasattr(self.stop_trigger, "serialize"):
            self.stop_trigger.serialize(serializer["stop_trigger"])
        extensions = serializer["extensions"]
        triggers = serializer["extension_triggers"]
        for name, entry in self._extensions.items():
            if hasattr(entry.extension, "serialize"):
                entry.extension.serialize(extensions[name])
            if hasattr(entry.trigger, "serialize"):
                entry.trigger.serialize(triggers[name])
        if isinstance(serializer, serializer_module.Serializer):
            serializer("_snapshot_elapsed_time", self.elapsed_time)
        else:
            elapsed = serializer("_snapshot_elapsed_time", 0.0)
            if _checked.checks_only(serializer):  # NOTE [all-or-nothing loading]
                return
            # compat: a trainer saved when it had no elapsed time stores None (an object
            # array in npz); Chainer loads it as is, and it counts as no time here.
            if getattr(elapsed, "dtype", None) is not None and elapsed.dtype.kind == "O":
                elapsed = elapsed.item()
            self._snapshot_elapsed_time = 0.0 if elapsed is None else float(elapsed)


def _extension_name(extension: Any) -> str:
    for attribute in ("name", "default_name", "__name__"):
        name = getattr(extension, attribute, None)
        if name is not None:
            return str(name)
    raise TypeError("name is not given for the extension")


def _print_exception(title: str, error: BaseException) -> None:
    sys.stderr.write(f"{title}: {error}\n")
    sys.stderr.write("Traceback (most recent call last):\n")
    traceback.print_tb(error.__traceback__, file=sys.stderr)
