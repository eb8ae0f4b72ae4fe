"""``PrintReport``: prints the entries of a :class:`LogReport` as a table, one row per entry.

Layer 8: imports ``training.extension`` and ``training.extensions.log_report``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO, Any

from chainer_compat.training import extension
from chainer_compat.training.extensions import log_report as log_report_module

__all__ = ["PrintReport"]


class PrintReport(extension.Extension):
    """Writes the header once, then a row for each new entry of the log.

    Each column is ``max(10, len(name))`` characters wide and columns are separated by two
    spaces; values are written with the ``g`` format, missing ones as blanks. Each row
    starts with the ANSI sequence that clears the rest of the screen.

    Args:
        entries: Keys of the log entries to print, in column order.
        log_report: The :class:`LogReport` to read, or the name it was registered under
            (a LogReport object is called by this extension itself).
        out: Stream to write to.
    """

    def __init__(self, entries: Sequence[str], log_report: Any = "LogReport",
                 out: IO[str] = sys.stdout) -> None:
        self._entries = entries
        self._log_report = log_report
        self._out = out
        self._log_len = 0
        widths = [max(10, len(entry)) for entry in entries]
        self._header: str | None = "  ".join(
            f"{entry:{width}}" for entry, width in zip(entries, widths)) + "\n"
        self._templates = [(entry, f"{{:<{width}g}}  ", " " * (width + 2))
                           for entry, width in zip(entries, widths)]

    def __call__(self, trainer: Any) -> None:
        """Prints the header (first call) and the log entries not printed yet."""
        out = self._out
        if self._header:
            out.write(self._header)
            self._header = None
        log_report = self._log_report
        if isinstance(log_report, str):
            log_report = trainer.get_extension(log_report)
        elif isinstance(log_report, log_report_module.LogReport):
            log_report(trainer)
        else:
            # compat: Chainer's wording.
            raise TypeError(f"log report has a wrong type {type(log_report)}")
        log = log_report.log
        while len(log) > self._log_len:
            out.write("\x1b[J")
            self._print(log[self._log_len])
            self._log_len += 1

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the LogReport given as an object (under ``_log_report``)."""
        if isinstance(self._log_report, log_report_module.LogReport):
            self._log_report.serialize(serializer["_log_report"])

    def _print(self, observation: dict[str, Any]) -> None:
        out = self._out
        for entry, template, empty in self._templates:
            out.write(template.format(observation[entry]) if entry in observation else empty)
        out.write("\n")
        if hasattr(out, "flush"):
            out.flush()
