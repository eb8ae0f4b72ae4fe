"""Extensions: LogReport, PrintReport, Evaluator, snapshots, observations and checks."""

from __future__ import annotations

import io
import json
import os
import types
import warnings

import numpy
import pytest

from chainer_compat import Link, Parameter, configuration, reporter, serializers
from chainer_compat import functions as F
from chainer_compat.iterators import SerialIterator
from chainer_compat.optimizers import SGD
from chainer_compat.testing import get_trainer_with_mock_updater
from chainer_compat.training import StandardUpdater, Trainer, extensions


class LinearRegression(Link):
    def __init__(self, size=3):
        super().__init__()
        with self.init_scope():
            self.w = Parameter(numpy.zeros((size, 1), numpy.float32))
        self.seen_config = []

    def forward(self, x, t):
        self.seen_config.append((configuration.config.train,
                                 configuration.config.enable_backprop))
        loss = F.mean_squared_error(F.matmul(x, self.w), t)
        reporter.report({"loss": loss, "double": 2 * loss}, self)
        return loss


def _dataset(size=12, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.randn(size, 3).astype(numpy.float32)
    t = x @ numpy.array([[1.0], [-2.0], [0.5]], numpy.float32)
    return list(zip(x, t))


def _trainer(out, stop=(3, "epoch"), batch_size=4, size=12, lr=0.1):
    model = LinearRegression()
    optimizer = SGD(lr=lr)
    optimizer.setup(model)
    iterator = SerialIterator(_dataset(size), batch_size, shuffle=False)
    trainer = Trainer(StandardUpdater(iterator, optimizer), stop, out=str(out))
    return trainer, model, optimizer


def _spy(trainer):
    observed = []

    def spy(trainer):
        observed.append({key: float(getattr(value, "array", value))
                         for key, value in trainer.observation.items()})

    trainer.extend(spy, priority=0)
    return observed


# LogReport

def test_log_report_writes_epoch_means_to_a_json_file(tmp_path):
    trainer, _, _ = _trainer(tmp_path)
    trainer.extend(extensions.LogReport())
    observed = _spy(trainer)
    trainer.run()
    with open(tmp_path / "log") as stream:
        log = json.load(stream)
    assert log == trainer.get_extension("LogReport").log
    assert [entry["epoch"] for entry in log] == [1, 2, 3]
    assert [entry["iteration"] for entry in log] == [3, 6, 9]
    for epoch, entry in enumerate(log):
        assert set(entry) == {"main/loss", "main/double", "epoch", "iteration", "elapsed_time"}
        losses = [o["main/loss"] for o in observed[3 * epoch:3 * epoch + 3]]
        assert entry["main/loss"] == pytest.approx(numpy.mean(losses))
    assert log[0]["elapsed_time"] <= log[1]["elapsed_time"] <= log[2]["elapsed_time"]
    assert [name for name in os.listdir(tmp_path) if name != "log"] == []


def test_log_report_file_gets_the_umasks_usual_permissions(tmp_path):
    # Chainer's log is readable by others under the common umask 022 (0644), like snapshots.
    trainer, _, _ = _trainer(tmp_path)
    trainer.extend(extensions.LogReport())
    previous = os.umask(0o022)
    try:
        trainer.run()
    finally:
        os.umask(previous)
    assert os.stat(tmp_path / "log").st_mode & 0o777 == 0o644
    assert sorted(os.listdir(tmp_path)) == ["log"]


def test_log_report_keys_trigger_postprocess_and_filename(tmp_path):
    trainer, _, _ = _trainer(tmp_path, stop=(4, "iteration"))

    def postprocess(entry):
        entry["extra"] = entry["iteration"] * 10

    trainer.extend(extensions.LogReport(keys=["main/loss"], trigger=(2, "iteration"),
                                        postprocess=postprocess, filename="log_{iteration}"))
    trainer.run()
    log = trainer.get_extension("LogReport").log
    assert [entry["iteration"] for entry in log] == [2, 4]
    assert all("main/double" not in entry and entry["extra"] == entry["iteration"] * 10
               for entry in log)
    with open(tmp_path / "log_4") as stream:
        assert json.load(stream) == log
    assert (tmp_path / "log_2").exists()


def test_log_report_accepts_deprecated_log_name_and_none_writes_no_file(tmp_path):
    trainer, _, _ = _trainer(tmp_path, stop=(1, "epoch"))
    trainer.extend(extensions.LogReport(log_name=None))
    trainer.run()
    assert os.listdir(tmp_path) == []
    assert len(trainer.get_extension("LogReport").log) == 1
    with pytest.raises(TypeError):
        extensions.LogReport(unknown=1)


def test_log_report_makes_an_entry_before_training(tmp_path):
    trainer, _, _ = _trainer(tmp_path, stop=(1, "epoch"))
    trainer.extend(extensions.LogReport(), call_before_training=True)
    trainer.run()
    log = trainer.get_extension("LogReport").log
    assert [entry["iteration"] for entry in log] == [0, 3]


def test_log_report_serializes_its_log(tmp_path):
    trainer, _, _ = _trainer(tmp_path, stop=(2, "epoch"))
    trainer.extend(extensions.LogReport())
    trainer.run()
    serializers.save_npz(tmp_path / "log.npz", trainer.get_extension("LogReport"))
    loaded = extensions.LogReport()
    serializers.load_npz(tmp_path / "log.npz", loaded)
    assert loaded.log == trainer.get_extension("LogReport").log


# PrintReport

def test_print_report_prints_a_header_and_one_row_per_log_entry(tmp_path):
    trainer, _, _ = _trainer(tmp_path)
    entries = ["epoch", "iteration", "main/loss", "missing", "a_rather_long_entry_name"]
    out = io.StringIO()
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(entries, out=out))
    trainer.run()
    widths = [max(10, len(entry)) for entry in entries]
    expected = "  ".join(entry.ljust(width) for entry, width in zip(entries, widths)) + "\n"
    for entry in trainer.get_extension("LogReport").log:
        cells = [format(entry[name], f"<{width}g") + "  " if name in entry
                 else " " * (width + 2) for name, width in zip(entries, widths)]
        expected += "\x1b[J" + "".join(cells) + "\n"
    assert out.getvalue() == expected


def test_print_report_can_own_its_log_report(tmp_path):
    trainer, _, _ = _trainer(tmp_path, stop=(2, "epoch"))
    out = io.StringIO()
    log_report = extensions.LogReport(log_name=None)
    trainer.extend(extensions.PrintReport(["epoch"], log_report=log_report, out=out))
    trainer.run()
    assert out.getvalue().count("\n") == 3
    with pytest.raises(TypeError, match="log report has a wrong type"):
        extensions.PrintReport(["epoch"], log_report=3)(trainer)


# Evaluator

def test_evaluator_reports_validation_means_of_target_values(tmp_path):
    trainer, model, _ = _trainer(tmp_path, stop=(2, "epoch"))
    validation = _dataset(10, seed=1)
    trainer.extend(extensions.Evaluator(
        SerialIterator(validation, 4, repeat=False, shuffle=False), model))
    observed = _spy(trainer)
    trainer.run()
    x = numpy.stack([example[0] for example in validation])
    t = numpy.stack([example[1] for example in validation])
    batch_losses = [numpy.mean((x[i:i + 4] @ model.w.array - t[i:i + 4]) ** 2)
                    for i in range(0, 10, 4)]
    last = observed[-1]
    assert {"validation/main/loss", "validation/main/double"} <= set(last)
    assert last["validation/main/loss"] == pytest.approx(numpy.mean(batch_losses), rel=1e-5)
    assert last["validation/main/double"] == pytest.approx(2 * numpy.mean(batch_losses),
                                                           rel=1e-5)
    assert sum("validation/main/loss" in o for o in observed) == 2
    evaluation_configs = model.seen_config[-3:]
    assert evaluation_configs == [(False, False)] * 3


def test_evaluator_resets_its_iterator_and_returns_the_result():
    model = LinearRegression()
    model.w.array[...] = 1.0
    iterator = SerialIterator(_dataset(6), 4, repeat=False, shuffle=False)
    hooks = []
    evaluator = extensions.Evaluator(iterator, model, eval_hook=hooks.append)
    first = evaluator()
    second = evaluator()
    assert set(first) == {"main/loss", "main/double"}  # no name before registration
    assert float(first["main/loss"]) == pytest.approx(float(second["main/loss"]))
    assert hooks == [evaluator, evaluator]
    assert evaluator.get_target("main") is model
    assert evaluator.get_all_iterators() == {"main": iterator}
    assert evaluator.default_name == "validation"


def test_evaluator_copies_an_iterator_without_reset():
    class Batches:
        def __init__(self, batches):
            self.batches = batches

        def __iter__(self):
            return iter(self.batches)

        def finalize(self):
            pass

    dataset = _dataset(4)
    model = LinearRegression()
    evaluator = extensions.Evaluator(Batches([dataset[:2], dataset[2:]]), model)
    with pytest.warns(DeprecationWarning, match="does not have the reset method"):
        result = evaluator()
    assert "main/loss" in result


def test_evaluator_uses_eval_func_and_warns_on_repeating_iterator():
    model = LinearRegression()
    calls = []

    def eval_func(x, t):
        calls.append(x.shape)
        reporter.report({"value": 1.0})

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        extensions.Evaluator(SerialIterator(_dataset(4), 2), model)
    assert any("`repeat` property" in str(w.message) for w in caught)
    evaluator = extensions.Evaluator(SerialIterator(_dataset(4), 2, repeat=False), model,
                                     eval_func=eval_func)
    assert evaluator() == {"value": 1.0}
    assert calls == [(2, 3), (2, 3)]


# Snapshots

def test_snapshot_files_load_back_and_resume_at_the_same_iteration(tmp_path):
    trainer, model, _ = _trainer(tmp_path, stop=(2, "epoch"))
    trainer.extend(extensions.snapshot())
    trainer.extend(extensions.snapshot_object(model, "model_{.updater.epoch}"),
                   trigger=(1, "epoch"))
    trainer.extend(extensions.LogReport())
    trainer.run()
    names = sorted(os.listdir(tmp_path))
    assert names == ["log", "model_1", "model_2", "snapshot_iter_3", "snapshot_iter_6"]
    resumed, resumed_model, _ = _trainer(tmp_path / "resumed", stop=(3, "epoch"))
    resumed.extend(extensions.LogReport())
    serializers.load_npz(tmp_path / "snapshot_iter_6", resumed)
    assert resumed.updater.iteration == 6
    assert resumed.updater.epoch == 2
    numpy.testing.assert_array_equal(resumed_model.w.array, model.w.array)
    assert resumed.get_extension("LogReport").log == trainer.get_extension("LogReport").log
    resumed.run()
    assert resumed.updater.iteration == 9
    assert [entry["epoch"] for entry in resumed.get_extension("LogReport").log] == [1, 2, 3]
    plain = LinearRegression()
    serializers.load_npz(tmp_path / "model_2", plain)
    numpy.testing.assert_array_equal(plain.w.array, model.w.array)


def test_snapshot_keeps_n_retains_and_autoloads(tmp_path):
    trainer, model, _ = _trainer(tmp_path, stop=(4, "iteration"))
    trainer.extend(extensions.snapshot(n_retains=2), trigger=(1, "iteration"))
    trainer.run()
    assert sorted(os.listdir(tmp_path)) == ["snapshot_iter_3", "snapshot_iter_4"]
    resumed, _, _ = _trainer(tmp_path, stop=(6, "iteration"))
    resumed.extend(extensions.snapshot(autoload=True), trigger=(10, "iteration"))
    resumed.run()
    assert resumed.updater.iteration == 6  # resumed from iteration 4, two more updates


def test_snapshot_filename_callable_condition_and_on_error(tmp_path):
    trainer, _, _ = _trainer(tmp_path, stop=(3, "iteration"))
    trainer.extend(extensions.snapshot(filename=lambda t: f"it{t.updater.iteration}",
                                       condition=lambda: False), trigger=(1, "iteration"))
    trainer.extend(extensions.snapshot(filename="error_{.updater.iteration}",
                                       snapshot_on_error=True), trigger=(100, "iteration"),
                   name="on_error")

    def fail(trainer):
        if trainer.updater.iteration == 2:
            raise RuntimeError("stop here")

    trainer.extend(fail)
    with pytest.raises(RuntimeError, match="stop here"):
        trainer.run(show_loop_exception_msg=False)
    assert os.listdir(tmp_path) == ["error_2"]


def test_snapshot_refuses_savefun_with_writer_and_passes_the_serialized_dict(tmp_path):
    with pytest.raises(TypeError, match="cannot be specified together"):
        extensions.snapshot(savefun=serializers.save_npz, writer=object())
    saved = {}

    def savefun(path, target):
        saved.update(target)
        serializers.save_npz(path, target)

    trainer, _, _ = _trainer(tmp_path, stop=(1, "iteration"))
    trainer.extend(extensions.snapshot(savefun=savefun), trigger=(1, "iteration"))
    trainer.run()
    assert saved["updater/iteration"] == 1
    assert "updater/model:main/w" in saved
    with numpy.load(tmp_path / "snapshot_iter_1") as stored:
        assert set(stored.files) == set(saved)


# observe_value, FailOnNonNumber, MicroAverage, ParameterStatistics, ProgressBar

def test_observe_lr_and_observe_value_write_the_observation(tmp_path):
    trainer, _, optimizer = _trainer(tmp_path, stop=(2, "epoch"), lr=0.25)
    trainer.extend(extensions.observe_lr(), trigger=(1, "iteration"))
    trainer.extend(extensions.observe_value("iter", lambda t: t.updater.iteration),
                   trigger=(1, "iteration"))
    observed = _spy(trainer)
    trainer.run()
    assert all(o["lr"] == optimizer.lr for o in observed)
    assert [o["iter"] for o in observed] == list(range(1, 7))
    extension = extensions.observe_lr()
    assert extension.trigger == (1, "epoch")
    assert extension.priority == extensions.Evaluator.priority


def test_fail_on_nonnumber_stops_diverging_training(tmp_path):
    trainer, model, _ = _trainer(tmp_path, stop=(3, "iteration"))
    trainer.extend(extensions.FailOnNonNumber())
    trainer.extend(lambda t: model.w.array.__setitem__(0, numpy.nan) if
                   t.updater.iteration == 2 else None, name="poison", priority=1000)
    with pytest.raises(RuntimeError, match="parameters in optimizer 'main' diverge"):
        trainer.run(show_loop_exception_msg=False)
    assert trainer.updater.iteration == 2


def test_micro_average_reports_ratio_of_sums():
    numerators, denominators = [1, 2, 3, 4, 5, 6], [2, 2, 4, 4, 8, 8]
    trainer = get_trainer_with_mock_updater(iter_per_epoch=3)
    average = extensions.MicroAverage("n", "d", "ratio", trigger=(1, "epoch"))
    results = []
    for index in range(6):
        trainer.updater.update()
        trainer.observation = {"n": numerators[index], "d": denominators[index]}
        with trainer.reporter.scope(trainer.observation):
            average(trainer)
        if "ratio" in trainer.observation:
            results.append(trainer.observation["ratio"])
    assert results == [sum(numerators[:3]) / sum(denominators[:3]),
                       sum(numerators[3:]) / sum(denominators[3:])]


def test_parameter_statistics_reports_means_of_statistics():
    model = LinearRegression()
    model.w.array[...] = numpy.array([[1.0], [0.0], [3.0]], numpy.float32)
    model.w.grad = numpy.array([[0.5], [0.5], [-1.0]], numpy.float32)
    trainer = get_trainer_with_mock_updater(iter_per_epoch=1)
    statistics = extensions.ParameterStatistics(model, prefix="p")
    observation = {}
    trainer.updater.update()
    with trainer.reporter.scope(observation):
        statistics(trainer)
    data = model.w.array.ravel()
    assert observation["p/None/w/data/mean"] == pytest.approx(data.mean())
    assert observation["p/None/w/data/std"] == pytest.approx(data.std())
    assert observation["p/None/w/data/zeros"] == 1
    # NumPy 1 counted into a Python int, so the reported mean is a Python float, not NumPy's.
    assert type(observation["p/None/w/data/zeros"]) is float
    assert observation["p/None/w/grad/min"] == pytest.approx(-1.0)
    percentiles = numpy.percentile(data, (0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87))
    for index, value in enumerate(percentiles):
        assert observation[f"p/None/w/data/percentile/{index}"] == pytest.approx(value)
    statistics.register_statistics("sum", lambda x: x.sum())
    observation = {}
    trainer.updater.update()
    with trainer.reporter.scope(observation):
        statistics(trainer)
    assert observation["p/None/w/data/sum"] == pytest.approx(data.sum())


def test_progress_bar_draws_on_its_stream(tmp_path):
    trainer = get_trainer_with_mock_updater(stop_trigger=(4, "iteration"), iter_per_epoch=2)
    trainer.out = str(tmp_path)
    out = io.StringIO()
    trainer.extend(extensions.ProgressBar(update_interval=2, out=out))
    trainer.run()
    text = out.getvalue()
    assert text.count("     total [") == 2
    assert "100.00%" in text
    assert "         4 iter, 2 epoch / 4 iterations" in text
    assert text.endswith("\x1b[J")


# Shifts

def _schedule(extension, count, initial=1.0, attribute="lr"):
    optimizer = types.SimpleNamespace(**{attribute: initial})
    trainer = get_trainer_with_mock_updater()
    trainer.updater.get_optimizer.return_value = optimizer
    extension.initialize(trainer)
    values = [getattr(optimizer, attribute)]
    for _ in range(count):
        extension(trainer)
        values.append(getattr(optimizer, attribute))
    return values


def test_exponential_shift_follows_init_times_rate_power_t_until_target():
    values = _schedule(extensions.ExponentialShift("lr", 0.5, init=2.0, target=0.2), 6)
    assert values == pytest.approx([max(2.0 * 0.5 ** t, 0.2) for t in range(7)])
    growing = _schedule(extensions.ExponentialShift("lr", 2.0, target=5.0), 4)
    assert growing == pytest.approx([min(2.0 ** t, 5.0) for t in range(5)])
    with pytest.raises(ValueError, match="negative rate"):
        extensions.ExponentialShift("lr", -1.0)


def test_step_shift_multiplies_every_step_calls():
    values = _schedule(extensions.StepShift("lr", 0.1, 3, init=1.0), 8)
    assert values == pytest.approx([0.1 ** (t // 3) for t in range(9)])


def test_inverse_shift_follows_the_inverse_decay():
    values = _schedule(extensions.InverseShift("lr", 0.5, 2.0, init=3.0, target=0.5), 6)
    assert values == pytest.approx([max(3.0 * (1 + 0.5 * t) ** -2.0, 0.5) for t in range(7)])
    with pytest.raises(ValueError, match="negative gamma"):
        extensions.InverseShift("lr", -0.1, 1.0)


def test_polynomial_shift_decays_to_zero_over_max_count():
    values = _schedule(extensions.PolynomialShift("lr", 2.0, 4, init=1.0), 3)
    assert values == pytest.approx([max(1 - t / 4, 0) ** 2.0 for t in range(4)])


def test_linear_shift_interpolates_between_the_ranges():
    values = _schedule(extensions.LinearShift("lr", (1.0, 3.0), (2, 6)), 8)
    expected = [1.0 if t <= 2 else 3.0 if t >= 6 else 1.0 + (t - 2) / 4 * 2.0
                for t in range(9)]
    assert values == pytest.approx(expected)


def test_multistep_shift_steps_at_the_listed_calls():
    values = _schedule(extensions.MultistepShift("lr", 0.5, [2, 5], init=4.0), 7)
    expected = [4.0] + [4.0 * 0.5 ** sum(t >= step for step in (2, 5)) for t in range(1, 8)]
    assert values == pytest.approx(expected)


def test_warmup_shift_interpolates_from_start_to_init():
    values = _schedule(extensions.WarmupShift("lr", 0.0, 4, 2.0), 6)
    expected = [0.0] + [(t * 2.0) / 4 if t <= 4 else 2.0 for t in range(1, 7)]
    assert values == pytest.approx(expected)


def test_shift_resumes_from_the_saved_value(tmp_path):
    shift = extensions.ExponentialShift("lr", 0.5, init=1.0)
    _schedule(shift, 3)
    serializers.save_npz(tmp_path / "shift.npz", shift)
    resumed = extensions.ExponentialShift("lr", 0.5, init=1.0)
    serializers.load_npz(tmp_path / "shift.npz", resumed)
    values = _schedule(resumed, 2, initial=123.0)
    assert values == pytest.approx([0.5 ** 3, 0.5 ** 4, 0.5 ** 5])
