"""Tests for chainer_compat.testing.get_trainer_with_mock_updater with a fractional
iter_per_epoch, which Chainer accepts (its trigger tests use 0.5 and 1.5)."""

from __future__ import annotations

import pytest

from chainer_compat import testing


@pytest.mark.parametrize("iter_per_epoch", [0.5, 1.5, 2])
def test_fractional_iter_per_epoch_runs_to_the_iteration_stop(iter_per_epoch: float) -> None:
    trainer = testing.get_trainer_with_mock_updater((5, "iteration"), iter_per_epoch)
    seen: list[tuple[int, float, float, bool]] = []

    def record(trainer_in_run) -> None:
        updater = trainer_in_run.updater
        seen.append((updater.iteration, updater.epoch, updater.epoch_detail,
                     updater.is_new_epoch))

    trainer.extend(record)
    trainer.run()
    expected = [(i, i // iter_per_epoch, i / iter_per_epoch,
                 (i - 1) // iter_per_epoch != i // iter_per_epoch) for i in range(1, 6)]
    assert seen == expected


@pytest.mark.parametrize("bad", [0, -1.5, True, "3", None])
def test_non_positive_or_non_numeric_iter_per_epoch_is_rejected(bad) -> None:
    with pytest.raises(ValueError, match="iter_per_epoch must be a positive number"):
        testing.get_trainer_with_mock_updater(iter_per_epoch=bad)
