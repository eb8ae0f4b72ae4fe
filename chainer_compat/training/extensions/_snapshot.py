"""``snapshot`` and ``snapshot_object``: extensions that save the trainer (or any object with a
``serialize`` method) to ``<trainer.out>/<filename>``.

Layer 8: imports ``configuration``, ``serializers``, ``training.extension`` and
``training.extensions.snapshot_writers``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

from chainer_compat import configuration
from chainer_compat.serializers import npz
from chainer_compat.training import extension
from chainer_compat.training.extensions import snapshot_writers
from chainer_compat.utils import argument

__all__ = ["snapshot", "snapshot_object"]

_NUM_RETAIN_DEPRECATED = "Argument `num_retain` is deprecated. Please use `n_retains` instead"


class _SerializedTarget(dict):  # type: ignore[type-arg]
    """The flat dict of a serialized object, as Chainer gives it to ``savefun``.

    Compat: it also has a ``serialize`` method that writes its items back, so that a
    ``savefun`` expecting an object (such as ``serializers.save_npz``) writes the same keys.
    """

    def serialize(self, serializer: Any) -> None:
        for key, value in self.items():
            serializer(key, value)


def _snapshot_files(pattern: str, path: str) -> list[tuple[float, str]]:
    """The files in ``path`` that match the text around the fields of ``pattern``, as
    ``(mtime, name)`` pairs, oldest first."""
    prefix = pattern.split("{")[0]
    suffix = pattern.split("}")[-1]
    names = [name for name in os.listdir(path) if name.startswith(prefix)
             and name.endswith(suffix)]
    return sorted((os.stat(os.path.join(path, name)).st_mtime, name) for name in names)


def _always_true() -> bool:
    return True


class _Snapshot(extension.Extension):
    """The extension :func:`snapshot` and :func:`snapshot_object` return."""

    trigger: Any = (1, "epoch")
    priority = -100

    def __init__(self, target: Any = None, condition: Callable[[], bool] | None = None,
                 writer: Any = None, filename: Any = "snapshot_iter_{.updater.iteration}",
                 snapshot_on_error: bool = False, n_retains: int = -1,
                 autoload: bool = False) -> None:
        self._target = target
        self.filename = filename
        self.condition = _always_true if condition is None else condition
        self.writer = snapshot_writers.SimpleWriter(npz.save_npz) if writer is None else writer
        self._snapshot_on_error = snapshot_on_error
        self.n_retains = n_retains
        self.autoload = autoload

    def initialize(self, trainer: Any) -> None:
        """Loads the latest matching snapshot if ``autoload``; arms the cleanup of old ones."""
        target = trainer if self._target is None else self._target
        outdir = trainer.out
        if self.autoload:
            found = _snapshot_files(self.filename, outdir) if os.path.isdir(outdir) else []
            if found:
                path = os.path.join(outdir, found[-1][1])
                npz.load_npz(path, target)
                if configuration.is_debug():
                    print("Snapshot loaded from", path)
            elif configuration.is_debug():
                print(f"No snapshot file that matches {self.filename} was found")
        if (hasattr(self.writer, "_add_cleanup_hook") and self.n_retains > 0
                and isinstance(self.filename, str)):
            def remove_stale() -> None:
                found = _snapshot_files(self.filename, outdir)
                for _, name in found[:max(0, len(found) - self.n_retains)]:
                    os.remove(os.path.join(outdir, name))

            self.writer._add_cleanup_hook(remove_stale)

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        """Takes a snapshot if ``snapshot_on_error``."""
        if self._snapshot_on_error:
            self._make_snapshot(trainer)

    def __call__(self, trainer: Any) -> None:
        """Takes a snapshot if ``condition()`` holds."""
        if self.condition():
            self._make_snapshot(trainer)

    def _make_snapshot(self, trainer: Any) -> None:
        target = trainer if self._target is None else self._target
        serialized = _SerializedTarget(npz.serialize(target))
        filename = self.filename
        filename = filename(trainer) if callable(filename) else filename.format(trainer)
        self.writer(filename, trainer.out, serialized)

    def finalize(self) -> None:
        """Finalizes the writer, if it can be."""
        if hasattr(self.writer, "finalize"):
            self.writer.finalize()


def snapshot(savefun: Callable[[str, Any], Any] | None = None,
             filename: Any = "snapshot_iter_{.updater.iteration}", **kwargs: Any) -> Any:
    """Returns an extension that saves the trainer (or ``target``) at each trigger.

    The default trigger is ``(1, 'epoch')`` and the priority ``-100`` (after every other
    extension). ``filename`` is formatted with the trainer (``'{.updater.iteration}'``) or, if
    callable, called with it. The file loads back with ``serializers.load_npz(path,
    trainer)``.

    Args:
        savefun: Called as ``savefun(path, serialized)`` with the flat dict of serialized
            values; ``serializers.save_npz`` when ``None``.
        filename: File name pattern or callable of the trainer.
        target: Object to save instead of the trainer (keyword only).
        condition: Callable of no argument; no snapshot when it returns ``False``.
        writer: Callable ``writer(filename, outdir, serialized)``; excludes ``savefun``.
        snapshot_on_error: Whether to also save when the training loop fails.
        n_retains: Keep only this many latest matching files (all when not positive).
        autoload: Whether to load the latest matching file when training starts.

    Returns:
        The extension.

    Raises:
        TypeError: If both ``savefun`` and ``writer`` are given, or an unknown keyword is.
    """
    if "num_retain" in kwargs:
        warnings.warn(_NUM_RETAIN_DEPRECATED, DeprecationWarning, stacklevel=1)
        kwargs["n_retains"] = kwargs.pop("num_retain")
    target, condition, writer, snapshot_on_error, n_retains, autoload = argument.parse_kwargs(
        kwargs, ("target", None), ("condition", None), ("writer", None),
        ("snapshot_on_error", False), ("n_retains", -1), ("autoload", False))
    if savefun is not None and writer is not None:
        # compat: Chainer's wording.
        raise TypeError("savefun and writer arguments cannot be specified together.")
    if writer is None:
        writer = snapshot_writers.SimpleWriter(npz.save_npz if savefun is None else savefun)
    return _Snapshot(target=target, condition=condition, writer=writer, filename=filename,
                     snapshot_on_error=snapshot_on_error, n_retains=n_retains,
                     autoload=autoload)


def snapshot_object(target: Any, filename: Any, savefun: Callable[[str, Any], Any] | None = None,
                    **kwargs: Any) -> Any:
    """Returns an extension that saves ``target`` (e.g. a model) at each trigger.

    It is :func:`snapshot` with ``target`` set; ``filename`` is still formatted with the
    trainer, e.g. ``'model_iter_{.updater.iteration}'``.

    Args:
        target: Object with a ``serialize`` method.
        filename: File name pattern or callable of the trainer.
        savefun: As for :func:`snapshot`.
        kwargs: The other keywords of :func:`snapshot`.

    Returns:
        The extension.
    """
    if "num_retain" in kwargs:
        warnings.warn(_NUM_RETAIN_DEPRECATED, DeprecationWarning, stacklevel=1)
        kwargs["n_retains"] = kwargs.pop("num_retain")
    return snapshot(target=target, filename=filename, savefun=savefun, **kwargs)
