"""Chainer-visible behaviour of ``max_pooling_2d``, ``average_pooling_2d``, ``unpooling_2d``,
``batch_normalization``, ``fixed_batch_normalization`` and ``L.BatchNormalization``: values
against NumPy references, output sizes, indices, running statistics, train and test mode,
fine-tuning, persistents and exception types. Each case was checked against Chainer 7.8.1; set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os
import warnings

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
L = importlib.import_module(chainer.__name__ + ".links")
gradient_check = importlib.import_module(chainer.__name__ + ".gradient_check")
serializers = importlib.import_module(chainer.__name__ + ".serializers")
type_check = importlib.import_module(chainer.__name__ + ".utils.type_check")

# Where chainer_compat keeps each name until its package re-exports it.
_HOMES = {
    "max_pooling_2d": "functions.pooling.max_pooling_2d",
    "average_pooling_2d": "functions.pooling.average_pooling_2d",
    "unpooling_2d": "functions.pooling.unpooling_2d",
    "batch_normalization": "functions.normalization.batch_normalization",
    "fixed_batch_normalization": "functions.normalization.batch_normalization",
    "BatchNormalization": "links.normalization.batch_normalization",
}


def _public(package, name):
    found = getattr(package, name, None)
    if found is None:
        found = getattr(importlib.import_module(f"{chainer.__name__}.{_HOMES[name]}"), name)
    return found


max_pooling_2d = _public(F, "max_pooling_2d")
average_pooling_2d = _public(F, "average_pooling_2d")
unpooling_2d = _public(F, "unpooling_2d")
batch_normalization = _public(F, "batch_normalization")
fixed_batch_normalization = _public(F, "fixed_batch_normalization")
BatchNormalization = _public(L, "BatchNormalization")


def _windows(x, ksize, stride, pad, cover_all, fill):
    """Yields ``(i, j, window)`` for each output pixel, from a plane padded with ``fill``."""
    n, c, h, w = x.shape
    extra = stride - 1 if cover_all else 0
    out_h = (h + 2 * pad - ksize + extra) // stride + 1
    out_w = (w + 2 * pad - ksize + extra) // stride + 1
    padded = numpy.full((n, c, h + 2 * pad + ksize + stride, w + 2 * pad + ksize + stride), fill)
    padded[:, :, pad:pad + h, pad:pad + w] = x
    for i in range(out_h):
        for j in range(out_w):
            yield i, j, padded[:, :, i * stride:i * stride + ksize, j * stride:j * stride + ksize]


def _pool_reference(x, ksize, stride, pad, cover_all, mode):
    results = {}
    for i, j, window in _windows(x, ksize, stride, pad, cover_all,
                                 -numpy.inf if mode == "max" else 0.0):
        flat = window.reshape(x.shape[0], x.shape[1], -1)
        results[i, j] = (flat.max(axis=2), flat.argmax(axis=2)) if mode == "max" else (
            flat.mean(axis=2), None)
    out_h, out_w = max(results)[0] + 1, max(results)[1] + 1
    y = numpy.empty(x.shape[:2] + (out_h, out_w))
    indexes = numpy.empty(x.shape[:2] + (out_h, out_w), dtype=numpy.int64)
    for (i, j), (value, index) in results.items():
        y[:, :, i, j] = value
        if index is not None:
            indexes[:, :, i, j] = index
    return y, indexes


def _distinct(shape, seed=0):
    size = int(numpy.prod(shape))
    return numpy.random.RandomState(seed).permutation(size).reshape(shape) * 0.05


@pytest.mark.parametrize("ksize, stride, pad, cover_all",
                         [(2, 2, 0, True), (3, 2, 1, True), (3, 2, 1, False), (3, 1, 1, True)])
def test_max_pooling_values_and_indices_of_the_window_position(ksize, stride, pad, cover_all):
    x = _distinct((2, 3, 5, 6))
    y, indexes = max_pooling_2d(x, ksize, stride, pad, cover_all, return_indices=True)
    expected, expected_indexes = _pool_reference(x, ksize, stride, pad, cover_all, "max")
    assert isinstance(indexes, numpy.ndarray)
    numpy.testing.assert_array_equal(y.array, expected)
    numpy.testing.assert_array_equal(indexes, expected_indexes)


def test_max_pooling_cover_all_adds_a_last_window():
    x = numpy.zeros((1, 1, 5, 5), numpy.float32)
    assert max_pooling_2d(x, 2).shape == (1, 1, 3, 3)
    assert max_pooling_2d(x, 2, cover_all=False).shape == (1, 1, 2, 2)


@pytest.mark.parametrize("ksize, stride, pad", [(2, None, 0), (3, 2, 1), (3, 1, 1)])
def test_average_pooling_counts_padding_as_zero(ksize, stride, pad):
    x = numpy.random.RandomState(1).uniform(-1, 1, (2, 3, 5, 6))
    y = average_pooling_2d(x, ksize, stride, pad)
    expected, _ = _pool_reference(x, ksize, stride or ksize, pad, False, "mean")
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-12)


@pytest.mark.parametrize("ksize, stride, pad, cover_all, shape",
                         [(2, None, 0, True, (9, 9)), (2, None, 0, False, (10, 10)),
                          (3, 2, 1, True, (8, 8))])
def test_unpooling_default_output_size(ksize, stride, pad, cover_all, shape):
    x = numpy.zeros((2, 1, 5, 5), numpy.float32)
    assert unpooling_2d(x, ksize, stride, pad, cover_all=cover_all).shape[2:] == shape


def test_unpooling_copies_each_entry_over_its_window():
    x = numpy.arange(4.0).reshape(1, 1, 2, 2)
    y = unpooling_2d(x, 2, cover_all=False)
    numpy.testing.assert_array_equal(y.array[0, 0], numpy.repeat(numpy.repeat(x[0, 0], 2, 0),
                                                                 2, 1))


def test_unpooling_outsize_that_does_not_pool_back_raises_invalid_type():
    with pytest.raises(type_check.InvalidType):
        unpooling_2d(numpy.zeros((1, 1, 5, 5), numpy.float32), 2, outsize=(7, 7))


@pytest.mark.parametrize("function", [max_pooling_2d, average_pooling_2d, unpooling_2d])
def test_pooling_gradients_of_two_orders(function):
    x = _distinct((2, 2, 4, 5), seed=2)
    y = function(x, 3, 2, 1)
    rng = numpy.random.RandomState(3)
    gy = rng.standard_normal(y.shape)

    def pool(a):
        return function(a, 3, 2, 1)

    gradient_check.check_backward(pool, (x,), gy, eps=1e-3)
    gradient_check.check_double_backward(pool, (x,), gy, (rng.standard_normal(x.shape),),
                                         eps=1e-3)


def test_pooling_errors():
    with pytest.raises(ValueError):
        max_pooling_2d(numpy.zeros((2, 3, 4), numpy.float32), 2)
    for function in (max_pooling_2d, average_pooling_2d, unpooling_2d):
        with pytest.raises(type_check.InvalidType):
            function(numpy.zeros((1, 1, 4, 4), numpy.int32), 2)
    with pytest.raises(type_check.InvalidType):
        average_pooling_2d(numpy.zeros((2, 3, 4), numpy.float32), 2)
    for function in (max_pooling_2d, average_pooling_2d):
        with pytest.raises(AssertionError):
            function(numpy.zeros((1, 1, 4, 4), numpy.float32), 7, 1)


def _bn_reference(x, gamma, beta, axis, eps=2e-5):
    mean = x.mean(axis=axis, keepdims=True)
    var = x.var(axis=axis, keepdims=True)
    return gamma * (x - mean) / numpy.sqrt(var + eps) + beta


def test_batch_normalization_normalizes_over_batch_and_trailing_axes():
    rng = numpy.random.RandomState(4)
    x = rng.standard_normal((4, 3, 2, 2))
    gamma, beta = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3)
    y = batch_normalization(x, gamma, beta)
    expected = _bn_reference(x, gamma[:, None, None], beta[:, None, None], (0, 2, 3))
    numpy.testing.assert_allclose(y.array, expected, atol=1e-10)


def test_batch_normalization_with_axis_and_running_statistics():
    rng = numpy.random.RandomState(5)
    x = rng.standard_normal((4, 3, 2))
    gamma, beta = numpy.ones(3), numpy.zeros(3)
    running_mean, running_var = numpy.zeros(3), numpy.ones(3)
    y = batch_normalization(x, gamma, beta, running_mean=running_mean, running_var=running_var,
                            decay=0.7, axis=(0, 2))
    numpy.testing.assert_allclose(y.array, _bn_reference(x, gamma[:, None], beta[:, None],
                                                         (0, 2)), atol=1e-10)
    numpy.testing.assert_allclose(running_mean, 0.3 * x.mean(axis=(0, 2)))
    numpy.testing.assert_allclose(running_var, 0.7 + 0.3 * x.var(axis=(0, 2)) * 8 / 7)


def test_batch_normalization_of_float16_with_float32_parameters_is_float16():
    x = numpy.random.RandomState(6).standard_normal((4, 3)).astype(numpy.float16)
    y = batch_normalization(x, numpy.ones(3, numpy.float32), numpy.zeros(3, numpy.float32))
    assert y.dtype == numpy.float16


def test_batch_normalization_gradients_of_two_orders():
    rng = numpy.random.RandomState(7)
    x, gamma, beta = rng.standard_normal((4, 3, 2)), rng.uniform(.5, 1.5, 3), rng.randn(3)
    gy = rng.standard_normal(x.shape)
    ggs = tuple(rng.standard_normal(a.shape) for a in (x, gamma, beta))
    gradient_check.check_backward(batch_normalization, (x, gamma, beta), gy)
    gradient_check.check_double_backward(batch_normalization, (x, gamma, beta), gy, ggs)


def test_fixed_batch_normalization_values_and_gradients():
    rng = numpy.random.RandomState(8)
    x = rng.standard_normal((4, 3))
    gamma, beta, mean, var = (rng.uniform(0.5, 1.5, 3) for _ in range(4))
    y = fixed_batch_normalization(x, gamma, beta, mean, var, eps=1e-3)
    numpy.testing.assert_allclose(y.array, gamma * (x - mean) / numpy.sqrt(var + 1e-3) + beta)
    inputs = (x, gamma, beta, mean, var)
    gy = rng.standard_normal(x.shape)
    gradient_check.check_backward(fixed_batch_normalization, inputs, gy)
    gradient_check.check_double_backward(fixed_batch_normalization, inputs, gy,
                                         tuple(rng.standard_normal(a.shape) for a in inputs))


def test_batch_normalization_errors():
    x, gamma = numpy.zeros((2, 3), numpy.float32), numpy.ones(3, numpy.float32)
    with pytest.raises(ValueError):
        batch_normalization(x, gamma, gamma, train=True)
    with pytest.raises(TypeError):
        batch_normalization(x, gamma, gamma, momentum=0.1)
    with pytest.raises(RuntimeError):
        batch_normalization(x, gamma, gamma, axis=(1, 0))
    with pytest.raises(type_check.InvalidType):
        batch_normalization(x, numpy.ones(4, numpy.float32), numpy.ones(4, numpy.float32))
    with pytest.raises(type_check.InvalidType):
        fixed_batch_normalization(x, gamma, gamma, numpy.ones(4, numpy.float32), gamma)


def test_batch_normalization_of_one_sample_warns():
    with pytest.warns(UserWarning):
        batch_normalization(numpy.ones((1, 3), numpy.float32), numpy.ones(3, numpy.float32),
                            numpy.zeros(3, numpy.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        batch_normalization(numpy.ones((2, 3), numpy.float32), numpy.ones(3, numpy.float32),
                            numpy.zeros(3, numpy.float32))


def test_link_defaults_and_persistents():
    link = BatchNormalization(3)
    assert sorted(name for name, _ in link.namedparams()) == ["/beta", "/gamma"]
    numpy.testing.assert_array_equal(link.avg_mean, numpy.zeros(3, numpy.float32))
    numpy.testing.assert_array_equal(link.avg_var, numpy.ones(3, numpy.float32))
    assert link.N == 0 and link.avg_var.dtype == numpy.float32
    assert BatchNormalization(3, use_gamma=False, use_beta=False).gamma is None


def test_link_train_and_test_modes():
    link = BatchNormalization(3, decay=0.5)
    x = numpy.random.RandomState(9).standard_normal((5, 3)).astype(numpy.float32)
    with chainer.using_config("train", True):
        y = link(x)
    numpy.testing.assert_allclose(y.array, _bn_reference(x, 1, 0, 0), atol=1e-5)
    numpy.testing.assert_allclose(link.avg_mean, 0.5 * x.mean(axis=0), rtol=1e-5)
    numpy.testing.assert_allclose(link.avg_var, 0.5 + 0.5 * x.var(axis=0) * 5 / 4, rtol=1e-5)
    with chainer.using_config("train", False):
        y = link(x)
    expected = (x - link.avg_mean) / numpy.sqrt(link.avg_var + 2e-5)
    numpy.testing.assert_allclose(y.array, expected, atol=1e-5)


def test_link_finetune_averages_cumulatively():
    link = BatchNormalization(2)
    rng = numpy.random.RandomState(10)
    batches = [rng.standard_normal((4, 2)).astype(numpy.float32) + i for i in range(3)]
    for batch in batches:
        link(batch, finetune=True)
    assert link.N == 3
    numpy.testing.assert_allclose(
        link.avg_mean, numpy.mean([b.mean(axis=0) for b in batches], axis=0), rtol=1e-5)
    link.start_finetuning()
    assert link.N == 0


def test_link_lazy_size_and_npz_round_trip(tmp_path):
    link = BatchNormalization(axis=(0, 2))
    assert link.avg_mean is None
    link(numpy.random.RandomState(11).standard_normal((4, 3, 2)).astype(numpy.float32),
         finetune=True)
    assert link.avg_mean.shape == (3,) and link.gamma.shape == (3,)
    path = str(tmp_path / "bn.npz")
    serializers.save_npz(path, link)
    with numpy.load(path) as saved:
        assert sorted(saved.files) == ["N", "avg_mean", "avg_var", "beta", "gamma"]
    loaded = BatchNormalization(3)
    serializers.load_npz(path, loaded)
    assert int(loaded.N) == 1
    numpy.testing.assert_array_equal(loaded.avg_mean, link.avg_mean)
    numpy.testing.assert_array_equal(loaded.avg_var, link.avg_var)


def test_link_errors():
    with pytest.raises(RuntimeError):
        BatchNormalization()
    with pytest.raises(ValueError):
        BatchNormalization(3)(numpy.zeros((2, 3), numpy.float32), test=True)


def test_pooling_takes_the_kernel_size_as_an_array():
    # Chainer reads ksize with len()/indexing, so a NumPy pair works as a tuple does.
    x = numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4)
    assert F.max_pooling_2d(x, numpy.array([2, 2])).shape == (1, 1, 2, 2)
    assert F.average_pooling_2d(x, numpy.array([2, 2])).shape == (1, 1, 2, 2)


def test_max_pooling_2d_is_recorded_as_the_n_d_node():
    x = chainer.Variable(numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4))
    y = F.max_pooling_2d(x, 2)
    assert type(y.creator).__name__ == "MaxPoolingND" and y.creator.label == "MaxPoolingND"
    assert type(F.average_pooling_2d(x, 2).creator).__name__ == "AveragePooling2D"
