"""``EarlyStoppingTrigger``: a stop trigger that fires when a monitored value stops improving.

Layer 8: imports ``reporter`` and ``training.util``.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

from chainer_compat import reporter as reporter_module
from chainer_compat.training import util
from chainer_compat.utils import argument

__all__ = ["EarlyStoppingTrigger"]


class EarlyStoppingTrigger:
    """Stops training after ``patience`` checks without improvement, or at ``max_trigger``.

    At each ``check_trigger`` interval the mean of ``monitor`` over the interval is compared
    with the best mean so far; the trigger fires when ``patience`` checks in a row fail to
    improve it.

    Args:
        check_trigger: Interval of the checks.
        monitor: Observation key to watch.
        patience: Checks without improvement before stopping (3 when ``None``).
        mode: ``'max'``, ``'min'`` or ``'auto'`` (max when ``'accuracy'`` is in ``monitor``).
        verbose: Whether to print the mode and the stop.
        max_trigger: Upper bound on the training length.
    """

    def __init__(self, check_trigger: Any = (1, "epoch"), monitor: str = "main/loss",
                 patience: int | None = None, mode: str = "auto", verbose: bool = False,
                 max_trigger: Any = (100, "epoch"), **kwargs: Any) -> None:
        patients, = argument.parse_kwargs(kwargs, ("patients", None))
        if patients is not None:
            if patience is not None:
                # compat: Chainer's wording for the old misspelt alias.
                raise TypeError(
                    "Both 'patience' and 'patients' arguments are specified. 'patients' is an "
                    "alias of the former. Specify only 'patience'.")
            patience = patients
        self.count = 0
        self.patience = 3 if patience is None else patience
        self.monitor = monitor
        self.verbose = verbose
        self.already_warning = False
        self._max_trigger = util.get_trigger(max_trigger)
        self._interval_trigger = util.get_trigger(check_trigger)
        self._init_summary()
        maximize = mode == "max" or (mode != "min" and "accuracy" in monitor)
        self._compare = operator.gt if maximize else operator.lt
        if verbose:
            print(f"early stopping: operator is {'greater' if maximize else 'less'}")
        self.best = float("-inf") if maximize else float("inf")

    def __call__(self, trainer: Any) -> bool:
        """Accumulates the monitored value and returns whether training should stop."""
        observation = trainer.observation
        if self.monitor in observation:
            self._summary.add({self.monitor: observation[self.monitor]})
        if self._max_trigger(trainer):
            return True
        if not self._interval_trigger(trainer):
            return False
        if self.monitor not in observation:
            warnings.warn(f"{self.monitor} is not in observation", stacklevel=2)
            return False
        current = self._summary.compute_mean()[self.monitor]
        self._init_summary()
        if self._compare(current, self.best):
            self.best = current
            self.count = 0
        else:
            self.count += 1
        if self._stop_condition():
            if self.verbose:
                print(f"Epoch {trainer.updater.epoch}: early stopping")
            return True
        return False

    def _stop_condition(self) -> bool:
        return self.count >= self.patience

    def _init_summary(self) -> None:
        self._summary = reporter_module.DictSummary()

    def get_training_length(self) -> Any:
        """Returns the training length of ``max_trigger``."""
        return self._max_trigger.get_training_length()
