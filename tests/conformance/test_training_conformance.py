"""Chainer-visible behaviour of ``chainer.training``: trigger firing, extension order and naming,
the training loop, LogReport / PrintReport output, Evaluator keys, snapshot keys and resuming,
and the shift schedules. Each case was checked against Chainer 7.8.1; set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import types

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
reporter = importlib.import_module(chainer.__name__ + ".reporter")
serializers = importlib.import_module(chainer.__name__ + ".serializers")
iterators = importlib.import_module(chainer.__name__ + ".iterators")
optimizers = importlib.import_module(chainer.__name__ + ".optimizers")
training = importlib.import_module(chainer.__name__ + ".training")
extensions = training.extensions
triggers = training.triggers


class LinearRegression(chainer.Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.zeros((3, 1), numpy.float32))

    def forward(self, x, t):
        loss = F.mean_squared_error(F.matmul(x, self.w), t)
        reporter.report({"loss": loss}, self)
        return loss


def _dataset(size, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.randn(size, 3).astype(numpy.float32)
    t = (x @ numpy.array([[1.0], [-2.0], [0.5]], numpy.float32)).astype(numpy.float32)
    return list(zip(x, t))


def _trainer(out, stop, size=12, batch_size=4):
    model = LinearRegression()
    optimizer = optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    iterator = iterators.SerialIterator(_dataset(size), batch_size, shuffle=False)
    return training.Trainer(training.StandardUpdater(iterator, optimizer), stop,
                            out=str(out)), model


class _CountingUpdater:
    """An updater without a model: ``update()`` only advances the counters."""

    def __init__(self, iter_per_epoch):
        self.iter_per_epoch = iter_per_epoch
        self.iteration = 0
        self.optimizer = None

    @property
    def epoch(self):
        return self.iteration // self.iter_per_epoch

    @property
    def epoch_detail(self):
        return self.iteration / self.iter_per_epoch

    @property
    def previous_epoch_detail(self):
        return None if self.iteration == 0 else (self.iteration - 1) / self.iter_per_epoch

    @property
    def is_new_epoch(self):
        return self.iteration > 0 and self.iteration % self.iter_per_epoch == 0

    def update(self):
        self.iteration += 1

    def get_all_optimizers(self):
        return {}

    def get_optimizer(self, name):
        return self.optimizer

    def connect_trainer(self, trainer):
        pass

    def finalize(self):
        pass

    def serialize(self, serializer):
        self.iteration = serializer("iteration", self.iteration)


def _mock_trainer(stop_trigger=(10, "iteration"), iter_per_epoch=10, out="result"):
    return training.Trainer(_CountingUpdater(iter_per_epoch), stop_trigger, out=str(out))


def _fired(trigger, iterations, iter_per_epoch):
    trainer = _mock_trainer(iter_per_epoch=iter_per_epoch)
    fired = []
    for iteration in range(1, iterations + 1):
        trainer.updater.update()
        if trigger(trainer):
            fired.append(iteration)
    return fired


@pytest.mark.parametrize(("period", "unit", "iter_per_epoch", "every"), [
    (3, "iteration", 4, 3), (1, "epoch", 4, 4), (0.5, "epoch", 4, 2), (2, "epoch", 3, 6),
])
def test_interval_trigger_fires_every_whole_number_of_iterations(period, unit,
                                                                 iter_per_epoch, every):
    fired = _fired(training.triggers.IntervalTrigger(period, unit), 24, iter_per_epoch)
    assert fired == list(range(every, 25, every))


def test_interval_trigger_with_a_fractional_period_fires_on_the_first_crossing():
    # 0.5 epoch with 3 iterations per epoch: boundaries 1.5, 3, 4.5, 6... iterations.
    fired = _fired(training.triggers.IntervalTrigger(0.5, "epoch"), 9, 3)
    boundaries = [1.5 * k for k in range(1, 7)]
    assert fired == sorted({int(numpy.ceil(b)) for b in boundaries if b <= 9})


def test_manual_schedule_and_once_triggers():
    assert _fired(triggers.ManualScheduleTrigger([2, 5], "iteration"), 8, 4) == [2, 5]
    assert _fired(triggers.ManualScheduleTrigger(0.5, "epoch"), 8, 4) == [2]
    assert _fired(triggers.OnceTrigger(), 5, 4) == [1]


def test_get_trigger_and_priorities():
    never = training.get_trigger(None)
    assert never(None) is False
    assert isinstance(training.get_trigger((2, "epoch")), training.triggers.IntervalTrigger)
    assert (training.PRIORITY_WRITER, training.PRIORITY_EDITOR, training.PRIORITY_READER) \
        == (300, 200, 100)
    with pytest.raises(ValueError):
        training.triggers.IntervalTrigger(1, "hour")


def test_extension_order_names_and_before_training_call(tmp_path):
    trainer = _mock_trainer(stop_trigger=(2, "iteration"), out=tmp_path)
    calls = []

    @training.make_extension(priority=training.PRIORITY_READER)
    def reader(trainer):
        calls.append(("reader", trainer.updater.iteration))

    @training.make_extension(priority=training.PRIORITY_WRITER)
    def writer(trainer):
        calls.append(("writer", trainer.updater.iteration))

    trainer.extend(reader, call_before_training=True)
    trainer.extend(writer)
    trainer.extend(lambda t: None, name="writer")
    assert trainer.get_extension("writer_1") is not writer
    trainer.run()
    assert calls == [("reader", 0), ("writer", 1), ("reader", 1), ("writer", 2),
                     ("reader", 2)]
    with pytest.raises(ValueError):
        trainer.get_extension("absent")


def test_loop_exception_is_reraised_with_a_message_on_stderr(tmp_path, capsys):
    trainer = _mock_trainer(stop_trigger=(3, "iteration"), out=tmp_path)

    def fail(trainer):
        raise KeyError("boom")

    trainer.extend(fail)
    with pytest.raises(KeyError):
        trainer.run()
    err = capsys.readouterr().err
    assert "Exception in main training loop: 'boom'" in err
    assert "Will finalize trainer extensions and updater before reraising the exception." in err


def test_training_log_print_report_and_evaluator(tmp_path):
    trainer, model = _trainer(tmp_path, (2, "epoch"))
    validation = _dataset(6, seed=1)
    out = io.StringIO()
    trainer.extend(extensions.Evaluator(
        iterators.SerialIterator(validation, 4, repeat=False, shuffle=False), model))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.observe_lr())
    trainer.extend(extensions.PrintReport(
        ["epoch", "iteration", "main/loss", "validation/main/loss", "lr"], out=out))
    trainer.run()
    with open(tmp_path / "log") as stream:
        log = json.load(stream)
    assert [sorted(entry) for entry in log] == [sorted(
        ["main/loss", "validation/main/loss", "lr", "epoch", "iteration", "elapsed_time"])] * 2
    assert [(entry["epoch"], entry["iteration"]) for entry in log] == [(1, 3), (2, 6)]
    assert log[1]["main/loss"] < log[0]["main/loss"]
    x = numpy.stack([e[0] for e in validation])
    t = numpy.stack([e[1] for e in validation])
    batch_losses = [numpy.mean((x[i:i + 4] @ model.w.array - t[i:i + 4]) ** 2)
                    for i in (0, 4)]
    assert log[1]["validation/main/loss"] == pytest.approx(numpy.mean(batch_losses), rel=1e-5)
    lines = out.getvalue().split("\n")
    assert lines[0] == ("epoch       iteration   main/loss   validation/main/loss  "
                        "lr        ")
    assert lines[1].startswith("\x1b[J1           3           ")
    assert lines[1].endswith("0.1         ")
    assert lines[1][2 + 24:2 + 36].strip() == format(log[0]["main/loss"], "g")


def test_snapshot_keys_and_resume(tmp_path):
    trainer, model = _trainer(tmp_path, (2, "epoch"))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.snapshot())
    trainer.run()
    assert sorted(name for name in os.listdir(tmp_path) if name.startswith("snapshot")) \
        == ["snapshot_iter_3", "snapshot_iter_6"]
    with numpy.load(tmp_path / "snapshot_iter_6", allow_pickle=True) as stored:
        keys = set(stored.files)
    assert {"updater/iteration", "updater/model:main/w", "updater/optimizer:main/t",
            "updater/iterator:main/epoch", "updater/iterator:main/current_position",
            "stop_trigger/previous_iteration", "stop_trigger/previous_epoch_detail",
            "extensions/LogReport/_log", "extension_triggers/LogReport/previous_iteration",
            "_snapshot_elapsed_time"} <= keys
    resumed, resumed_model = _trainer(tmp_path / "resumed", (3, "epoch"))
    resumed.extend(extensions.LogReport())
    resumed.extend(extensions.snapshot())
    serializers.load_npz(str(tmp_path / "snapshot_iter_6"), resumed)
    assert resumed.updater.iteration == 6
    numpy.testing.assert_array_equal(resumed_model.w.array, model.w.array)
    resumed.run()
    assert resumed.updater.iteration == 9
    assert [e["iteration"] for e in resumed.get_extension("LogReport").log] == [3, 6, 9]


def _schedule(extension, count, initial=1.0):
    optimizer = types.SimpleNamespace(lr=initial)
    trainer = _mock_trainer()
    trainer.updater.optimizer = optimizer
    extension.initialize(trainer)
    values = [optimizer.lr]
    for _ in range(count):
        extension(trainer)
        values.append(optimizer.lr)
    return values


def test_shift_schedules():
    assert _schedule(extensions.ExponentialShift("lr", 0.5, target=0.2), 4) == pytest.approx(
        [max(0.5 ** t, 0.2) for t in range(5)])
    assert _schedule(extensions.StepShift("lr", 0.1, 2), 5) == pytest.approx(
        [0.1 ** (t // 2) for t in range(6)])
    assert _schedule(extensions.LinearShift("lr", (1.0, 2.0), (1, 3)), 4) == pytest.approx(
        [1.0, 1.0, 1.5, 2.0, 2.0])
    assert _schedule(extensions.InverseShift("lr", 1.0, 1.0), 3) == pytest.approx(
        [1 / (1 + t) for t in range(4)])
    assert _schedule(extensions.PolynomialShift("lr", 1.0, 4), 3) == pytest.approx(
        [1 - t / 4 for t in range(4)])
    assert _schedule(extensions.MultistepShift("lr", 0.5, [1, 3], 2.0), 4) == pytest.approx(
        [2.0, 1.0, 1.0, 0.5, 0.5])
    assert _schedule(extensions.WarmupShift("lr", 0.0, 2, 1.0), 3) == pytest.approx(
        [0.0, 0.5, 1.0, 1.0])
