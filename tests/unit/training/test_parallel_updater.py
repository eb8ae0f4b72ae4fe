"""ParallelUpdater: loss functions, dict inputs, loss scaling, epochs and a CUDA run."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Link, Parameter, reporter
from chainer_compat import functions as F
from chainer_compat.dataset import converter
from chainer_compat.iterators import SerialIterator
from chainer_compat.optimizers import SGD
from chainer_compat.training.updaters.parallel_updater import ParallelUpdater


class LinearRegression(Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = Parameter(numpy.array([[0.5], [-0.25], [1.0]], numpy.float32))

    def forward(self, x, t):
        loss = F.mean_squared_error(F.matmul(x, self.w), t)
        reporter.report({"loss": loss}, self)
        return loss


def _data(size=8):
    rng = numpy.random.RandomState(1)
    return (rng.randn(size, 3).astype(numpy.float32), rng.randn(size, 1).astype(numpy.float32))


def _gradient(w, x, t):
    return 2.0 / x.shape[0] * x.T @ (x @ w - t)


def _expected(w, x, t, lr, scale=1.0):
    return w - lr * scale * (_gradient(w, x[0::2], t[0::2]) + _gradient(w, x[1::2], t[1::2]))


def test_loss_func_and_dict_inputs():
    x, t = _data()
    model = LinearRegression()
    w = model.w.array.copy()
    optimizer = SGD(lr=0.05)
    optimizer.setup(model)
    called = []

    def loss_func(x, t):
        called.append(len(x))
        return F.mean_squared_error(F.matmul(x, optimizer.target.w), t)

    @converter()
    def as_dict(batch, device):
        return {"x": numpy.stack([b[0] for b in batch]), "t": numpy.stack([b[1] for b in batch])}

    updater = ParallelUpdater(SerialIterator(list(zip(x, t)), 8, shuffle=False), optimizer,
                              converter=as_dict, loss_func=loss_func,
                              devices={"main": "@numpy", "other": "@numpy"})
    updater.update()
    # the loss function uses the main model for both halves
    assert called == [4, 4]
    numpy.testing.assert_allclose(model.w.array, _expected(w, x, t, 0.05), rtol=1e-5)


def test_loss_scale_scales_the_gradients_before_the_update():
    x, t = _data()
    model = LinearRegression()
    w = model.w.array.copy()
    optimizer = SGD(lr=0.01)
    optimizer.setup(model)
    updater = ParallelUpdater(SerialIterator(list(zip(x, t)), 8, shuffle=False), optimizer,
                              devices={"main": "@numpy", "other": "@numpy"}, loss_scale=4.0)
    updater.update()
    # backward scales the gradients by 4 and the optimizer, told the scale by the updater,
    # divides them back before the step
    assert optimizer._loss_scale == 4.0
    assert model.w.grad is not None
    numpy.testing.assert_allclose(model.w.array, _expected(w, x, t, 0.01), rtol=1e-5)


def test_new_epoch_is_called_at_epoch_ends():
    x, t = _data()
    optimizer = SGD(lr=0.0)
    optimizer.setup(LinearRegression())
    updater = ParallelUpdater(SerialIterator(list(zip(x, t)), 4, shuffle=False), optimizer,
                              devices={"main": "@numpy", "other": "@numpy"})
    for _ in range(4):
        updater.update()
    assert optimizer.epoch == 2
    assert updater.epoch == 2


@pytest.mark.gpu
def test_cuda_devices_train_like_the_numpy_reference(cupy):
    x, t = _data()
    model = LinearRegression()
    w = model.w.array.copy()
    optimizer = SGD(lr=0.05)
    optimizer.setup(model)
    updater = ParallelUpdater(SerialIterator(list(zip(x, t)), 8, shuffle=False), optimizer,
                              devices={"main": "@cupy:0", "other": "@cupy:0"})
    updater.update()
    assert isinstance(model.w.array, cupy.ndarray)
    numpy.testing.assert_allclose(cupy.asnumpy(model.w.array), _expected(w, x, t, 0.05),
                                  rtol=1e-5)
    other = updater._models["other"]
    numpy.testing.assert_array_equal(cupy.asnumpy(other.w.array), cupy.asnumpy(model.w.array))
