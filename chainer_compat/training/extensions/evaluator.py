"""``Evaluator``: runs a model over a validation iterator and reports the mean of what it
reports, under ``validation/<target name>/...``.

Layer 8: imports ``backend``, ``configuration``, ``dataset.convert``, ``link``, ``reporter``
and ``training.extension``.
"""

from __future__ import annotations

import copy
import datetime
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

from chainer_compat import backend, configuration
from chainer_compat import link as link_module
from chainer_compat import reporter as reporter_module
from chainer_compat.dataset import convert
from chainer_compat.training import extension
from chainer_compat.utils import argument

__all__ = ["Evaluator"]


class Evaluator(extension.Extension):
    """Evaluates ``target`` on every batch of ``iterator`` and reports the means.

    For each batch, the converted arrays are passed to ``eval_func`` (the ``'main'`` target
    when ``None``) under ``chainer.no_backprop_mode()`` and ``chainer.config.train = False``.
    Values the targets report are named ``<extension name>/<target name>/<key>``, e.g.
    ``'validation/main/loss'``; their means over the batches are returned by ``evaluate``
    and reported to the trainer's reporter.

    The iterator is ``reset()`` before each evaluation (one without ``reset`` is copied, with
    a DeprecationWarning), so it must not repeat.

    Args:
        iterator: An iterator, or a dict of iterators with a ``'main'`` one.
        target: A Link, or a dict of Links with a ``'main'`` one.
        converter: Turns a batch into ``eval_func``'s arguments.
        device: Device the batches are sent to.
        eval_hook: Called with the evaluator before each evaluation.
        eval_func: The function to evaluate; the ``'main'`` target when ``None``.
        progress_bar: Whether to print a progress bar to stdout (keyword only).

    Attributes:
        converter: The converter.
        device: The device (a ``Device`` or ``None``).
        eval_hook: The hook.
        eval_func: The evaluation function.
    """

    trigger: Any = (1, "epoch")
    default_name = "validation"  # type: ignore[assignment]
    priority = extension.PRIORITY_WRITER
    name = None

    def __init__(self, iterator: Any, target: Any,
                 converter: Callable[..., Any] = convert.concat_examples, device: Any = None,
                 eval_hook: Callable[[Evaluator], Any] | None = None,
                 eval_func: Callable[..., Any] | None = None, **kwargs: Any) -> None:
        progress_bar, = argument.parse_kwargs(kwargs, ("progress_bar", False))
        if device is not None:
            device = backend.get_device(device)
        self._iterators: dict[str, Any] = (
            iterator if isinstance(iterator, dict) else {"main": iterator})
        self._targets: dict[str, Any] = (
            {"main": target} if isinstance(target, link_module.Link) else target)
        self.converter = converter
        self.device = device
        self.eval_hook = eval_hook
        self.eval_func = eval_func
        self._progress_bar = progress_bar
        for key, each in self._iterators.items():
            if getattr(each, "repeat", False) is True:
                warnings.warn(
                    f"The `repeat` property of the iterator {key} is set to `True`. Typically, "
                    "the evaluator sweeps over iterators until they stop, but as the property "
                    "being `True`, this iterator might not stop and evaluation could go into "
                    "an infinite loop. We recommend to check the configuration of iterators",
                    stacklevel=2)

    def get_iterator(self, name: str) -> Any:
        """Returns the iterator of the given name."""
        return self._iterators[name]

    def get_all_iterators(self) -> dict[str, Any]:
        """Returns a new dict of all iterators by name."""
        return dict(self._iterators)

    def get_target(self, name: str) -> Any:
        """Returns the target link of the given name."""
        return self._targets[name]

    def get_all_targets(self) -> dict[str, Any]:
        """Returns a new dict of all target links by name."""
        return dict(self._targets)

    def __call__(self, trainer: Any = None) -> dict[str, Any]:
        """Evaluates, reports the means to the current reporter and returns them.

        Args:
            trainer: The trainer (unused; the evaluator may be called without one).

        Returns:
            A dict of the mean of each reported value.
        """
        reporter = reporter_module.Reporter()
        prefix = "" if self.name is None else self.name + "/"
        for name, target in self._targets.items():
            reporter.add_observer(prefix + name, target)
            reporter.add_observers(prefix + name, target.namedlinks(skipself=True))
        with reporter:
            with configuration.using_config("train", False):
                result = self.evaluate()
        reporter_module.report(result)
        return result

    def evaluate(self) -> dict[str, Any]:
        """Runs the evaluation over one pass of the ``'main'`` iterator.

        Returns:
            A dict of the mean of each value reported during the pass.
        """
        iterator = self._iterators["main"]
        eval_func = self.eval_func or self._targets["main"]
        if self.eval_hook:
            self.eval_hook(self)
        if hasattr(iterator, "reset"):
            iterator.reset()
            batches = iterator
        else:
            warnings.warn(
                "This iterator does not have the reset method. Evaluator copies the iterator "
                "instead of resetting. This behavior is deprecated. Please implement the reset "
                "method.", DeprecationWarning, stacklevel=1)
            batches = copy.copy(iterator)
        summary = reporter_module.DictSummary()
        progress = _ProgressBar(batches) if self._progress_bar else None
        for batch in batches:
            observation: dict[str, Any] = {}
            with reporter_module.report_scope(observation):
                in_arrays = convert._call_converter(self.converter, batch, self.device)
                with configuration.no_backprop_mode():
                    if isinstance(in_arrays, tuple):
                        eval_func(*in_arrays)
                    elif isinstance(in_arrays, dict):
                        eval_func(**in_arrays)
                    else:
                        eval_func(in_arrays)
            summary.add(observation)
            if progress is not None:
                progress.update()
        if progress is not None:
            progress.close()
        return summary.compute_mean()

    def finalize(self) -> None:
        """Finalizes every iterator."""
        for iterator in self._iterators.values():
            iterator.finalize()


class _ProgressBar:
    """A three-line progress display of one pass of an iterator, redrawn in place."""

    def __init__(self, iterator: Any, bar_length: int = 50) -> None:
        if not (hasattr(iterator, "current_position") and hasattr(iterator, "epoch_detail")):
            raise TypeError(
                "Iterator must have the following attributes to enable a progress bar: "
                "current_position, epoch_detail")
        self._iterator = iterator
        self._bar_length = bar_length
        self._start = time.time()
        self._out = sys.stdout

    def update(self) -> None:
        position = self._iterator.current_position
        rate = float(self._iterator.epoch_detail)
        marks = "#" * int(rate * self._bar_length)
        elapsed = time.time() - self._start
        remaining = elapsed * (1.0 - rate) / rate if rate > 0 else 0.0
        lines = [f"validation [{marks}{'.' * (self._bar_length - len(marks))}] {rate:6.2%}\n",
                 f"{position:10} iterations\n",
                 f"Estimated time to finish: {datetime.timedelta(seconds=remaining)}.\n"]
        self._out.write("\x1b[J" + "".join(lines) + f"\x1b[{len(lines)}A")
        self._out.flush()

    def close(self) -> None:
        self._out.write("\x1b[J")
        self._out.flush()
