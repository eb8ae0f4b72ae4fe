"""``DumpGraph`` (also ``dump_graph``): writes the computational graph of an observed
Variable as a DOT file at the first iteration, and a PNG next to it when Graphviz is found.

Layer 8: imports ``computational_graph``, ``configuration``, ``variable`` and
``training.extension``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

from chainer_compat import computational_graph, configuration, variable
from chainer_compat.training import extension
from chainer_compat.utils import argument

__all__ = ["DumpGraph", "is_graphviz_available", "is_return_code_zero"]

_VARIABLE_STYLE = {"shape": "octagon", "fillcolor": "#E0E0E0", "style": "filled"}
_FUNCTION_STYLE = {"shape": "record", "fillcolor": "#6495ED", "style": "filled"}


def is_return_code_zero(args: Sequence[str]) -> bool:
    """Returns whether the command ``args`` runs and exits with 0; its output is discarded.

    Args:
        args: The command and its arguments.
    """
    try:
        subprocess.check_call(list(args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (subprocess.CalledProcessError, OSError):
        return False
    return True


def is_graphviz_available() -> bool:
    """Returns whether Graphviz's ``dot`` command can be run."""
    return is_return_code_zero(["dot", "-V"])


class DumpGraph(extension.Extension):
    """Writes the computational graph behind an observed Variable, once.

    It turns ``chainer.config.keep_graph_on_report`` on when training starts, so that the
    reported Variable keeps its graph; at its first call (the first iteration, with its own
    trigger) it writes ``<trainer.out>/<filename>`` in DOT, renders ``<stem>.png`` with
    Graphviz if ``dot`` is found, and restores the flag. Keep its default trigger: while the
    flag is on, every reported Variable holds its whole graph.

    Args:
        root_name: Observation key of the Variable whose graph to dump, e.g.
            ``'main/loss'``.
        filename: Name of the DOT file; ``'cg.dot'`` when None. ``out_name`` is accepted as
            an alias.
        variable_style: DOT attributes of variable nodes (grey octagons by default).
        function_style: DOT attributes of function nodes (blue records by default).

    Raises:
        TypeError: (when called) If the observed value is not a Variable.
    """

    default_name = "dump_graph"

    def __init__(self, root_name: str, filename: str | None = None,
                 variable_style: Mapping[str, Any] | None = None,
                 function_style: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        out_name, = argument.parse_kwargs(kwargs, ("out_name", "cg.dot"))
        self._root_name = root_name
        self._filename: str = out_name if filename is None else filename
        self._variable_style = _VARIABLE_STYLE if variable_style is None else variable_style
        self._function_style = _FUNCTION_STYLE if function_style is None else function_style
        self._original_flag: bool | None = None
        self._flag_called = False

    def initialize(self, trainer: Any) -> None:
        """Turns ``keep_graph_on_report`` on, unless the graph was already dumped."""
        if not self._flag_called:
            self._original_flag = configuration.config.keep_graph_on_report
            configuration.config.keep_graph_on_report = True

    def trigger(self, trainer: Any) -> bool:  # type: ignore[override]
        """Fires at the first call only."""
        if self._flag_called:
            return False
        self._flag_called = True
        return True

    def __call__(self, trainer: Any) -> None:
        """Writes the graph, then restores ``keep_graph_on_report``."""
        try:
            root = trainer.observation[self._root_name]
            if not isinstance(root, variable.Variable):
                # compat: Chainer's wording.
                raise TypeError("root value is not a Variable")
            graph = computational_graph.build_computational_graph(
                [root], variable_style=self._variable_style,
                function_style=self._function_style)
            path = os.path.join(trainer.out, self._filename)
            with open(path, "w") as stream:
                stream.write(graph.dump())
            if is_graphviz_available():
                image = os.path.join(trainer.out, os.path.splitext(self._filename)[0] + ".png")
                subprocess.check_call(["dot", "-Tpng", path, "-o", image])
        finally:
            configuration.config.keep_graph_on_report = self._original_flag

    def serialize(self, serializer: Any) -> None:
        """Saves or loads whether the graph was dumped and the flag to restore."""
        self._original_flag = serializer("_original_flag", self._original_flag)
        self._flag_called = serializer("_flag_called", self._flag_called)
