"""``unchain_variables``: cuts the graphs of the observed Variables after the extensions of an
iteration have run, while ``keep_graph_on_report`` was on.

Layer 8: imports ``configuration``, ``variable`` and ``training.extension``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import configuration, variable
from chainer_compat.training import extension

__all__ = ["unchain_variables"]


class unchain_variables(extension.Extension):  # noqa: N801  (Chainer's name)
    """Calls ``unchain_backward()`` on every Variable in the observation, to free graphs that
    an extension kept alive.

    It fires at an iteration when ``chainer.config.keep_graph_on_report`` was on at its
    previous check, and has priority 0, so it runs after the other extensions. A last resort
    for an extension that keeps graphs and cannot release them itself.
    """

    priority = 0

    def __init__(self) -> None:
        self._prev_flag: bool | None = None

    def initialize(self, _: Any) -> None:
        """Records the current ``keep_graph_on_report``."""
        self._prev_flag = configuration.config.keep_graph_on_report

    def trigger(self, _: Any) -> bool:  # type: ignore[override]
        """Fires when the flag was on at the previous check; records the current flag."""
        fire = self._prev_flag
        self._prev_flag = configuration.config.keep_graph_on_report
        return bool(fire)

    def __call__(self, trainer: Any) -> None:
        """Unchains every observed Variable."""
        for value in trainer.observation.values():
            if isinstance(value, variable.Variable):
                value.unchain_backward()
