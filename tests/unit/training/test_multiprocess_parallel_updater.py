"""MultiprocessParallelUpdater: availability without CuPy/NCCL, argument checks and the
single-device step (NCCL replaced by a stand-in), the flat gather/scatter buffers on NumPy,
and a real two-GPU run (gpu; needs CuPy with NCCL and two CUDA devices)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import numpy
import pytest
from conftest import cuda_device_count

from chainer_compat import Chain, Link, Parameter
from chainer_compat import functions as F
from chainer_compat.iterators import SerialIterator
from chainer_compat.optimizers import SGD, Adam, RMSpropGraves
from chainer_compat.training.updaters import multiprocess_parallel_updater as mpu

Updater = mpu.MultiprocessParallelUpdater


def _nccl_importable() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        from cupy.cuda import nccl  # noqa: F401
    except Exception:
        return False
    return True


class FakeNccl:
    """Stands in for cupy.cuda.nccl where only its presence and constants are read."""

    NCCL_HALF, NCCL_FLOAT, NCCL_DOUBLE, NCCL_SUM = 6, 7, 8, 0


@pytest.fixture
def fake_nccl(monkeypatch):
    monkeypatch.setattr(mpu, "_nccl", lambda: FakeNccl)
    monkeypatch.setattr(mpu, "_cuda_context_initialized", lambda: False)
    return FakeNccl


class LinearRegression(Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = Parameter(numpy.array([[0.5], [-0.25], [1.0]], numpy.float32))

    def forward(self, x, t):
        return F.mean_squared_error(F.matmul(x, self.w), t)


def _iterators(count=1, size=4):
    rng = numpy.random.RandomState(0)
    x = rng.randn(size * count, 3).astype(numpy.float32)
    t = rng.randn(size * count, 1).astype(numpy.float32)
    data = list(zip(x, t))
    return [SerialIterator(data[i * size:(i + 1) * size], size, shuffle=False)
            for i in range(count)], x, t


def test_importing_the_module_loads_no_cupy():
    code = ("import sys, chainer_compat.training.updaters.multiprocess_parallel_updater as m; "
            "m.MultiprocessParallelUpdater; sys.exit(1 if 'cupy' in sys.modules else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_available_says_whether_nccl_imports():
    assert Updater.available() is _nccl_importable()


@pytest.mark.skipif(_nccl_importable(), reason="CuPy with NCCL is installed here")
def test_construction_without_nccl_raises_exception_saying_what_is_needed():
    iterators, _, _ = _iterators()
    optimizer = SGD(lr=0.1)
    optimizer.setup(LinearRegression())
    with pytest.raises(Exception, match="NCCL is not enabled") as info:
        Updater(iterators, optimizer, devices=["@numpy"])
    assert type(info.value) is Exception  # compat: Chainer raises a plain Exception
    assert "cupy.cuda.nccl" in str(info.value) and "ParallelUpdater" in str(info.value)
    assert optimizer.lr == 0.1  # nothing was changed before the check


def test_initialized_cuda_context_with_fork_raises_runtime_error(fake_nccl, monkeypatch):
    monkeypatch.setattr(mpu, "_cuda_context_initialized", lambda: True)
    monkeypatch.setattr(mpu.multiprocessing, "get_start_method", lambda: "fork")
    iterators, _, _ = _iterators()
    optimizer = SGD()
    optimizer.setup(LinearRegression())
    with pytest.raises(RuntimeError, match="CUDA context has been already initialized"):
        Updater(iterators, optimizer, devices=["@numpy"])


@pytest.mark.parametrize("devices, error, match", [
    (None, ValueError, "dict, list or tuple"),
    ("@numpy", ValueError, "dict, list or tuple"),
    ([None], ValueError, "GPU devices must be specified"),
    (["@numpy", "@numpy"], ValueError, "one entry per device"),
    ({"second": "@numpy"}, KeyError, "'main'"),
])
def test_bad_devices_are_rejected(fake_nccl, devices, error, match):
    iterators, _, _ = _iterators()
    optimizer = SGD()
    optimizer.setup(LinearRegression())
    with pytest.raises(error, match=match):
        Updater(iterators, optimizer, devices=devices)


def test_datasets_of_different_lengths_are_rejected(fake_nccl):
    iterators = [SerialIterator([1, 2, 3], 1), SerialIterator([1, 2], 1)]
    optimizer = SGD()
    optimizer.setup(LinearRegression())
    with pytest.raises(ValueError, match="same length"):
        Updater(iterators, optimizer, devices=["@numpy", "@numpy"])


@pytest.mark.parametrize("optimizer_class, attribute, factor", [
    (SGD, "lr", 1 / 3), (Adam, "eps", 3), (RMSpropGraves, "eps", 9)])
def test_step_size_is_scaled_for_summed_gradients_with_a_warning(
        fake_nccl, optimizer_class, attribute, factor):
    optimizer = optimizer_class()
    optimizer.setup(LinearRegression())
    before = getattr(optimizer, attribute)
    iterators = [SerialIterator([1, 2], 1) for _ in range(3)]
    with pytest.warns(UserWarning, match=f"optimizer.{attribute} is changed to"):
        Updater(iterators, optimizer, devices={"main": "@numpy", "a": "@numpy",
                                               "b": "@numpy"})
    assert getattr(optimizer, attribute) == pytest.approx(before * factor)


def test_dict_devices_put_main_first(fake_nccl):
    iterators = [SerialIterator([1, 2], 1) for _ in range(2)]
    optimizer = SGD()
    optimizer.setup(LinearRegression())
    with pytest.warns(UserWarning):
        updater = Updater(iterators, optimizer, devices={"second": -1, "main": "@numpy"})
    assert [device.name for device in updater._devices] == ["@numpy", "@numpy"]
    assert updater.get_iterator("main") is iterators[0]


def test_one_device_step_is_a_plain_sgd_step(fake_nccl):
    iterators, x, t = _iterators(count=1)
    model = LinearRegression()
    w = model.w.array.copy()
    optimizer = SGD(lr=0.1)
    optimizer.setup(model)
    with pytest.warns(UserWarning):
        updater = Updater(iterators, optimizer, devices=["@numpy"])
    updater.update()
    gradient = 2.0 / len(x) * x.T @ (x @ w - t)
    numpy.testing.assert_allclose(model.w.array, w - 0.1 * gradient, rtol=1e-5)
    assert updater.comm is None and updater._workers == []
    assert updater.iteration == 1 and updater.is_new_epoch
    updater.finalize()


class TwoLayers(Chain):
    def __init__(self, dtype=numpy.float32):
        super().__init__()
        with self.init_scope():
            self.b = Link()
            self.a = Link()
        with self.a.init_scope():
            self.a.w = Parameter(numpy.arange(6, dtype=dtype).reshape(2, 3))
            self.a.empty = Parameter(numpy.zeros((0,), dtype=dtype))
        with self.b.init_scope():
            self.b.v = Parameter(numpy.arange(3, dtype=numpy.float16) + 10)
            self.b.later = Parameter()  # uninitialized: left out


def test_size_num_grads_counts_non_empty_initialized_parameters():
    assert mpu.size_num_grads(TwoLayers()) == (9, 2)


def test_gather_flattens_by_sorted_path_with_zeros_for_missing_grads():
    link = TwoLayers()
    link.a.w.grad = numpy.full((2, 3), 2.0, numpy.float32)
    gathered = mpu._gather(link, "grad")
    assert gathered.dtype == numpy.float32
    numpy.testing.assert_array_equal(gathered, [2.0] * 6 + [0.0] * 3)
    params = mpu._gather(link, "data")
    numpy.testing.assert_array_equal(params, list(range(6)) + [10.0, 11.0, 12.0])


def test_gather_keeps_float64_whole():
    link = TwoLayers(dtype=numpy.float64)
    link.a.w.array[0, 0] = 1 / 3
    assert mpu._gather(link, "data").dtype == numpy.float64
    assert mpu._gather(link, "data")[0] == 1 / 3


def test_scatter_writes_back_in_place_and_creates_missing_grads():
    link = TwoLayers()
    w_array = link.a.w.array
    flat = numpy.arange(9, dtype=numpy.float32) * 0.5
    mpu._scatter(link, flat, "data")
    assert link.a.w.array is w_array
    numpy.testing.assert_array_equal(link.a.w.array, flat[:6].reshape(2, 3))
    assert link.b.v.array.dtype == numpy.float16
    numpy.testing.assert_array_equal(link.b.v.array, flat[6:].astype(numpy.float16))
    mpu._scatter(link, flat[::-1].copy(), "grad")
    numpy.testing.assert_array_equal(link.b.v.grad, flat[::-1][6:].astype(numpy.float16))


def test_scatter_rejects_an_array_of_the_wrong_size():
    with pytest.raises(ValueError, match="one element per parameter element"):
        mpu.scatter_params(TwoLayers(), numpy.zeros(4, numpy.float32))


@pytest.mark.parametrize("function, match", [
    (mpu.gather_grads, "gather_grads works only on GPU"),
    (mpu.gather_params, "gather_params works only on GPU")])
def test_public_gathers_refuse_cpu_links(function, match):
    with pytest.raises(RuntimeError, match=match):
        function(TwoLayers())


def test_nccl_data_types(fake_nccl):
    assert mpu._get_nccl_data_type(numpy.float16) == FakeNccl.NCCL_HALF
    assert mpu._get_nccl_data_type(numpy.dtype("float32")) == FakeNccl.NCCL_FLOAT
    assert mpu._get_nccl_data_type(numpy.float64) == FakeNccl.NCCL_DOUBLE
    with pytest.raises(RuntimeError, match="Unexpected data type"):
        mpu._get_nccl_data_type(numpy.int32)


_TWO_GPU_SCRIPT = textwrap.dedent("""
    import numpy, warnings
    from chainer_compat import Link, Parameter, functions as F
    from chainer_compat.iterators import SerialIterator
    from chainer_compat.optimizers import SGD
    from chainer_compat.training.updaters import multiprocess_parallel_updater as mpu

    class LinearRegression(Link):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.w = Parameter(numpy.array([[0.5], [-0.25], [1.0]], numpy.float32))
        def forward(self, x, t):
            return F.mean_squared_error(F.matmul(x, self.w), t)

    if __name__ == "__main__":
        rng = numpy.random.RandomState(0)
        x = rng.randn(8, 3).astype(numpy.float32)
        t = rng.randn(8, 1).astype(numpy.float32)
        data = list(zip(x, t))
        iterators = [SerialIterator(data[:4], 4, shuffle=False),
                     SerialIterator(data[4:], 4, shuffle=False)]
        model = LinearRegression()
        w = model.w.array.copy()
        optimizer = SGD(lr=0.2)
        optimizer.setup(model)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            updater = mpu.MultiprocessParallelUpdater(iterators, optimizer, devices=[0, 1])
        updater.update()
        got = model.w.array.get()
        updater.finalize()
        grad = sum(2.0 / 4 * xs.T @ (xs @ w - ts) for xs, ts in ((x[:4], t[:4]),
                                                               (x[4:], t[4:])))
        numpy.testing.assert_allclose(got, w - 0.1 * grad, rtol=1e-4)
        print("ok")
""")


@pytest.mark.gpu
def test_two_gpus_sum_gradients_and_share_parameters(tmp_path):
    if cuda_device_count() < 2 or not _nccl_importable():
        pytest.skip("needs CuPy with NCCL and two CUDA devices")
    script = tmp_path / "two_gpus.py"
    script.write_text(_TWO_GPU_SCRIPT)
    # A fresh process: the workers fork, so no CUDA context may exist before they start.
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
