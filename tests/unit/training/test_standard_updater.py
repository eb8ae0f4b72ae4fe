"""StandardUpdater and a full training run of a tiny linear model."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Link, Parameter, reporter
from chainer_compat import functions as F
from chainer_compat.iterators import SerialIterator
from chainer_compat.optimizers import SGD
from chainer_compat.training import StandardUpdater, Trainer, Updater, updater


class LinearRegression(Link):
    def __init__(self, size):
        super().__init__()
        with self.init_scope():
            self.w = Parameter(numpy.zeros((size, 1), numpy.float32))

    def forward(self, x, t):
        loss = F.mean_squared_error(F.matmul(x, self.w), t)
        reporter.report({"loss": loss}, self)
        return loss


def _dataset(size=12, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.randn(size, 3).astype(numpy.float32)
    t = x @ numpy.array([[1.0], [-2.0], [0.5]], numpy.float32)
    return list(zip(x, t))


def _mean_loss(model, dataset):
    x = numpy.stack([example[0] for example in dataset])
    t = numpy.stack([example[1] for example in dataset])
    return float(numpy.mean((x @ model.w.array - t) ** 2))


def test_training_run_reduces_the_loss_and_reports_it(tmp_path):
    dataset = _dataset()
    model = LinearRegression(3)
    optimizer = SGD(lr=0.1)
    optimizer.setup(model)
    iterator = SerialIterator(dataset, 4, shuffle=False)
    standard = StandardUpdater(iterator, optimizer)
    trainer = Trainer(standard, (5, "epoch"), out=str(tmp_path))
    observed = []
    trainer.extend(lambda trainer: observed.append(dict(trainer.observation)), name="spy")
    before = _mean_loss(model, dataset)
    trainer.run()
    assert _mean_loss(model, dataset) < 0.1 * before
    assert standard.iteration == 15 and standard.epoch == 5
    assert len(observed) == 15
    assert all(set(observation) == {"main/loss"} for observation in observed)
    assert float(observed[-1]["main/loss"].array) < float(observed[0]["main/loss"].array)


def test_one_update_matches_a_hand_computed_sgd_step():
    dataset = _dataset(4)
    model = LinearRegression(3)
    model.w.array[...] = numpy.array([[0.5], [0.1], [-0.3]], numpy.float32)
    optimizer = SGD(lr=0.05)
    optimizer.setup(model)
    standard = StandardUpdater(SerialIterator(dataset, 4, shuffle=False), optimizer)
    x = numpy.stack([example[0] for example in dataset])
    t = numpy.stack([example[1] for example in dataset])
    w = model.w.array.copy()
    grad = 2.0 * x.T @ (x @ w - t) / t.size
    standard.update()
    numpy.testing.assert_allclose(model.w.array, w - 0.05 * grad, rtol=1e-5)


def test_updater_exposes_the_iterator_progress_and_optimizers():
    dataset = _dataset(6)
    model = LinearRegression(3)
    optimizer = SGD()
    optimizer.setup(model)
    iterator = SerialIterator(dataset, 4, shuffle=False)
    standard = StandardUpdater(iterator, optimizer)
    assert standard.get_iterator("main") is iterator
    assert standard.get_optimizer("main") is optimizer
    assert standard.get_all_optimizers() == {"main": optimizer}
    assert standard.device is None and standard.input_device is None
    assert optimizer.use_auto_new_epoch is True
    standard.update()
    assert (standard.iteration, standard.epoch, standard.is_new_epoch) == (1, 0, False)
    assert standard.epoch_detail == pytest.approx(4 / 6)
    assert standard.previous_epoch_detail == pytest.approx(0.0)
    standard.update()
    assert (standard.iteration, standard.epoch, standard.is_new_epoch) == (2, 1, True)
    assert optimizer.epoch == 1  # new_epoch(auto=True) was called


def test_converter_and_loss_func_are_used():
    dataset = _dataset(4)
    model = LinearRegression(3)
    optimizer = SGD()
    optimizer.setup(model)
    seen = []

    def converter(batch, device):
        seen.append(device)
        return {"x": numpy.stack([e[0] for e in batch]), "t": numpy.stack([e[1] for e in batch])}

    def loss_func(x, t):
        seen.append((x.shape, t.shape))
        return model(x, t)

    standard = StandardUpdater(SerialIterator(dataset, 2), optimizer, converter=converter,
                               loss_func=loss_func, device="@numpy")
    standard.update()
    assert seen[0] == -1  # old-style converters get -1 for the CPU, as in Chainer
    assert seen[1] == ((2, 3), (2, 1))


def test_updater_refuses_unknown_keywords():
    optimizer = SGD()
    optimizer.setup(LinearRegression(3))
    with pytest.raises(TypeError):
        StandardUpdater(SerialIterator(_dataset(4), 2), optimizer, unknown=1)


def test_base_updater_methods_are_abstract():
    base = Updater()
    base.connect_trainer(None)
    for method in (base.finalize, base.get_all_optimizers, base.update):
        with pytest.raises(NotImplementedError):
            method()
    assert updater.StandardUpdater is StandardUpdater and updater.Updater is Updater


@pytest.mark.gpu
def test_device_moves_the_model_and_batches_to_the_gpu():
    cupy = pytest.importorskip("cupy")
    try:
        device_count = cupy.cuda.runtime.getDeviceCount()
    except Exception:
        device_count = 0
    if device_count == 0:
        pytest.skip("no CUDA device")
    dataset = _dataset(8)
    model = LinearRegression(3)
    optimizer = SGD(lr=0.1)
    optimizer.setup(model)
    standard = StandardUpdater(SerialIterator(dataset, 4, shuffle=False), optimizer,
                               device="@cupy:0")
    assert isinstance(model.w.array, cupy.ndarray)
    before = _mean_loss_on_host(model, dataset)
    for _ in range(10):
        standard.update()
    assert isinstance(model.w.array, cupy.ndarray)
    assert _mean_loss_on_host(model, dataset) < before


def _mean_loss_on_host(model, dataset):
    x = numpy.stack([example[0] for example in dataset])
    t = numpy.stack([example[1] for example in dataset])
    w = model.w.array.get() if hasattr(model.w.array, "get") else model.w.array
    return float(numpy.mean((x @ w - t) ** 2))


class _RecordingSerializer:
    """A serializer that writes nothing back, as hand-written test serializers often do."""

    def __init__(self, path=()):
        self.path = path
        self.calls = []

    def __getitem__(self, key):
        return _RecordingSerializer(self.path + (key,))

    def __call__(self, key, value):
        self.calls.append((key, value))


def test_serialize_with_a_serializer_returning_none_keeps_the_iteration():
    model = LinearRegression(3)
    optimizer = SGD()
    optimizer.setup(model)
    updater_ = StandardUpdater(SerialIterator(_dataset(), 4), optimizer)
    updater_.update()
    serializer = _RecordingSerializer()
    updater_.serialize(serializer)
    assert serializer.calls == [("iteration", 1)]
    assert updater_.iteration == 1
