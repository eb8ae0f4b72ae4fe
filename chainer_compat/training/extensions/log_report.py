"""``LogReport``: averages observations over an interval and keeps them as a log (and a JSON
file in the trainer's output directory).

Layer 8: imports ``reporter``, ``serializer``, ``serializers._checked`` and the ``training``
helpers.
"""

from __future__ import annotations

import json
import os
import tempfile
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from chainer_compat import reporter as reporter_module
from chainer_compat import serializer as serializer_module
from chainer_compat.serializers import _checked
from chainer_compat.training import extension, util
from chainer_compat.utils import argument

__all__ = ["LogReport"]


class LogReport(extension.Extension):
    """Accumulates the observations and appends their means to a log at each interval.

    Each log entry holds the means of the observed scalar values plus ``'epoch'``,
    ``'iteration'`` and ``'elapsed_time'``. After each entry the whole log is written as a
    JSON list to ``<trainer.out>/<filename>`` (through a temporary file, so a reader never
    sees half a file). An entry is also made when the extension is called before training.

    Args:
        keys: Observation keys to keep; all when ``None``.
        trigger: Interval of the log entries (anything :func:`get_trigger` takes). The
            extension itself must run every iteration, which is its default.
        postprocess: Called with each entry (a dict) before it is stored; may edit it.
        filename: Name of the JSON file, formatted with the entry's values; ``'log'`` when
            ``None``. The deprecated ``log_name`` keyword is also accepted; passing
            ``log_name=None`` writes no file.
    """

    def __init__(self, keys: Iterable[str] | None = None, trigger: Any = (1, "epoch"),
                 postprocess: Callable[[dict[str, Any]], Any] | None = None,
                 filename: str | None = None, **kwargs: Any) -> None:
        self._keys = keys
        self._trigger = util.get_trigger(trigger)
        self._postprocess = postprocess
        self._log: list[dict[str, Any]] = []
        log_name, = argument.parse_kwargs(kwargs, ("log_name", "log"))
        self._log_name: str | None = log_name if filename is None else filename
        self._init_summary()

    def __call__(self, trainer: Any) -> None:
        """Adds the current observation; at interval ends, appends an entry and writes the
        log."""
        observation = trainer.observation
        if self._keys is None:
            self._summary.add(observation)
        else:
            self._summary.add({key: observation[key] for key in self._keys
                               if key in observation})
        if not (trainer.is_before_training or self._trigger(trainer)):
            return
        entry = {name: float(value) for name, value in self._summary.compute_mean().items()}
        updater = trainer.updater
        entry["epoch"] = updater.epoch
        entry["iteration"] = updater.iteration
        entry["elapsed_time"] = trainer.elapsed_time
        if self._postprocess is not None:
            self._postprocess(entry)
        self._log.append(entry)
        if self._log_name is not None:
            self._write(trainer.out, self._log_name.format(**entry))
        self._init_summary()

    def _write(self, out: str, name: str) -> None:
        # Written in a private folder, then moved into place: readers never see half a log, and
        # the file gets the umask's usual permissions (mkstemp's own file would be 0600).
        with tempfile.TemporaryDirectory(prefix=name, dir=out) as folder:
            temporary_path = os.path.join(folder, name)
            with open(temporary_path, "w") as stream:
                json.dump(self._log, stream, indent=4)
            os.replace(temporary_path, os.path.join(out, name))

    @property
    def log(self) -> list[dict[str, Any]]:
        """The entries so far: a list of dicts."""
        return self._log

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the trigger (``_trigger``), the running summary (``_summary``) and
        the log as JSON (``_log``)."""
        if hasattr(self._trigger, "serialize"):
            self._trigger.serialize(serializer["_trigger"])
        try:
            self._summary.serialize(serializer["_summary"])
        except KeyError:
            warnings.warn("The statistics are not saved.", stacklevel=2)
        if isinstance(serializer, serializer_module.Serializer):
            serializer("_log", json.dumps(self._log))
        else:
            log = _checked.load_json(serializer, "_log")
            if not _checked.checks_only(serializer):  # NOTE [all-or-nothing loading]
                self._log = log

    def _init_summary(self) -> None:
        self._summary = reporter_module.DictSummary()
