"""Chainer-visible behaviour of ``chainer.training.updaters.ParallelUpdater`` on CPU devices:
how the minibatch is split, the summed gradients, the synchronised copies, observers and the
argument errors. Each case was checked against Chainer 7.8.1; set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
iterators = importlib.import_module(chainer.__name__ + ".iterators")
optimizers = importlib.import_module(chainer.__name__ + ".optimizers")
training = importlib.import_module(chainer.__name__ + ".training")
parallel_updater = importlib.import_module(
    chainer.__name__ + ".training.updaters.parallel_updater")
ParallelUpdater = parallel_updater.ParallelUpdater


class LinearRegression(chainer.Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.array([[0.5], [-0.25], [1.0]], numpy.float32))
        self.seen = []

    def forward(self, x, t):
        self.seen.append(x.copy())
        loss = F.mean_squared_error(F.matmul(x, self.w), t)
        chainer.reporter.report({"loss": loss}, self)
        return loss


def make_data(size=8):
    rng = numpy.random.RandomState(0)
    x = rng.randn(size, 3).astype(numpy.float32)
    t = rng.randn(size, 1).astype(numpy.float32)
    return x, t


def numpy_gradient(w, x, t):
    return 2.0 / x.shape[0] * x.T @ (x @ w - t)


@pytest.mark.parametrize("spec", ["@numpy", -1])
def test_one_step_sums_the_sub_batch_gradients_and_syncs_the_copy(spec):
    x, t = make_data()
    model = LinearRegression()
    w_before = model.w.array.copy()
    optimizer = optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    iterator = iterators.SerialIterator(list(zip(x, t)), 8, shuffle=False)
    updater = ParallelUpdater(iterator, optimizer, devices={"main": spec, "second": spec})
    updater.update()
    second = updater._models["second"]
    assert second is not model
    numpy.testing.assert_array_equal(model.seen[0], x[0::2])
    numpy.testing.assert_array_equal(second.seen[0], x[1::2])
    expected = w_before - 0.1 * (numpy_gradient(w_before, x[0::2], t[0::2])
                                 + numpy_gradient(w_before, x[1::2], t[1::2]))
    numpy.testing.assert_allclose(model.w.array, expected, rtol=1e-5)
    numpy.testing.assert_array_equal(second.w.array, model.w.array)
    assert updater.iteration == 1


def test_given_models_are_used_and_three_way_split():
    x, t = make_data(9)
    models = {"main": LinearRegression(), "b": LinearRegression(), "c": LinearRegression()}
    optimizer = optimizers.SGD(lr=0.0)
    optimizer.setup(models["main"])
    iterator = iterators.SerialIterator(list(zip(x, t)), 9, shuffle=False)
    updater = ParallelUpdater(iterator, optimizer, models=models,
                              devices={"main": "@numpy", "b": "@numpy", "c": "@numpy"})
    updater.update()
    for index, name in enumerate(["main", "b", "c"]):
        numpy.testing.assert_array_equal(models[name].seen[0], x[index::3])


def test_other_models_are_observed_under_their_names(tmp_path):
    x, t = make_data()
    model = LinearRegression()
    optimizer = optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    iterator = iterators.SerialIterator(list(zip(x, t)), 4, shuffle=False)
    updater = ParallelUpdater(iterator, optimizer, devices={"main": "@numpy", "sub": "@numpy"})
    trainer = training.Trainer(updater, (1, "iteration"), out=str(tmp_path))
    keys = []
    trainer.extend(lambda t: keys.extend(sorted(t.observation)), priority=0)
    trainer.run()
    assert keys == ["main/loss", "sub/loss"]


def test_neither_models_nor_devices_is_value_error():
    optimizer = optimizers.SGD()
    optimizer.setup(LinearRegression())
    with pytest.raises(ValueError, match="either models or devices must be specified"):
        ParallelUpdater(iterators.SerialIterator([1], 1), optimizer)


def test_devices_without_main_is_key_error():
    optimizer = optimizers.SGD()
    optimizer.setup(LinearRegression())
    with pytest.raises(KeyError):
        ParallelUpdater(iterators.SerialIterator([1], 1), optimizer,
                        devices={"first": "@numpy"})


def test_is_a_standard_updater():
    assert issubclass(ParallelUpdater, training.updaters.StandardUpdater)
