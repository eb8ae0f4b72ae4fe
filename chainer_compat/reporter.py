"""``chainer.reporter``: ``Reporter`` collects observed values under observer-prefixed names,
``report`` sends values to the current reporter of this thread, and ``Summary``/``DictSummary``
keep running means and standard deviations of reported scalars.

Layer 8: imports configuration, backend, variable, ``serializers._base`` and
``serializers._checked``.
"""

from __future__ import annotations

import collections
import contextlib
import copy
import json
import threading
import warnings
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.configuration import config
from chainer_compat.serializers import _checked
from chainer_compat.serializers._base import Serializer
from chainer_compat.variable import Variable

__all__ = [
    "DictSummary",
    "Reporter",
    "Summary",
    "get_current_reporter",
    "report",
    "report_scope",
]

# Each thread has its own stack of current reporters, as in Chainer: a reporter made current in
# one thread is invisible to the others.
_thread_local = threading.local()


def _reporters() -> list[Reporter]:
    """This thread's stack of current reporters, innermost last."""
    try:
        return _thread_local.reporters  # type: ignore[no-any-return]
    except AttributeError:
        reporters: list[Reporter] = []
        _thread_local.reporters = reporters
        return reporters


def _detach(value: Any) -> Any:
    """A shallow copy of a Variable, cut from the graph (sharing the array); others unchanged."""
    if isinstance(value, Variable):
        return copy.copy(value)
    return value


class Reporter:
    """Collects observed values into a dict called the observation.

    A value can be reported together with an observer, an object registered beforehand under a
    name; the value is then stored as ``'<observer name>/<key>'``. Observers are told apart by
    identity (``id(observer)``), not equality.

    ``with reporter:`` makes the reporter current in this thread, so that the module-level
    :func:`report` sends values to it; ``with reporter.scope(observation):`` also makes the
    reporter write into ``observation`` for the duration of the block.

    Attributes:
        observation: The dict reported values are written into.
    """

    def __init__(self) -> None:
        self._observer_names: dict[int, str] = {}
        self.observation: dict[str, Any] = {}

    def __enter__(self) -> None:
        """Makes this reporter current in this thread."""
        # compat: returns None, as Chainer's does, so ``with reporter as r`` binds None.
        _reporters().append(self)

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        """Makes the previously current reporter current again."""
        _reporters().pop()

    @contextlib.contextmanager
    def scope(self, observation: dict[str, Any]) -> Iterator[None]:
        """Makes this reporter current and writes reported values into ``observation``.

        Both changes are undone when the block ends, normally or by an exception.

        Args:
            observation: The dict that receives every value reported inside the block.
        """
        previous = self.observation
        self.observation = observation
        self.__enter__()
        try:
            yield
        finally:
            self.__exit__(None, None, None)
            self.observation = previous

    def add_observer(self, name: str, observer: Any) -> None:
        """Registers ``observer`` under ``name``, the prefix of the values it reports.

        Args:
            name: The observer's name.
            observer: Any object; it is identified by ``id(observer)``, so it must stay alive
                while it reports.
        """
        self._observer_names[id(observer)] = name

    def add_observers(self, prefix: str, observers: Iterable[tuple[str, Any]]) -> None:
        """Registers several observers, each under ``prefix + name``.

        Args:
            prefix: Prepended to each name, e.g. ``'main/'``.
            observers: ``(name, observer)`` pairs, such as ``link.namedlinks()`` yields.
        """
        # All pairs first: a malformed one registers none.
        named = [(prefix + name, observer) for name, observer in observers]
        for name, observer in named:
            self._observer_names[id(observer)] = name

    def report(self, values: Mapping[str, Any], observer: Any = None) -> None:
        """Writes ``values`` into the observation, prefixed by the observer's name if given.

        Unless ``chainer.config.keep_graph_on_report`` is True, each Variable is stored as a
        shallow copy that shares the array but has no creator, so the observation does not
        keep the computational graph alive.

        Args:
            values: Names and values to record (scalars, arrays, Variables, ...).
            observer: A registered observer whose name prefixes every key, or None.

        Raises:
            KeyError: If ``observer`` was not registered with :meth:`add_observer`.
        """
        if not config.keep_graph_on_report:
            values = {key: _detach(value) for key, value in values.items()}
        if observer is None:
            self.observation.update(values)
            return
        observer_name = self._observer_names.get(id(observer))
        if observer_name is None:
            # compat: Chainer raises KeyError here.
            raise KeyError(
                "Given observer is not registered to the reporter. An observer must be "
                f"registered with Reporter.add_observer before it reports, got an unregistered "
                f"{type(observer).__name__}")
        for key, value in values.items():
            self.observation[f"{observer_name}/{key}"] = value


def get_current_reporter() -> Reporter:
    """Returns this thread's current reporter (the innermost ``with reporter`` block).

    Raises:
        IndexError: If no reporter is current in this thread.
    """
    reporters = _reporters()
    if not reporters:
        # compat: Chainer raises IndexError (from an empty list) here.
        raise IndexError(
            "get_current_reporter must be called while a reporter is current, got none in this "
            "thread: enter `with reporter:` or `with reporter.scope(observation):` first")
    return reporters[-1]


def report(values: Mapping[str, Any], observer: Any = None) -> None:
    """Reports ``values`` to the current reporter; does nothing if no reporter is current.

    This is what links call in their forward (``report({'loss': loss}, self)``); see
    :meth:`Reporter.report` for the naming and the copying of Variables.

    Args:
        values: Names and values to record.
        observer: A registered observer whose name prefixes every key, or None.

    Raises:
        KeyError: If a reporter is current and ``observer`` is not registered with it.
    """
    reporters = _reporters()
    if reporters:
        reporters[-1].report(values, observer)


@contextlib.contextmanager
def report_scope(observation: dict[str, Any]) -> Iterator[None]:
    """Makes the current reporter write into ``observation`` inside the block.

    Like ``get_current_reporter().scope(observation)``, without pushing the reporter again.

    Args:
        observation: The dict that receives every value reported inside the block.

    Raises:
        IndexError: If no reporter is current in this thread.
    """
    current = get_current_reporter()
    previous = current.observation
    current.observation = observation
    try:
        yield
    finally:
        current.observation = previous


# NOTE [NumPy 1 sums]
# compat: Chainer's sums start from the Python scalars 0.0 and 0 and ran on NumPy 1, where a
# Python number next to a NumPy scalar or 0-d array counted as a 64-bit type and any float32
# added to 0.0 became float64. NumPy 2 treats Python numbers as "weak" and keeps float32, which
# would change the reported means. So on the CPU, a Python number multiplied with a NumPy value
# is made a NumPy value first, and each term is widened to 64 bits before it is added. CuPy
# values are left as they are, on their device, as in Chainer.


def _is_numpy_value(value: Any) -> bool:
    return isinstance(value, (numpy.ndarray, numpy.generic))


def _strong_operands(value: Any, weight: Any) -> tuple[Any, Any]:
    """``value`` and ``weight`` with a Python number made a NumPy one when the other is a
    NumPy value. See NOTE [NumPy 1 sums]."""
    if _is_numpy_value(value) and isinstance(weight, (int, float, complex)):
        return value, numpy.asarray(weight)
    if _is_numpy_value(weight) and isinstance(value, (int, float, complex)):
        return numpy.asarray(value), weight
    return value, weight


def _widened(value: Any) -> Any:
    """``value`` with a NumPy number narrower than 64 bits widened to 64 bits (complex to
    128), as NumPy 1 widened it when adding it to a Python number. See NOTE [NumPy 1 sums]."""
    if _is_numpy_value(value):
        kind, size = value.dtype.kind, value.dtype.itemsize
        if kind == "f" and size < 8:
            return value.astype(numpy.float64)
        if kind == "c" and size < 16:
            return value.astype(numpy.complex128)
        if kind in "iu" and size < 8:
            return value.astype(numpy.int64)
    return value


class Summary:
    """Running mean and standard deviation of a sequence of (weighted) scalars.

    Sums are kept on the device of the values: CuPy values give CuPy results.
    """

    def __init__(self) -> None:
        self._x: Any = 0.0
        self._x2: Any = 0.0
        self._n: Any = 0

    def add(self, value: Any, weight: Any = 1) -> None:
        """Adds a scalar.

        Args:
            value: A Python or NumPy scalar, or a 0-d NumPy or CuPy array.
            weight: The value's weight: a scalar or a 0-d array; 1 by default.
        """
        strong_value, strong_weight = _strong_operands(value, weight)
        with backend.using_device(backend.get_device_from_array(value)):
            self._x += _widened(strong_weight * strong_value)
            self._x2 += _widened(strong_weight * strong_value * strong_value)
            self._n += _widened(weight)

    def compute_mean(self) -> Any:
        """Returns the weighted mean of the values added so far.

        Raises:
            ZeroDivisionError: If nothing was added.
        """
        with backend.using_device(backend.get_device_from_array(self._x)):
            return self._x / self._n

    def make_statistics(self) -> tuple[Any, Any]:
        """Returns ``(mean, std)``: the weighted mean and population standard deviation.

        The variance is computed as ``E[x^2] - E[x]^2``, as Chainer does.
        """
        xp = backend.get_array_module(self._x)
        with backend.using_device(backend.get_device_from_array(self._x)):
            mean = self._x / self._n
            variance = self._x2 / self._n - mean * mean
            return mean, xp.sqrt(variance)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the sums under the keys ``_x``, ``_x2`` and ``_n``.

        Loading from a file that lacks them warns and keeps what was not loaded.
        """
        try:
            self._x = serializer("_x", self._x)
            self._x2 = serializer("_x2", self._x2)
            self._n = serializer("_n", self._n)
        except KeyError:
            warnings.warn("The previous statistics are not saved.", stacklevel=2)


def _is_text(value: Any) -> bool:
    return isinstance(value, (str, bytes)) or getattr(
        getattr(value, "dtype", None), "kind", "") in ("U", "S")


def _is_scalar(value: Any) -> bool:
    return bool(numpy.isscalar(value)) or getattr(value, "ndim", -1) == 0


class DictSummary:
    """Running means and standard deviations of the entries of a sequence of dicts.

    Only scalar entries are summarized (Python and NumPy scalars, 0-d arrays and Variables
    holding one); others, such as arrays with elements or None, are skipped.
    """

    def __init__(self) -> None:
        self._summaries: collections.defaultdict[str, Summary] = collections.defaultdict(
            Summary)

    def add(self, d: Mapping[str, Any]) -> None:
        """Adds the scalar entries of ``d``, each to the summary of its key.

        Args:
            d: Names and values. A value may be a ``(value, weight)`` tuple, whose weight
                must be a scalar, a 0-d array or a Variable holding one.

        Raises:
            ValueError: If a weight is not a scalar.
            TypeError: If a scalar value is not a number (a string, say).

        Every entry is checked before any is added: an error adds none.
        """
        entries = []
        for key, value in d.items():
            weight = 1
            if isinstance(value, tuple):
                value, weight = value[0], value[1]
                if isinstance(weight, Variable):
                    weight = weight.array
                if not _is_scalar(weight):
                    raise ValueError(
                        f"weight given to {key!r} must be a scalar or a 0-d array, got "
                        f"{type(weight).__name__} of shape {getattr(weight, 'shape', None)}")
                if _is_text(weight):
                    # compat: Chainer fails on adding it, a TypeError too.
                    raise TypeError(
                        f"weight given to {key!r} must be a number, got "
                        f"{type(weight).__name__} {weight!r}")
            if isinstance(value, Variable):
                value = value.array
            if _is_scalar(value):
                if _is_text(value):
                    # compat: Chainer fails on adding it, a TypeError too.
                    raise TypeError(
                        f"value of {key!r} must be a number to be summarized, got "
                        f"{type(value).__name__} {value!r}: report it elsewhere, or convert it")
                entries.append((key, value, weight))
        for key, value, weight in entries:
            self._summaries[key].add(value, weight=weight)

    def compute_mean(self) -> dict[str, Any]:
        """Returns a dict of the mean of each key added so far."""
        return {name: summary.compute_mean() for name, summary in self._summaries.items()}

    def make_statistics(self) -> dict[str, Any]:
        """Returns a dict with the mean of each key under ``key`` and its standard deviation
        under ``key + '.std'``."""
        statistics: dict[str, Any] = {}
        for name, summary in self._summaries.items():
            mean, std = summary.make_statistics()
            statistics[name] = mean
            statistics[name + ".std"] = std
        return statistics

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the summaries.

        The key names are stored as JSON under ``_names`` and the summary of the i-th name
        under ``_summaries/<i>/``, as Chainer stores them. Loading replaces every summary;
        loading from a file without ``_names`` warns and leaves the summary empty.
        """
        if isinstance(serializer, Serializer):
            names = list(self._summaries)
            serializer("_names", json.dumps(names))
            for index, name in enumerate(names):
                self._summaries[name].serialize(serializer["_summaries"][str(index)])
            return
        # NOTE [all-or-nothing loading]: the check pass reads the names and changes nothing.
        checking = _checked.checks_only(serializer)
        if not checking:
            self._summaries.clear()
        try:
            names = _checked.load_json(serializer, "_names")
        except KeyError:
            warnings.warn("The names of statistics are not saved.", stacklevel=2)
            return
        if checking:
            # The names key the summaries below: ones that cannot (5, [[1]]) fail here.
            serializer.check(lambda: dict.fromkeys(names))
        for index, name in enumerate(names):
            summary = Summary() if checking else self._summaries[name]
            summary.serialize(serializer["_summaries"][str(index)])
