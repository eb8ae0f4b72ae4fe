"""Triggers: firing sequences computed from their definitions, serialization, get_trigger."""

from __future__ import annotations

import fractions
import math
import warnings

import numpy
import pytest

from chainer_compat import serializers
from chainer_compat.testing import get_trainer_with_mock_updater
from chainer_compat.training import IntervalTrigger, get_trigger, triggers, util


def _fired_iterations(trigger, iterations, iter_per_epoch, observations=None):
    trainer = get_trainer_with_mock_updater(iter_per_epoch=iter_per_epoch)
    fired = []
    for iteration in range(1, iterations + 1):
        trainer.updater.update()
        trainer.observation = {} if observations is None else observations(iteration)
        if trigger(trainer):
            fired.append(iteration)
    return fired


def _crossings(period, unit, iterations, iter_per_epoch):
    """Iterations at which a multiple of ``period`` lies in (previous progress, progress]."""
    period = fractions.Fraction(period)
    scale = 1 if unit == "iteration" else fractions.Fraction(1, iter_per_epoch)
    fired = []
    for iteration in range(1, iterations + 1):
        low, high = (iteration - 1) * scale, iteration * scale
        if math.floor(high / period) > math.floor(low / period):
            fired.append(iteration)
    return fired


@pytest.mark.parametrize(("period", "unit", "iter_per_epoch"), [
    (1, "iteration", 4), (3, "iteration", 4), (1, "epoch", 4), (2, "epoch", 3),
    (0.5, "epoch", 3), (0.25, "epoch", 4), (1.5, "epoch", 2),
])
def test_interval_trigger_fires_when_progress_crosses_a_multiple_of_period(
        period, unit, iter_per_epoch):
    fired = _fired_iterations(IntervalTrigger(period, unit), 24, iter_per_epoch)
    assert fired == _crossings(period, unit, 24, iter_per_epoch)


def test_interval_trigger_rejects_unknown_unit():
    with pytest.raises(ValueError, match="either 'epoch' or 'iteration'"):
        IntervalTrigger(1, "second")


def test_interval_trigger_reports_training_length_and_str():
    trigger = IntervalTrigger(5, "epoch")
    assert trigger.get_training_length() == (5, "epoch")
    assert str(trigger) == "IntervalTrigger(5, 'epoch')"


def test_get_trigger_accepts_none_tuple_and_callable():
    def callable_trigger(trainer):
        return True

    assert get_trigger(callable_trigger) is callable_trigger
    never = get_trigger(None)
    assert never(None) is False
    interval = get_trigger((7, "iteration"))
    assert isinstance(interval, IntervalTrigger)
    assert (interval.period, interval.unit) == (7, "iteration")
    assert util.get_trigger is get_trigger


def test_interval_trigger_resumes_where_it_stopped(tmp_path):
    trainer = get_trainer_with_mock_updater(iter_per_epoch=3)
    trigger = IntervalTrigger(2, "iteration")
    for _ in range(3):
        trainer.updater.update()
        trigger(trainer)
    serializers.save_npz(tmp_path / "trigger.npz", trigger)
    resumed = IntervalTrigger(2, "iteration")
    serializers.load_npz(tmp_path / "trigger.npz", resumed)
    trainer.updater.update()
    assert resumed(trainer) is True  # iteration 4 crosses the multiple 4


def test_interval_trigger_guesses_previous_progress_when_not_saved():
    trigger = IntervalTrigger(2, "iteration")

    def empty_deserializer(key, value):
        raise KeyError(key)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trigger.serialize(empty_deserializer)
    messages = [str(w.message) for w in caught]
    assert any("previous value of iteration is not saved" in m for m in messages)
    assert any("previous value of epoch_detail is not saved" in m for m in messages)
    trainer = get_trainer_with_mock_updater(iter_per_epoch=3)
    for _ in range(4):
        trainer.updater.update()
    assert trigger(trainer) is True  # guessed previous iteration 3, current 4


@pytest.mark.parametrize(("points", "unit", "iter_per_epoch"), [
    ([3, 7, 8], "iteration", 4), (5, "iteration", 4), ([0.5, 2], "epoch", 4),
    ([1.25, 3], "epoch", 2),
])
def test_manual_schedule_trigger_fires_when_a_point_is_passed(points, unit, iter_per_epoch):
    trigger = triggers.ManualScheduleTrigger(points, unit)
    fired = _fired_iterations(trigger, 16, iter_per_epoch)
    point_list = points if isinstance(points, list) else [points]
    scale = 1 if unit == "iteration" else fractions.Fraction(1, iter_per_epoch)
    expected = [iteration for iteration in range(1, 17)
                if any((iteration - 1) * scale < fractions.Fraction(point) <= iteration * scale
                       for point in point_list)]
    assert fired == expected
    assert trigger.finished is True


def test_manual_schedule_trigger_is_not_finished_before_its_last_point():
    trigger = triggers.ManualScheduleTrigger([2, 10], "iteration")
    _fired_iterations(trigger, 5, 4)
    assert trigger.finished is False


def test_manual_schedule_trigger_with_no_points_never_fires_nor_finishes():
    trigger = triggers.ManualScheduleTrigger([], "iteration")
    assert _fired_iterations(trigger, 5, 4) == []
    assert trigger.finished is False


def test_once_trigger_fires_once_and_again_after_resume_when_asked(tmp_path):
    trigger = triggers.OnceTrigger(call_on_resume=True)
    assert _fired_iterations(trigger, 4, 2) == [1]
    assert trigger.finished
    serializers.save_npz(tmp_path / "once.npz", trigger)
    resumed = triggers.OnceTrigger(call_on_resume=True)
    serializers.load_npz(tmp_path / "once.npz", resumed)
    assert _fired_iterations(resumed, 3, 2) == [1]
    plain = triggers.OnceTrigger()
    serializers.load_npz(tmp_path / "once.npz", plain)
    assert _fired_iterations(plain, 3, 2) == []


class _Clock:
    def __init__(self):
        self.elapsed_time = 0.0


def test_time_trigger_fires_once_per_period_of_elapsed_time():
    trigger = triggers.TimeTrigger(1.0)
    clock = _Clock()
    fired = []
    for step in range(1, 16):
        clock.elapsed_time = step * 0.3
        if trigger(clock):
            fired.append(step)
    # Deadlines 1, 2, 3, 4 are passed (strictly) at 1.2, 2.1, 3.3 and 4.2 seconds.
    expected = []
    deadline = 1.0
    for step in range(1, 16):
        if deadline < step * 0.3:
            expected.append(step)
            deadline += 1.0
    assert fired == expected


@pytest.mark.parametrize("trigger_class", [triggers.MaxValueTrigger, triggers.MinValueTrigger])
def test_best_value_triggers_fire_when_interval_mean_beats_the_best(trigger_class):
    values = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0, 5.0, 8.0]
    trigger = trigger_class("v", trigger=(2, "iteration"))
    fired = _fired_iterations(trigger, len(values), 4,
                              observations=lambda iteration: {"v": values[iteration - 1]})
    better = (lambda best, new: new > best) if trigger_class is triggers.MaxValueTrigger \
        else (lambda best, new: new < best)
    expected = []
    best = None
    for end in range(2, len(values) + 1, 2):
        mean = numpy.mean(values[end - 2:end])
        if best is None or better(best, mean):
            best = mean
            expected.append(end)
    assert fired == expected


def test_early_stopping_trigger_stops_after_patience_checks_without_improvement():
    losses = [5.0, 4.0, 3.0, 3.5, 3.2, 3.1, 2.0]
    trigger = triggers.EarlyStoppingTrigger(check_trigger=(1, "iteration"), monitor="main/loss",
                                            patience=3, max_trigger=(100, "iteration"))
    fired = _fired_iterations(trigger, len(losses), 10,
                              observations=lambda iteration: {"main/loss": losses[iteration - 1]})
    best, count, expected = math.inf, 0, None
    for iteration, loss in enumerate(losses, 1):
        if loss < best:
            best, count = loss, 0
        else:
            count += 1
        if count >= 3:
            expected = iteration
            break
    assert fired[0] == expected


def test_early_stopping_trigger_maximizes_accuracy_and_honours_max_trigger():
    trigger = triggers.EarlyStoppingTrigger(monitor="main/accuracy",
                                            max_trigger=(5, "iteration"))
    assert trigger.best == -math.inf
    assert trigger.get_training_length() == (5, "iteration")
    fired = _fired_iterations(trigger, 6, 10,
                              observations=lambda iteration: {"main/accuracy": 0.1 * iteration})
    assert fired[0] == 5


def test_early_stopping_trigger_refuses_patience_and_patients_together():
    with pytest.raises(TypeError, match="'patients' is an alias"):
        triggers.EarlyStoppingTrigger(patience=2, patients=3)
    assert triggers.EarlyStoppingTrigger(patients=4).patience == 4


def test_early_stopping_trigger_warns_when_monitor_is_missing():
    trigger = triggers.EarlyStoppingTrigger(check_trigger=(1, "iteration"), monitor="absent")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _fired_iterations(trigger, 2, 10) == []
    assert any("absent is not in observation" in str(w.message) for w in caught)
