"""``get_trainer_with_mock_updater``: a Trainer driven by a mock updater, for testing training
extensions without a model.

Layer 8: imports ``chainer_compat.training`` when called (it may not exist yet).
"""

from __future__ import annotations

import importlib
import numbers
from typing import Any
from unittest import mock

__all__ = ["check_available", "get_error", "get_trainer_with_mock_updater", "is_available"]


def is_available() -> bool:
    """Whether this module's mock updater can be made: always, since it uses ``unittest.mock``
    (Chainer's needed the separate ``mock`` package).

    Returns:
        True.
    """
    return True


def check_available() -> None:
    """Raises where the mock updater cannot be made: never, here (see :func:`is_available`)."""


def get_error() -> None:
    """The import error that made the module unavailable: None, here."""
    return None


def _trainer_class() -> Any:
    try:
        training = importlib.import_module("chainer_compat.training")
        return training.Trainer
    except (ImportError, AttributeError) as error:
        raise NotImplementedError(
            "get_trainer_with_mock_updater needs chainer_compat.training.Trainer (Chainer's "
            "training module: Trainer, triggers and extensions), which chainer_compat does not "
            f"provide yet ({type(error).__name__}: {error}); tests of training extensions "
            "cannot run until it exists") from error


def get_trainer_with_mock_updater(stop_trigger: Any = (10, "iteration"),
                                  iter_per_epoch: float = 10,
                                  extensions: list[Any] | None = None) -> Any:
    """Returns a Trainer whose updater only counts iterations and epochs.

    Each ``updater.update()`` calls the mock ``updater.update_core()`` and advances
    ``iteration``; ``epoch``, ``epoch_detail``, ``previous_epoch_detail`` and ``is_new_epoch``
    follow as if every epoch had ``iter_per_epoch`` iterations. ``get_all_optimizers()``
    returns an empty dict.

    Args:
        stop_trigger: The Trainer's stop trigger.
        iter_per_epoch: Number of iterations per simulated epoch; may be fractional.
        extensions: Extensions to register to the Trainer.

    Returns:
        The ``chainer_compat.training.Trainer``.

    Raises:
        NotImplementedError: If ``chainer_compat.training`` (with ``Trainer``) is not
            available.
        ValueError: If ``iter_per_epoch`` is not a positive number.
    """
    # compat: Chainer also takes a fractional iter_per_epoch (0.5 gives two epochs per
    # iteration); its own trigger tests rely on it.
    if (isinstance(iter_per_epoch, bool) or not isinstance(iter_per_epoch, numbers.Real)
            or not iter_per_epoch > 0):
        raise ValueError(
            f"iter_per_epoch must be a positive number, got {iter_per_epoch!r}")
    trainer_class = _trainer_class()

    updater = mock.Mock()
    updater.get_all_optimizers.return_value = {}
    updater.iteration = 0
    updater.epoch = 0
    updater.epoch_detail = 0
    updater.is_new_epoch = True
    updater.previous_epoch_detail = None

    def update() -> None:
        updater.update_core()
        updater.iteration += 1
        updater.epoch = updater.iteration // iter_per_epoch
        updater.epoch_detail = updater.iteration / iter_per_epoch
        updater.is_new_epoch = (updater.iteration - 1) // iter_per_epoch != updater.epoch
        updater.previous_epoch_detail = (updater.iteration - 1) / iter_per_epoch

    updater.update = update
    return trainer_class(updater, stop_trigger, extensions=[] if extensions is None
                         else extensions)
