"""Extensions: snapshot writers, PlotReport, DumpGraph and unchain_variables."""

from __future__ import annotations

import builtins
import multiprocessing
import os
import sys
import threading
import warnings
from unittest import mock

import matplotlib
import numpy
import pytest

from chainer_compat import Link, Parameter, configuration, reporter, serializers
from chainer_compat import functions as F
from chainer_compat.iterators import SerialIterator
from chainer_compat.optimizers import SGD
from chainer_compat.serializers import hdf5
from chainer_compat.training import StandardUpdater, Trainer, extensions
from chainer_compat.training.extensions import (
    computational_graph,
    plot_report,
    snapshot_writers,
)

matplotlib.use("Agg")


class LinearRegression(Link):
    def __init__(self, size=3):
        super().__init__()
        with self.init_scope():
            self.w = Parameter(numpy.zeros((size, 1), numpy.float32))

    def forward(self, x, t):
        loss = F.mean_squared_error(F.matmul(x, self.w), t)
        reporter.report({"loss": loss}, self)
        return loss


def _trainer(out, stop=(3, "epoch")):
    rng = numpy.random.RandomState(0)
    x = rng.randn(12, 3).astype(numpy.float32)
    t = x @ numpy.array([[1.0], [-2.0], [0.5]], numpy.float32)
    model = LinearRegression()
    optimizer = SGD(lr=0.1)
    optimizer.setup(model)
    iterator = SerialIterator(list(zip(x, t)), 4, shuffle=False)
    return Trainer(StandardUpdater(iterator, optimizer), stop, out=str(out)), model


def _loaded_w(path, loader=serializers.load_npz):
    model = LinearRegression()
    loader(str(path), model)
    return model.w.array


# snapshot writers

WRITERS = [snapshot_writers.SimpleWriter, snapshot_writers.ThreadWriter,
           snapshot_writers.ProcessWriter, snapshot_writers.ThreadQueueWriter,
           snapshot_writers.ProcessQueueWriter]


@pytest.mark.parametrize("writer_class", WRITERS)
def test_writer_in_snapshot_object_writes_each_epoch(tmp_path, writer_class):
    trainer, model = _trainer(tmp_path)
    writer = writer_class()
    trainer.extend(extensions.snapshot_object(model, "model_{.updater.epoch}", writer=writer))
    trainer.run()
    assert sorted(os.listdir(tmp_path)) == ["model_1", "model_2", "model_3"]
    numpy.testing.assert_array_equal(_loaded_w(tmp_path / "model_3"), model.w.array)
    assert not _loaded_w(tmp_path / "model_1").tolist() == model.w.array.tolist()


@pytest.mark.parametrize("writer_class", [snapshot_writers.SimpleWriter,
                                          snapshot_writers.ThreadWriter,
                                          snapshot_writers.ProcessWriter])
def test_writer_runs_cleanup_hooks_so_n_retains_keeps_the_latest(tmp_path, writer_class):
    trainer, _ = _trainer(tmp_path, stop=(4, "epoch"))
    trainer.extend(extensions.snapshot(filename="snap_{.updater.epoch}", n_retains=2,
                                       writer=writer_class()))
    trainer.run()
    assert sorted(os.listdir(tmp_path)) == ["snap_3", "snap_4"]


@pytest.mark.parametrize("writer_class", WRITERS)
def test_writer_passes_savefun_and_its_keywords(tmp_path, writer_class):
    trainer, model = _trainer(tmp_path, stop=(1, "epoch"))
    writer = (writer_class(savefun=hdf5.save_hdf5) if "Queue" in writer_class.__name__
              else writer_class(savefun=hdf5.save_hdf5, compression=9))
    trainer.extend(extensions.snapshot_object(model, "model.h5", writer=writer))
    trainer.run()
    numpy.testing.assert_array_equal(_loaded_w(tmp_path / "model.h5", hdf5.load_hdf5),
                                     model.w.array)


def test_process_writers_hand_out_multiprocessing_processes(tmp_path):
    # Chainer's writers return multiprocessing.Process objects, and code checks for them;
    # ours still fork where the platform can (the bound-method target is not picklable).
    worker = snapshot_writers.ProcessWriter().create_worker("f", str(tmp_path), {})
    assert isinstance(worker, multiprocessing.Process)
    writer = snapshot_writers.ProcessQueueWriter()
    try:
        assert isinstance(writer._consumer, multiprocessing.Process)
    finally:
        writer.finalize()


def test_queue_consumer_reads_any_sequence_of_four():
    class Item:  # indexable, not unpackable: Chainer reads queue items by index
        __iter__ = None

        def __init__(self, *parts):
            self.parts = parts

        def __getitem__(self, index):
            return self.parts[index]

    calls = []
    queue = mock.MagicMock()
    task = Item(lambda *args: calls.append(args), "f", "dir", "target")
    queue.get.side_effect = [task, task, None]
    writer = snapshot_writers.ThreadQueueWriter()
    try:
        writer.consume(queue)
    finally:
        writer.finalize()
    assert calls == [("f", "dir", "target")] * 2
    assert queue.task_done.call_count == 3


def test_standard_writer_waits_for_the_previous_worker(tmp_path):
    order = []
    release = threading.Event()

    def slow_save(path, target):
        order.append(("start", os.path.basename(path)))
        release.wait(5)
        order.append(("end", os.path.basename(path)))
        open(path, "w").close()

    writer = snapshot_writers.ThreadWriter(savefun=slow_save)
    writer("a", str(tmp_path), {})
    timer = threading.Timer(0.05, release.set)
    timer.start()
    writer("b", str(tmp_path), {})
    writer.finalize()
    assert order == [("start", "a"), ("end", "a"), ("start", "b"), ("end", "b")]
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]


def test_queue_writer_runs_a_given_task_and_finalize_drains_the_queue(tmp_path):
    calls = []
    writer = snapshot_writers.ThreadQueueWriter(task=lambda *args: calls.append(args))
    for name in "abc":
        writer(name, str(tmp_path), {"x": 1})
    writer.finalize()
    assert calls == [(name, str(tmp_path), {"x": 1}) for name in "abc"]
    writer.finalize()  # a second call is harmless


def test_writer_base_classes_require_their_methods(tmp_path):
    with pytest.raises(NotImplementedError):
        snapshot_writers.Writer()("a", str(tmp_path), {})
    with pytest.raises(NotImplementedError):
        snapshot_writers.StandardWriter()("a", str(tmp_path), {})
    with pytest.raises(NotImplementedError):
        snapshot_writers.QueueWriter()


def test_default_snapshot_writer_is_a_simple_writer(tmp_path):
    extension = extensions.snapshot()
    assert isinstance(extension.writer, snapshot_writers.SimpleWriter)


# PlotReport

def test_plot_report_draws_an_image_and_records_series(tmp_path):
    trainer, _ = _trainer(tmp_path)
    plot = extensions.PlotReport("main/loss", "epoch", filename="loss.png")
    trainer.extend(plot)
    losses = []
    trainer.extend(lambda t: losses.append(float(t.observation["main/loss"].array)),
                   priority=0)
    trainer.run()
    assert (tmp_path / "loss.png").stat().st_size > 0
    series = plot._data["main/loss"]
    assert [x for x, _ in series] == [1, 2, 3]
    for epoch, (_, mean) in enumerate(series):
        assert mean == pytest.approx(numpy.mean(losses[3 * epoch:3 * epoch + 3]))


def test_plot_report_postprocess_sees_the_figure_and_file_name_alias(tmp_path):
    trainer, _ = _trainer(tmp_path, stop=(1, "epoch"))
    seen = []
    trainer.extend(extensions.PlotReport(["main/loss", "absent"], file_name="p.png",
                                         postprocess=lambda f, a, s: seen.append(a.get_xlabel()),
                                         marker=None, grid=False))
    trainer.run()
    assert seen == ["iteration"]
    assert (tmp_path / "p.png").exists()


def test_plot_report_serializes_its_series():
    source = extensions.PlotReport(["a"], filename="x.png")
    source._data["a"] = [[1, 2.0], [2, 1.5]]
    saved = serializers.DictionarySerializer()
    source.serialize(saved)
    assert set(saved.target) == {"_plot_x.png"}
    target = extensions.PlotReport(["a"], filename="x.png")
    target.serialize(serializers.NpzDeserializer(saved.target))
    assert target._data == {"a": [[1, 2.0], [2, 1.5]]}


def test_plot_report_warns_and_does_nothing_without_matplotlib(monkeypatch, tmp_path):
    real_import = builtins.__import__

    def refuse(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)
    monkeypatch.setattr(plot_report, "_available", None)
    for name in [name for name in sys.modules if name.startswith("matplotlib")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.warns(UserWarning, match="pip install matplotlib"):
        assert extensions.PlotReport.available() is False
    with pytest.warns(UserWarning, match="matplotlib is not installed"):
        plot = extensions.PlotReport("main/loss")
    trainer, _ = _trainer(tmp_path, stop=(1, "epoch"))
    trainer.extend(plot)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer.run()
    assert plot._data == {"main/loss": []}
    assert os.listdir(tmp_path) == []


def test_plot_report_available_is_true_with_matplotlib(monkeypatch):
    monkeypatch.setattr(plot_report, "_available", None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert extensions.PlotReport.available() is True


# DumpGraph and unchain_variables

def test_dump_graph_writes_the_loss_graph_once_and_restores_the_flag(tmp_path, monkeypatch):
    monkeypatch.setattr(computational_graph, "is_graphviz_available", lambda: False)
    trainer, _ = _trainer(tmp_path, stop=(2, "epoch"))
    seen_flags = []
    trainer.extend(lambda t: seen_flags.append(configuration.config.keep_graph_on_report),
                   priority=1000)
    trainer.extend(extensions.dump_graph("main/loss", filename="g.dot"))
    assert configuration.config.keep_graph_on_report is False
    trainer.run()
    assert seen_flags[0] is True and set(seen_flags[1:]) == {False}
    text = (tmp_path / "g.dot").read_text()
    assert text.startswith("digraph")
    assert "MeanSquaredError" in text and "octagon" in text
    assert os.listdir(tmp_path) == ["g.dot"]
    assert configuration.config.keep_graph_on_report is False


def test_dump_graph_refuses_a_non_variable_and_still_restores_the_flag(tmp_path):
    trainer, _ = _trainer(tmp_path, stop=(1, "epoch"))
    trainer.extend(lambda t: reporter.report({"number": 1.0}), priority=1000)
    trainer.extend(extensions.DumpGraph("number"))
    with pytest.raises(TypeError, match="root value is not a Variable"):
        trainer.run()
    assert configuration.config.keep_graph_on_report is False


def test_dump_graph_serializes_its_state():
    source = extensions.DumpGraph("main/loss")
    source._flag_called, source._original_flag = True, False
    saved = serializers.DictionarySerializer()
    source.serialize(saved)
    target = extensions.DumpGraph("main/loss")
    target.serialize(serializers.NpzDeserializer(saved.target))
    assert (target._flag_called, target._original_flag) == (True, False)
    assert target.trigger(None) is False


def test_is_return_code_zero_tells_success_failure_and_missing_commands():
    assert computational_graph.is_return_code_zero([sys.executable, "-c", "pass"])
    assert not computational_graph.is_return_code_zero([sys.executable, "-c", "exit(3)"])
    assert not computational_graph.is_return_code_zero(["/nonexistent/command"])


def test_unchain_variables_fires_after_the_flag_was_on_and_unchains(tmp_path):
    trainer, _ = _trainer(tmp_path, stop=(1, "epoch"))
    before, after = [], []
    unchain = extensions.unchain_variables()
    assert unchain.priority == 0
    trainer.extend(unchain)
    trainer.extend(lambda t: before.append(t.observation["main/loss"].creator), priority=1)
    trainer.extend(lambda t: after.append(t.observation["main/loss"].creator), priority=-1)
    with configuration.using_config("keep_graph_on_report", True):
        trainer.run()
    assert len(before) == 3 and all(creator is not None for creator in before)
    assert after == [None, None, None]


def test_unchain_variables_does_not_fire_while_the_flag_is_off():
    unchain = extensions.unchain_variables()
    unchain.initialize(None)
    assert unchain.trigger(None) is False
    assert unchain.trigger(None) is False


# VariableStatisticsPlot

def test_variable_statistics_plot_records_statistics_and_draws(tmp_path):
    from chainer_compat.training.extensions import variable_statistics_plot as vsp

    trainer, model = _trainer(tmp_path, stop=(2, "epoch"))
    percentiles = (0, 50, 100)
    plot = extensions.VariableStatisticsPlot(model, percentile_sigmas=percentiles,
                                             filename="stats.png")
    expected = []

    def reference(t):
        data, grad = model.w.array.ravel(), model.w.grad.ravel()
        expected.append([[values.mean(), values.std(), *numpy.percentile(values, percentiles)]
                         for values in (data, grad)])

    trainer.extend(reference, priority=1000)
    trainer.extend(plot)
    trainer.run()
    assert (tmp_path / "stats.png").stat().st_size > 0
    labels, data = plot._samples.get_data()
    assert labels.tolist() == [1, 2, 3, 4, 5, 6]
    numpy.testing.assert_allclose(data, numpy.array(expected, numpy.float32), rtol=1e-5)
    assert isinstance(plot._samples, vsp.Reservoir)


@pytest.mark.parametrize("options", [
    {"plot_mean": False, "plot_std": False, "percentile_sigmas": 50},
    {"plot_std": False, "percentile_sigmas": ()},
    {"report_grad": False, "percentile_sigmas": (10, 50, 90, 100)},
])
def test_variable_statistics_plot_layouts_draw(tmp_path, options):
    trainer, model = _trainer(tmp_path, stop=(1, "epoch"))
    trainer.extend(extensions.VariableStatisticsPlot([model.w], **options))
    trainer.run()
    assert (tmp_path / "statistics.png").exists()


def test_variable_statistics_plot_refuses_empty_targets_and_nothing_to_plot():
    with pytest.raises(ValueError, match="Need at least one variables"):
        extensions.VariableStatisticsPlot([])
    with pytest.raises(ValueError, match="Nothing to plot"):
        extensions.VariableStatisticsPlot(LinearRegression(), plot_mean=False, plot_std=False,
                                          percentile_sigmas=())


def test_reservoir_keeps_at_most_size_items_sorted_by_label():
    from chainer_compat.training.extensions.variable_statistics_plot import Reservoir

    numpy.random.seed(0)
    reservoir = Reservoir(4, data_shape=(2,))
    for index in range(1, 21):
        reservoir.add(numpy.full(2, index), idx=index)
    labels, data = reservoir.get_data()
    assert len(labels) == 4 and reservoir.counter == 20
    assert labels.tolist() == sorted(labels.tolist())
    numpy.testing.assert_array_equal(data[:, 0], labels)
