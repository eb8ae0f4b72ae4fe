"""L.BatchNormalization: parameters and persistents, train and test mode, running averages and
fine-tuning against NumPy, lazy size, npz round trip, and errors."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check, initializers, serializers
from chainer_compat.links.normalization.batch_normalization import BatchNormalization


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _batches(count, shape, seed=0):
    rng = numpy.random.default_rng(seed)
    return [(rng.standard_normal(shape) * (i + 1) + i).astype(numpy.float32)
            for i in range(count)]


def test_parameters_and_persistents_start_at_their_defaults():
    link = BatchNormalization(3)
    assert {name for name, _ in link.namedparams()} == {"/gamma", "/beta"}
    numpy.testing.assert_array_equal(link.gamma.array, numpy.ones(3, numpy.float32))
    numpy.testing.assert_array_equal(link.beta.array, numpy.zeros(3, numpy.float32))
    numpy.testing.assert_array_equal(link.avg_mean, numpy.zeros(3, numpy.float32))
    numpy.testing.assert_array_equal(link.avg_var, numpy.ones(3, numpy.float32))
    assert link.N == 0 and link.avg_mean.dtype == numpy.float32
    assert link.decay == 0.9 and link.eps == 2e-5 and link.axis is None


def test_training_normalizes_with_batch_statistics_and_updates_running_averages(xp):
    link = BatchNormalization(3, decay=0.8)
    if xp is not numpy:
        link.to_gpu()
    x = _batches(1, (6, 3, 2))[0]
    with chainer.using_config("train", True):
        y = link(xp.asarray(x))
    mean, var = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
    expected = (x - mean[:, None]) / numpy.sqrt(var[:, None] + 2e-5)
    numpy.testing.assert_allclose(_host(y.array), expected, atol=1e-5)
    numpy.testing.assert_allclose(_host(link.avg_mean), 0.2 * mean, rtol=1e-5)
    numpy.testing.assert_allclose(_host(link.avg_var), 0.8 + 0.2 * var * 12 / 11, rtol=1e-5)
    assert link.N == 0


def test_test_mode_uses_running_averages_and_leaves_them_alone(xp):
    rng = numpy.random.default_rng(1)
    mean, var = rng.standard_normal(3), rng.uniform(0.5, 2, 3)
    link = BatchNormalization(3, initial_avg_mean=mean, initial_avg_var=var,
                              initial_gamma=2.0, initial_beta=0.5, eps=1e-3)
    if xp is not numpy:
        link.to_gpu()
    x = _batches(1, (4, 3))[0]
    with chainer.using_config("train", False):
        y = link(xp.asarray(x))
    expected = 2.0 * (x - mean) / numpy.sqrt(var + 1e-3) + 0.5
    numpy.testing.assert_allclose(_host(y.array), expected, rtol=1e-5, atol=1e-5)
    numpy.testing.assert_allclose(_host(link.avg_mean), mean.astype(numpy.float32))
    numpy.testing.assert_allclose(_host(link.avg_var), var.astype(numpy.float32))


def test_finetune_averages_all_batches_cumulatively():
    link = BatchNormalization(3)
    batches = _batches(4, (5, 3), seed=2)
    for batch in batches:
        link(batch, finetune=True)
    assert link.N == 4
    # decay 1 - 1/N makes each running value the plain mean of the batches' values.
    expected_mean = numpy.mean([b.mean(axis=0) for b in batches], axis=0)
    expected_var = numpy.mean([b.var(axis=0) * 5 / 4 for b in batches], axis=0)
    numpy.testing.assert_allclose(link.avg_mean, expected_mean, rtol=1e-5)
    numpy.testing.assert_allclose(link.avg_var, expected_var, rtol=1e-5)
    link.start_finetuning()
    assert link.N == 0
    link(batches[0], finetune=True)
    numpy.testing.assert_allclose(link.avg_mean, batches[0].mean(axis=0), rtol=1e-5)


def test_finetune_outside_training_neither_counts_nor_updates():
    link = BatchNormalization(3)
    with chainer.using_config("train", False):
        link(_batches(1, (5, 3))[0], finetune=True)
    assert link.N == 0
    numpy.testing.assert_array_equal(link.avg_mean, numpy.zeros(3, numpy.float32))


def test_recomputed_forward_neither_counts_nor_updates():
    link = BatchNormalization(3)
    with chainer.using_config("in_recomputing", True):
        link(_batches(1, (5, 3))[0], finetune=True)
    assert link.N == 0
    numpy.testing.assert_array_equal(link.avg_var, numpy.ones(3, numpy.float32))


def test_lazy_size_is_taken_from_the_axes_outside_axis():
    link = BatchNormalization(axis=(0, 2))
    assert link.avg_mean is None and link.gamma.array is None
    x = _batches(1, (4, 3, 5))[0]
    link(x)
    assert link.avg_mean.shape == link.gamma.shape == link.beta.shape == (3,)
    numpy.testing.assert_allclose(link.avg_mean, 0.1 * x.mean(axis=(0, 2)), rtol=1e-5)


def test_int_axis_becomes_a_tuple_and_normalizes_over_it():
    link = BatchNormalization(axis=1)
    assert link.axis == (1,)
    x = _batches(1, (4, 3))[0]
    y = link(x)
    assert link.avg_mean.shape == (4,)
    expected = (x - x.mean(axis=1, keepdims=True)) / numpy.sqrt(
        x.var(axis=1, keepdims=True) + 2e-5)
    numpy.testing.assert_allclose(y.array, expected, atol=1e-5)


def test_size_may_be_a_shape():
    link = BatchNormalization((3, 4))
    x = _batches(1, (2, 3, 4, 5))[0]
    y = link(x)
    assert link.gamma.shape == (3, 4) and y.shape == x.shape
    numpy.testing.assert_allclose(link.avg_mean, 0.1 * x.mean(axis=(0, 3)), rtol=1e-5)


def test_without_gamma_and_beta_the_scale_is_one_and_the_shift_zero():
    link = BatchNormalization(3, use_gamma=False, use_beta=False)
    assert link.gamma is None and link.beta is None
    assert list(link.params()) == []
    x = _batches(1, (5, 3))[0]
    y = link(x)
    expected = (x - x.mean(axis=0)) / numpy.sqrt(x.var(axis=0) + 2e-5)
    numpy.testing.assert_allclose(y.array, expected, atol=1e-5)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float64])
def test_dtype_sets_parameters_and_statistics(dtype):
    link = BatchNormalization(3, dtype=dtype)
    for array in (link.gamma.array, link.beta.array, link.avg_mean, link.avg_var):
        assert array.dtype == dtype


def test_mixed16_keeps_parameters_and_statistics_in_float32():
    with chainer.using_config("dtype", chainer.mixed16):
        link = BatchNormalization(3)
        y = link(_batches(1, (4, 3))[0].astype(numpy.float16))
    assert link.gamma.dtype == link.avg_mean.dtype == numpy.float32
    assert y.dtype == numpy.float16


def test_initializers_are_accepted():
    link = BatchNormalization(3, initial_gamma=initializers.Constant(3.0),
                              initial_beta=numpy.arange(3.0), initial_avg_var=2.0)
    numpy.testing.assert_array_equal(link.gamma.array, numpy.full(3, 3.0, numpy.float32))
    numpy.testing.assert_array_equal(link.beta.array, numpy.arange(3.0, dtype=numpy.float32))
    numpy.testing.assert_array_equal(link.avg_var, numpy.full(3, 2.0, numpy.float32))


def test_gradients_flow_to_input_gamma_and_beta():
    link = BatchNormalization(3, dtype=numpy.float64)
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal((5, 3))
    gy = rng.standard_normal((5, 3))
    gradient_check.check_backward(link, x, gy, params=(link.gamma, link.beta))


def test_npz_round_trip_keeps_persistents_and_parameters(tmp_path):
    link = BatchNormalization(3)
    for batch in _batches(3, (5, 3)):
        link(batch, finetune=True)
    link.gamma.array[...] = [1.0, 2.0, 3.0]
    path = str(tmp_path / "bn.npz")
    serializers.save_npz(path, link)
    with numpy.load(path) as saved:
        assert set(saved.files) == {"gamma", "beta", "avg_mean", "avg_var", "N"}
        assert int(saved["N"]) == 3
    for loaded in (BatchNormalization(3), BatchNormalization(axis=0)):
        serializers.load_npz(path, loaded)
        assert int(loaded.N) == 3
        numpy.testing.assert_array_equal(loaded.avg_mean, link.avg_mean)
        numpy.testing.assert_array_equal(loaded.avg_var, link.avg_var)
        numpy.testing.assert_array_equal(loaded.gamma.array, link.gamma.array)
        numpy.testing.assert_array_equal(loaded.beta.array, link.beta.array)


def test_str_lists_the_specs():
    text = str(BatchNormalization(3, decay=0.5, use_beta=False))
    assert text == ("BatchNormalization(size=3, decay=0.5, eps=2e-05, dtype=float32, "
                    "use_gamma=True, use_beta=False)")


def test_without_size_and_axis_raises_runtime_error():
    with pytest.raises(RuntimeError, match="size or axis is required"):
        BatchNormalization()


def test_test_keyword_raises_value_error():
    with pytest.raises(ValueError, match="test argument is not supported anymore"):
        BatchNormalization(3)(numpy.zeros((2, 3), numpy.float32), test=True)


def test_unknown_keyword_raises_type_error():
    with pytest.raises(TypeError, match="'train'"):
        BatchNormalization(3)(numpy.zeros((2, 3), numpy.float32), train=True)
