"""``VariableStatisticsPlot``: records the mean, standard deviation and percentiles of the data
and gradients of Variables (or a Link's parameters) each iteration, and plots them.
matplotlib is imported only when it is needed.

Layer 8: imports ``backend``, ``link``, ``variable`` and the ``training`` helpers.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy

from chainer_compat import backend, link, variable
from chainer_compat.training import extension, util
from chainer_compat.training.extensions.plot_report import _check_available
from chainer_compat.utils import argument

__all__ = ["Reservoir", "Statistician", "VariableStatisticsPlot"]

# matplotlib's first default colour ('C0', #1f77b4), and a translucent version for the bands.
_COLOR = (0x1F / 255, 0x77 / 255, 0xB4 / 255, 1.0)
_COLOR_TRANSLUCENT = _COLOR[:3] + (0.2,)
_BAND_STYLE = {"alpha": 0.2, "linewidth": 0, "color": _COLOR_TRANSLUCENT}

_DEFAULT_PERCENTILES = (0, 0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87, 100)


def _unpack_variables(targets: Any) -> tuple[Any, ...]:
    """The Variables of ``targets``: a Variable, a Link's parameters, or a nested list."""
    if isinstance(targets, variable.Variable):
        return (targets,)
    if isinstance(targets, link.Link):
        return tuple(targets.params(include_uninit=True))
    if isinstance(targets, (list, tuple)):
        found: tuple[Any, ...] = ()
        for target in targets:
            found += _unpack_variables(target)
        return found
    return ()


class Reservoir:
    """A uniform random sample of at most ``size`` items from a stream (reservoir sampling).

    Args:
        size: The most items kept.
        data_shape: The shape of each item.
        dtype: The dtype of the items.
    """

    def __init__(self, size: int, data_shape: tuple[int, ...],
                 dtype: Any = numpy.float32) -> None:
        self.size = size
        self.data = numpy.zeros((size, *data_shape), dtype=dtype)
        self.idxs = numpy.zeros((size,), dtype=numpy.int32)
        self.counter = 0

    def add(self, x: Any, idx: int | None = None) -> None:
        """Offers item ``x``, labelled ``idx`` (its position in the stream by default)."""
        # compat: Chainer labels with the position also when idx is 0.
        label = idx or self.counter
        if self.counter < self.size:
            self.data[self.counter] = x
            self.idxs[self.counter] = label
        elif numpy.random.random() < self.size / float(self.counter + 1):
            slot = numpy.random.randint(self.size)
            self.data[slot] = x
            self.idxs[slot] = label
        self.counter += 1

    def get_data(self) -> tuple[numpy.ndarray, numpy.ndarray]:
        """Returns the labels and items kept, sorted by label."""
        labels = self.idxs[:min(self.counter, self.size)]
        order = numpy.argsort(labels)
        return labels[order], self.data[order]


class Statistician:
    """Computes the chosen statistics of an array along axes.

    Args:
        collect_mean: Whether to compute ``'mean'``.
        collect_std: Whether to compute ``'std'``.
        percentile_sigmas: Percentiles to compute as ``'percentile'``; empty or None for none.
    """

    def __init__(self, collect_mean: bool, collect_std: bool,
                 percentile_sigmas: Any) -> None:
        self.collect_mean = collect_mean
        self.collect_std = collect_std
        self.percentile_sigmas = percentile_sigmas

    def __call__(self, x: Any, axis: Any = 0, dtype: Any = None,
                 xp: Any = None) -> dict[str, Any]:
        """Returns the statistics of ``x`` along ``axis`` (all axes when None) by name."""
        if axis is None:
            axis = tuple(range(x.ndim))
        elif not isinstance(axis, (tuple, list)):
            axis = (axis,)
        return self.collect(x, tuple(axis))

    def collect(self, x: Any, axis: tuple[int, ...]) -> dict[str, Any]:
        """Returns the statistics of ``x`` along ``axis`` by name."""
        statistics: dict[str, Any] = {}
        if self.collect_mean:
            statistics["mean"] = x.mean(axis=axis)
        if self.collect_std:
            statistics["std"] = x.std(axis=axis)
        if self.percentile_sigmas:
            xp = backend.get_array_module(x)
            statistics["percentile"] = xp.percentile(x, self.percentile_sigmas, axis=axis)
        return statistics


class VariableStatisticsPlot(extension.Extension):
    """Plots statistics of the data and gradients of Variables over the iterations.

    At each call it computes, over all elements of all the Variables together, the mean,
    the standard deviation and the percentiles of ``data`` and of ``grad``, and keeps them in
    a reservoir sample of at most ``max_sample_size`` iterations. When ``trigger`` fires it
    draws ``<trainer.out>/<filename>``: a column each for data and grad, a row for mean and
    std and a row for the percentile bands. Without matplotlib it warns and does nothing.

    Args:
        targets: A Variable, a Link (its parameters), or a list of them.
        max_sample_size: The most iterations kept for the plot.
        report_data: Whether to plot the statistics of ``data``.
        report_grad: Whether to plot the statistics of ``grad``.
        plot_mean: Whether to plot the mean.
        plot_std: Whether to plot the standard deviation (as error bars with the mean).
        percentile_sigmas: Percentiles to plot as bands, or one percentile, or empty.
        trigger: When to draw the image (anything :func:`get_trigger` takes).
        filename: Name of the image file; ``'statistics.png'`` when None. ``file_name`` is
            accepted as an alias.
        figsize: Figure size in inches, as matplotlib takes it.
        marker: Marker of the points; None for none.
        grid: Whether to draw grids.

    Raises:
        ValueError: If ``targets`` holds no Variable, or nothing is chosen to plot.
    """

    def __init__(self, targets: Any, max_sample_size: int = 1000, report_data: bool = True,
                 report_grad: bool = True, plot_mean: bool = True, plot_std: bool = True,
                 percentile_sigmas: float | Sequence[float] = _DEFAULT_PERCENTILES,
                 trigger: Any = (1, "epoch"), filename: str | None = None,
                 figsize: Any = None, marker: str | None = None, grid: bool = True,
                 **kwargs: Any) -> None:
        file_name, = argument.parse_kwargs(kwargs, ("file_name", "statistics.png"))
        self._vars = _unpack_variables(targets)
        if not self._vars:
            # compat: Chainer's wording.
            raise ValueError(
                "Need at least one variables for which to collect statistics.\nActual: 0 <= 0")
        if not (plot_mean or plot_std or bool(percentile_sigmas)):
            raise ValueError("Nothing to plot")
        self._keys = [key for key, wanted in (("data", report_data), ("grad", report_grad))
                      if wanted]
        self._report_data = report_data
        self._report_grad = report_grad
        self._statistician = Statistician(collect_mean=plot_mean, collect_std=plot_std,
                                          percentile_sigmas=percentile_sigmas)
        self._plot_mean = plot_mean
        self._plot_std = plot_std
        self._plot_percentile = bool(percentile_sigmas)
        self._trigger = util.get_trigger(trigger)
        self._filename: str = file_name if filename is None else filename
        self._figsize = figsize
        self._marker = marker
        self._grid = grid
        if not self._plot_percentile:
            percentile_count = 0
        elif isinstance(percentile_sigmas, (list, tuple)):
            percentile_count = len(percentile_sigmas)
        else:
            percentile_count = 1
        self._data_shape = (len(self._keys), int(plot_mean) + int(plot_std) + percentile_count)
        self._samples = Reservoir(max_sample_size, data_shape=self._data_shape)

    @staticmethod
    def available() -> bool:
        """Returns whether matplotlib is installed, warning when it is not."""
        return _check_available()

    def __call__(self, trainer: Any) -> None:
        """Records this iteration's statistics; draws the image when ``trigger`` fires."""
        if not self.available():
            return
        # Imported here so that users can still pick a backend with matplotlib.use().
        import matplotlib.pyplot as pyplot

        xp = backend.get_array_module(self._vars[0].array)
        statistics = xp.zeros(self._data_shape, dtype=xp.float32)
        for row, key in enumerate(self._keys):
            arrays = [getattr(var, key) for var in self._vars]
            flat = [array.ravel() for array in arrays if array is not None]
            if not flat:
                continue
            found = self._statistician(xp.concatenate(flat, axis=0), axis=0, xp=xp)
            chosen = [name for name, wanted in (("mean", self._plot_mean),
                                                ("std", self._plot_std),
                                                ("percentile", self._plot_percentile))
                      if wanted]
            statistics[row] = xp.concatenate([xp.atleast_1d(found[name]) for name in chosen])
        self._samples.add(backend.CpuDevice().send(statistics),
                          idx=trainer.updater.iteration)
        if self._trigger(trainer):
            self.save_plot_using_module(os.path.join(trainer.out, self._filename), pyplot)

    def save_plot_using_module(self, file_path: str, plt: Any) -> None:
        """Draws the recorded statistics with the pyplot module ``plt`` into ``file_path``."""
        row_count = int(self._plot_mean or self._plot_std) + int(self._plot_percentile)
        column_count = len(self._keys)
        figure, axes = plt.subplots(row_count, column_count, figsize=self._figsize,
                                    sharex=True, squeeze=False)
        labels, data = self._samples.get_data()
        offset = int(self._plot_mean) + int(self._plot_std)
        percentile_count = data.shape[-1] - offset
        middle = percentile_count // 2
        for column in range(column_count):
            row = 0
            axes[row, column].set_title(self._keys[column])
            if self._plot_mean or self._plot_std:
                axis = axes[row, column]
                if self._plot_mean and self._plot_std:
                    axis.errorbar(labels, data[:, column, 0], data[:, column, 1], color=_COLOR,
                                  ecolor=_COLOR_TRANSLUCENT, label="mean, std",
                                  marker=self._marker)
                else:
                    axis.plot(labels, data[:, column, 0], color=_COLOR,
                              label="mean" if self._plot_mean else "std", marker=self._marker)
                row += 1
            if self._plot_percentile:
                axis = axes[row, column]
                # Bands between symmetric percentiles (outermost first); an odd middle
                # percentile is drawn as a line.
                for index in range(middle + 1):
                    if percentile_count % 2 == 1 and index == middle:
                        axis.plot(labels, data[:, column, offset + index], color=_COLOR,
                                  label="percentile", marker=self._marker)
                    else:
                        axis.fill_between(
                            labels, data[:, column, offset + index],
                            data[:, column, -index - 1],
                            label="percentile" if index == middle else "_nolegend_",
                            **_BAND_STYLE)
                    axis.set_xlabel("iteration")
        for axis in axes.ravel():
            axis.legend()
            if self._grid:
                axis.grid()
                axis.set_axisbelow(True)
        figure.savefig(file_path)
        plt.close(figure)
