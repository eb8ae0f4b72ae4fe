"""``ParameterStatistics``: reports statistics (mean, std, percentiles...) of the parameters and
gradients of links.

Layer 8: imports ``backend``, ``reporter`` and the ``training`` helpers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy

from chainer_compat import backend, reporter
from chainer_compat.training import extension, util

__all__ = ["ParameterStatistics"]

_PERCENTILES = (0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87)

def _count_zeros(x: Any) -> Any:
    xp = backend.get_array_module(x)
    count = xp.count_nonzero(x == 0)
    # compat: NumPy 1 counted into a Python int (so the reported mean is a float); NumPy 2
    # gives a numpy.intp. CuPy's 0-d array stays on the device, as in Chainer.
    return int(count) if xp is numpy else count


_default_statistics: dict[str, Callable[[Any], Any]] = {
    "mean": lambda x: backend.get_array_module(x).mean(x),
    "std": lambda x: backend.get_array_module(x).std(x),
    "min": lambda x: backend.get_array_module(x).min(x),
    "max": lambda x: backend.get_array_module(x).max(x),
    "zeros": _count_zeros,
    "percentile": lambda x: backend.get_array_module(x).percentile(x, _PERCENTILES),
}


class ParameterStatistics(extension.Extension):
    """Computes statistics of each parameter's data and grad every iteration and reports their
    means over the interval.

    Keys read ``'{prefix}/{link name}{param path}/{data|grad}/{statistic}'``; a statistic that
    returns several values (the percentiles) gets one key per value, suffixed ``/0``, ``/1``...

    Args:
        links: A Link or a list of Links.
        statistics: Dict of name to function of a flat array; ``'default'`` for mean, std,
            min, max, zeros and percentile; ``None`` for none.
        report_params: Whether to report statistics of the parameters' data.
        report_grads: Whether to report statistics of their gradients.
        prefix: Prefix of the keys.
        trigger: Interval of the reports.
        skip_nan_params: Whether to report NaN instead of computing statistics of an array
            holding NaN.
    """

    default_name = "parameter_statistics"  # type: ignore[assignment]
    priority = extension.PRIORITY_WRITER
    report_key_template = "{prefix}{link_name}{param_name}/{attr_name}/{function_name}"
    default_statistics = _default_statistics

    def __init__(self, links: Any, statistics: Mapping[str, Callable[[Any], Any]] | str | None
                 = "default", report_params: bool = True, report_grads: bool = True,
                 prefix: str | None = None, trigger: Any = (1, "epoch"),
                 skip_nan_params: bool = False) -> None:
        self._links = links if isinstance(links, (list, tuple)) else (links,)
        if statistics is None:
            statistics = {}
        elif statistics == "default":
            statistics = self.default_statistics
        self._statistics: dict[str, Callable[[Any], Any]] = dict(statistics)  # type: ignore[arg-type]
        self._attrs = (["data"] if report_params else []) + (["grad"] if report_grads else [])
        self._prefix = prefix
        self._trigger = util.get_trigger(trigger)
        self._summary = reporter.DictSummary()
        self._skip_nan_params = skip_nan_params

    def __call__(self, trainer: Any) -> None:
        """Adds this iteration's statistics; reports their means at interval ends."""
        statistics: dict[str, Any] = {}
        prefix = self._prefix + "/" if self._prefix else ""
        array_types = backend.get_array_types()
        for link in self._links:
            link_name = getattr(link, "name", "None")
            for param_name, param in link.namedparams():
                for attr_name in self._attrs:
                    values = getattr(param, attr_name)
                    if values is None:
                        continue
                    values = values.ravel()
                    for function_name, function in self._statistics.items():
                        if (self._skip_nan_params
                                and backend.get_array_module(values).isnan(values).any()):
                            value: Any = numpy.nan
                        else:
                            value = function(values)
                        is_array: bool = isinstance(value, array_types)
                        key = self.report_key_template.format(
                            prefix=prefix, link_name=link_name, param_name=param_name,
                            attr_name=attr_name, function_name=function_name)
                        if is_array and value.size > 1:
                            statistics.update(
                                {f"{key}/{index}": each for index, each in enumerate(value)})
                        else:
                            statistics[key] = value
        self._summary.add(statistics)
        if self._trigger(trainer):
            reporter.report(self._summary.compute_mean())
            self._summary = reporter.DictSummary()

    def register_statistics(self, name: str, function: Callable[[Any], Any]) -> None:
        """Adds a statistic: ``function`` of a flat array, reported under ``name``."""
        self._statistics[name] = function
