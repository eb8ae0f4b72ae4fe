"""``PlotReport``: averages observations over an interval and plots them against the epoch or
iteration into an image file. matplotlib is imported only when it is needed.

Layer 8: imports ``reporter``, ``serializer``, ``serializers._checked`` and the ``training``
helpers.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy

from chainer_compat import reporter as reporter_module
from chainer_compat import serializer as serializer_module
from chainer_compat.serializers import _checked
from chainer_compat.training import extension, util
from chainer_compat.utils import argument

__all__ = ["PlotReport"]

_MISSING_MATPLOTLIB = ("matplotlib is not installed on your environment, so nothing will be "
                       "plotted at this time. Please install matplotlib to plot figures.\n\n"
                       "  $ pip install matplotlib\n")

# Whether matplotlib imports; None until first asked, so importing this module stays cheap.
_available: bool | None = None


def _check_available() -> bool:
    """Returns whether matplotlib can be used, warning (each time) when it cannot."""
    global _available
    if _available is None:
        try:
            import matplotlib  # noqa: F401  optional dependency: only plots need it
            _available = True
        except (ImportError, TypeError):
            _available = False
    if not _available:
        # compat: Chainer warns at every check, not once.
        warnings.warn(_MISSING_MATPLOTLIB, stacklevel=3)
    return _available


class PlotReport(extension.Extension):
    """Plots the means of observed values over intervals, redrawing the image at each
    interval end.

    At each interval end (and when called before training) the mean of each key over the
    interval is appended to that key's series as ``(x, mean)``, where ``x`` is the current
    ``x_key`` (``'epoch'`` or ``'iteration'``), and all series are drawn into
    ``<trainer.out>/<filename>``. The extension itself should run every iteration, its
    default trigger. Without matplotlib it warns and does nothing.

    matplotlib picks its backend when ``matplotlib.pyplot`` is first imported; on a machine
    without a display, call ``matplotlib.use('Agg')`` before training.

    Args:
        y_keys: Observation key or keys to plot.
        x_key: ``'epoch'`` or ``'iteration'``.
        trigger: Interval of the plotted points (anything :func:`get_trigger` takes).
        postprocess: Called as ``postprocess(figure, axes, summary)`` before the figure is
            saved; may change the figure.
        filename: Name of the image file; ``'plot.png'`` when None. ``file_name`` is accepted
            as an alias.
        marker: Marker of the points; None for none.
        grid: Whether to draw a grid.
    """

    def __init__(self, y_keys: str | Iterable[str], x_key: str = "iteration",
                 trigger: Any = (1, "epoch"), postprocess: Callable[..., Any] | None = None,
                 filename: str | None = None, marker: str | None = "x", grid: bool = True,
                 **kwargs: Any) -> None:
        file_name, = argument.parse_kwargs(kwargs, ("file_name", "plot.png"))
        _check_available()
        self._x_key = x_key
        self._y_keys: tuple[str, ...] = (y_keys,) if isinstance(y_keys, str) else tuple(y_keys)
        self._trigger = util.get_trigger(trigger)
        self._file_name: str = file_name if filename is None else filename
        self._marker = marker
        self._grid = grid
        self._postprocess = postprocess
        self._init_summary()
        self._data: dict[str, list[Any]] = {key: [] for key in self._y_keys}

    @staticmethod
    def available() -> bool:
        """Returns whether matplotlib is installed, warning when it is not."""
        return _check_available()

    def __call__(self, trainer: Any) -> None:
        """Adds the current observation; at interval ends, appends the means and redraws."""
        if not self.available():
            return
        # Imported here, not at module import, so that users can still pick a backend with
        # matplotlib.use() after importing chainer.
        import matplotlib.pyplot as pyplot

        observation = trainer.observation
        self._summary.add({key: observation[key] for key in self._y_keys if key in observation})
        if not (trainer.is_before_training or self._trigger(trainer)):
            return
        means = {name: float(value) for name, value in self._summary.compute_mean().items()}
        means["epoch"] = trainer.updater.epoch
        means["iteration"] = trainer.updater.iteration
        x = means[self._x_key]
        for key in self._y_keys:
            if key in means:
                self._data[key].append((x, means[key]))

        figure = pyplot.figure()
        axes = figure.add_subplot(111)
        axes.set_xlabel(self._x_key)
        if self._grid:
            axes.grid()
        for key in self._y_keys:
            points = self._data[key]
            if points:
                xy = numpy.array(points)
                axes.plot(xy[:, 0], xy[:, 1], marker=self._marker, label=key)
        if axes.has_data():
            if self._postprocess is not None:
                self._postprocess(figure, axes, self._summary)
            legend = axes.legend(bbox_to_anchor=(1.05, 1), loc=2, borderaxespad=0.0)
            figure.savefig(os.path.join(trainer.out, self._file_name),
                           bbox_extra_artists=(legend,), bbox_inches="tight")
        pyplot.close(figure)
        self._init_summary()

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the plotted series as JSON under ``'_plot_<filename>'``."""
        key = f"_plot_{self._file_name}"
        if isinstance(serializer, serializer_module.Serializer):
            serializer(key, json.dumps(self._data))
        else:
            data = _checked.load_json(serializer, key)
            if not _checked.checks_only(serializer):  # NOTE [all-or-nothing loading]
                self._data = data

    def _init_summary(self) -> None:
        self._summary = reporter_module.DictSummary()
