"""Chainer-visible behaviour of the snapshot writers, PlotReport, DumpGraph and
unchain_variables: files written, serialized keys, triggers and priorities. Each case was
checked against Chainer 7.8.1; set CHAINER_CONFORMANCE_TARGET=chainer to run this file on
Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import matplotlib
import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
serializers = importlib.import_module(chainer.__name__ + ".serializers")
iterators = importlib.import_module(chainer.__name__ + ".iterators")
optimizers = importlib.import_module(chainer.__name__ + ".optimizers")
training = importlib.import_module(chainer.__name__ + ".training")
extensions = training.extensions
writers = extensions.snapshot_writers
graph_extension = importlib.import_module(
    chainer.__name__ + ".training.extensions.computational_graph")

matplotlib.use("Agg")


class LinearRegression(chainer.Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.zeros((3, 1), numpy.float32))

    def forward(self, x, t):
        loss = F.mean_squared_error(F.matmul(x, self.w), t)
        chainer.reporter.report({"loss": loss}, self)
        return loss


def make_trainer(out, epochs=2):
    rng = numpy.random.RandomState(0)
    x = rng.randn(8, 3).astype(numpy.float32)
    t = x @ numpy.array([[1.0], [-2.0], [0.5]], numpy.float32)
    model = LinearRegression()
    optimizer = optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    iterator = iterators.SerialIterator(list(zip(x, t)), 4, shuffle=False)
    updater = training.updaters.StandardUpdater(iterator, optimizer)
    return training.Trainer(updater, (epochs, "epoch"), out=str(out)), model


@pytest.mark.parametrize("name", ["SimpleWriter", "ThreadWriter", "ProcessWriter",
                                  "ThreadQueueWriter", "ProcessQueueWriter"])
def test_each_writer_writes_snapshots_that_load_into_the_trainer(tmp_path, name):
    trainer, model = make_trainer(tmp_path)
    trainer.extend(extensions.snapshot(writer=getattr(writers, name)()))
    trainer.run()
    assert sorted(os.listdir(str(tmp_path))) == ["snapshot_iter_2", "snapshot_iter_4"]
    resumed, resumed_model = make_trainer(tmp_path)
    serializers.load_npz(str(tmp_path / "snapshot_iter_4"), resumed)
    assert resumed.updater.iteration == 4
    numpy.testing.assert_array_equal(resumed_model.w.array, model.w.array)


def test_writer_hierarchy():
    assert issubclass(writers.SimpleWriter, writers.Writer)
    assert issubclass(writers.ThreadWriter, writers.StandardWriter)
    assert issubclass(writers.ProcessWriter, writers.StandardWriter)
    assert issubclass(writers.ThreadQueueWriter, writers.QueueWriter)
    assert issubclass(writers.ProcessQueueWriter, writers.QueueWriter)
    assert issubclass(writers.QueueWriter, writers.Writer)


def test_snapshot_with_savefun_and_writer_is_type_error():
    with pytest.raises(TypeError):
        extensions.snapshot(savefun=serializers.save_npz, writer=writers.SimpleWriter())


def test_plot_report_saves_its_series_under_plot_key_and_draws(tmp_path):
    trainer, _ = make_trainer(tmp_path)
    plot = extensions.PlotReport(["main/loss"], "epoch", filename="loss.png")
    trainer.extend(plot)
    trainer.run()
    assert os.path.exists(str(tmp_path / "loss.png"))
    saved = serializers.DictionarySerializer()
    plot.serialize(saved)
    assert list(saved.target) == ["_plot_loss.png"]
    restored = extensions.PlotReport(["main/loss"], "epoch", filename="loss.png")
    restored.serialize(serializers.NpzDeserializer(saved.target))
    assert [point[0] for point in restored._data["main/loss"]] == [1, 2]
    assert extensions.PlotReport.available() is True


def test_plot_report_defaults():
    plot = extensions.PlotReport("main/loss")
    assert plot.trigger == (1, "iteration")
    assert plot.priority == training.PRIORITY_READER
    assert plot._file_name == "plot.png"
    assert plot._y_keys == ("main/loss",)


def test_dump_graph_writes_dot_once_and_restores_keep_graph_on_report(tmp_path, monkeypatch):
    monkeypatch.setattr(graph_extension, "is_graphviz_available", lambda: False)
    trainer, _ = make_trainer(tmp_path)
    dump = extensions.dump_graph("main/loss")
    trainer.extend(dump)
    assert trainer.get_extension("dump_graph") is dump
    trainer.run()
    assert os.listdir(str(tmp_path)) == ["cg.dot"]
    with open(str(tmp_path / "cg.dot")) as stream:
        assert stream.read().startswith("digraph graphname")
    assert chainer.config.keep_graph_on_report is False
    saved = serializers.DictionarySerializer()
    dump.serialize(saved)
    assert sorted(saved.target) == ["_flag_called", "_original_flag"]
    assert bool(saved.target["_flag_called"]) is True


def test_unchain_variables_is_priority_zero_and_triggers_on_previous_flag():
    unchain = extensions.unchain_variables()
    assert unchain.priority == 0
    with chainer.using_config("keep_graph_on_report", True):
        unchain.initialize(None)
    assert unchain.trigger(None)
    assert not unchain.trigger(None)


def test_variable_statistics_plot_samples_data_and_grad_statistics(tmp_path):
    trainer, model = make_trainer(tmp_path)
    percentiles = (0, 25, 50, 75, 100)
    plot = extensions.VariableStatisticsPlot(model, percentile_sigmas=percentiles)
    expected = []

    def reference(t):
        rows = []
        for values in (model.w.array.ravel(), model.w.grad.ravel()):
            rows.append([values.mean(), values.std()] + list(numpy.percentile(values,
                                                                               percentiles)))
        expected.append(rows)

    trainer.extend(reference, priority=1000)
    trainer.extend(plot)
    trainer.run()
    assert os.listdir(str(tmp_path)) == ["statistics.png"]
    labels, data = plot._samples.get_data()
    assert labels.tolist() == [1, 2, 3, 4]
    assert data.shape == (4, 2, 7) and data.dtype == numpy.float32
    numpy.testing.assert_allclose(data, numpy.array(expected, numpy.float32), rtol=1e-5)


def test_variable_statistics_plot_argument_errors():
    with pytest.raises(ValueError):
        extensions.VariableStatisticsPlot([])
    with pytest.raises(ValueError):
        extensions.VariableStatisticsPlot(LinearRegression(), plot_mean=False, plot_std=False,
                                          percentile_sigmas=())
