"""Corner cases of single functions and helpers where earlier reviews found us apart from
Chainer 7.8.1: roi_max_align_2d under infinite gradients, the type-check header of a few losses,
the CTC loss of labels too long for their frames, normalize of a float16 zero vector,
tensordot's integer axes, ConcatWithAsyncTransfer's devices and the sample dtypes of Dirichlet
and Poisson. Set CHAINER_CONFORMANCE_TARGET=chainer to run
this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

TARGET = os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat")
chainer = importlib.import_module(TARGET)


def _module(path):
    return importlib.import_module(f"{TARGET}.{path}")


roi_max_align_2d = _module("functions.pooling.roi_max_align_2d").roi_max_align_2d


def test_roi_max_align_2d_empty_bin_passes_no_gradient_even_when_infinite():
    x = chainer.Variable(numpy.arange(32, dtype=numpy.float32).reshape(2, 1, 4, 4))
    # ROI 0's bins lie wholly above and left of the image except its last; ROI 1 is inside.
    rois = numpy.array([[-10.0, -10.0, 1.0, 1.0], [0.5, 0.5, 3.0, 3.0]], numpy.float32)
    y = roi_max_align_2d(x, rois, numpy.array([0, 1], numpy.int32), 2, 1.0, 2)
    assert numpy.isneginf(y.array[0, 0, 0, 0])
    y.grad = numpy.full(y.shape, numpy.inf, numpy.float32)
    y.backward()
    assert not numpy.isnan(x.grad).any()
    # Exactly the pixels that feed a selected sample get the infinite gradient.
    finite_gy = chainer.Variable(x.array.copy())
    y_finite = roi_max_align_2d(finite_gy, rois, numpy.array([0, 1], numpy.int32), 2, 1.0, 2)
    y_finite.grad = numpy.ones(y_finite.shape, numpy.float32)
    y_finite.backward()
    numpy.testing.assert_array_equal(numpy.isinf(x.grad), finite_gy.grad > 0)
    numpy.testing.assert_array_equal(x.grad[finite_gy.grad == 0], 0)


def _loss(path, name):
    return getattr(_module(f"functions.loss.{path}"), name)


def _negative_sampling(x, t, W):  # noqa: N803
    sampler = lambda shape: numpy.zeros(shape, numpy.int32)  # noqa: E731
    return _loss("negative_sampling", "negative_sampling")(x, t, W, sampler, 2)


def _ctc(frames, labels, **lengths):
    return _loss("ctc", "connectionist_temporal_classification")(list(frames), labels, 0,
                                                                  **lengths)


_RNG = numpy.random.RandomState(0)
_X = _RNG.normal(size=(3, 4)).astype(numpy.float32)
_W = _RNG.normal(size=(5, 4)).astype(numpy.float32)
_T = numpy.array([0, 1, 2], numpy.int32)
_FRAMES = _RNG.normal(size=(4, 2, 3)).astype(numpy.float32)
_LABELS = numpy.array([[1, 2], [2, 1]], numpy.int32)
_Y = _RNG.normal(size=(3, 4)).astype(numpy.float32)
_Z = _RNG.normal(size=(3, 2)).astype(numpy.float32)


@pytest.mark.parametrize("call, label, expect, actual", [
    (lambda: _negative_sampling(_X, _T.astype(numpy.int64), _W), "NegativeSamplingFunction",
     "t.dtype == <class 'numpy.int32'>", "int64 != <class 'numpy.int32'>"),
    (lambda: _negative_sampling(_X, _T[:2], _W), "NegativeSamplingFunction",
     "x.shape[0] == t.shape[0]", "3 != 2"),
    (lambda: _negative_sampling(_X[0], _T, _W), "NegativeSamplingFunction",
     "x.ndim == 2", "1 != 2"),
    (lambda: _negative_sampling(_X, _T, _W.astype(numpy.float64)), "NegativeSamplingFunction",
     "W.dtype == x.dtype", "float64 != float32"),
    (lambda: _ctc(_FRAMES, _LABELS.astype(numpy.int64)), "ConnectionistTemporalClassification",
     "t.dtype == <class 'numpy.int32'>", "int64 != <class 'numpy.int32'>"),
    (lambda: _ctc(_FRAMES, _LABELS[:1]), "ConnectionistTemporalClassification",
     "t.shape[0] == x.shape[1]", "1 != 2"),
    (lambda: _ctc(_FRAMES, _LABELS, input_length=numpy.full(2, 4, numpy.int64)),
     "ConnectionistTemporalClassification",
     "input_length.dtype == <class 'numpy.int32'>", "int64 != <class 'numpy.int32'>"),
    (lambda: _ctc(_FRAMES.astype(numpy.int32), _LABELS), "ConnectionistTemporalClassification",
     "x.dtype.kind == f", "i != f"),
    (lambda: _loss("cross_covariance", "cross_covariance")(_Y, _Z.astype(numpy.float64)),
     "CrossCovariance", "y.dtype == z.dtype", "float32 != float64"),
    (lambda: _loss("cross_covariance", "cross_covariance")(_Y, _Z[:2]),
     "CrossCovariance", "y.shape[0] == z.shape[0]", "3 != 2"),
    (lambda: _loss("cross_covariance", "cross_covariance")(_Y[0], _Z),
     "CrossCovariance", "y.ndim == 2", "1 != 2"),
    (lambda: _loss("decov", "decov")(_Y.astype(numpy.int32)), "DeCov", "h.dtype.kind == f",
     "i != f"),
    (lambda: _loss("decov", "decov")(_Y[0]), "DeCov", "h.ndim == 2", "1 != 2"),
])
def test_loss_type_errors_name_the_function_like_chainer(call, label, expect, actual):
    with pytest.raises(_module("utils.type_check").InvalidType) as info:
        call()
    assert str(info.value) == (f"\nInvalid operation is performed in: {label} (Forward)\n\n"
                               f"Expect: {expect}\nActual: {actual}")


@pytest.mark.parametrize("eps", [1e-5, 1e-3])
def test_normalize_float16_zero_vector_gradient_overflows_to_inf_not_nan(eps):
    values = numpy.array([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]])
    x = chainer.Variable(values.astype(numpy.float16))
    with numpy.errstate(divide="ignore", over="ignore", invalid="ignore"):
        y = chainer.functions.normalize(x, eps=eps)
        y.grad = numpy.ones(y.shape, numpy.float16)
        y.backward()
    norm = numpy.sqrt((values ** 2).sum(axis=1, keepdims=True))
    numpy.testing.assert_allclose(y.array, values / (norm + eps), rtol=2e-3)
    assert x.grad.dtype == numpy.float16
    # The exact gradient of the zero row is 1 / eps: 1e5 overflows float16, 1e3 does not.
    expected = 1 / (norm + eps) - values * values.sum(axis=1, keepdims=True) / (
        numpy.maximum(norm, 1e-300) * (norm + eps) ** 2)
    if 1 / eps > float(numpy.finfo(numpy.float16).max):
        assert numpy.isposinf(x.grad[0]).all()
    else:
        numpy.testing.assert_allclose(x.grad[0], expected[0], rtol=2e-2)
    numpy.testing.assert_allclose(x.grad[1], expected[1], rtol=1e-2, atol=1e-3)


@pytest.mark.parametrize("axes", [0, -1, -3])
@pytest.mark.parametrize("a_shape, b_shape", [((2, 3), (3, 4)), ((3,), (3,)), ((), (2,))])
def test_tensordot_non_positive_int_axes_is_an_outer_product(axes, a_shape, b_shape):
    rng = numpy.random.RandomState(1)
    a = chainer.Variable(numpy.asarray(rng.normal(size=a_shape)))
    b = chainer.Variable(numpy.asarray(rng.normal(size=b_shape)))
    y = chainer.functions.tensordot(a, b, axes=axes)
    numpy.testing.assert_allclose(y.array, numpy.multiply.outer(a.array, b.array))
    gy = rng.normal(size=y.shape)
    y.grad = gy
    y.backward()
    a_axes = tuple(range(a.ndim, y.ndim))
    numpy.testing.assert_allclose(a.grad, (gy * b.array).sum(axis=a_axes))
    numpy.testing.assert_allclose(
        b.grad, (gy * a.array.reshape(a_shape + (1,) * len(b_shape))).sum(
            axis=tuple(range(a.ndim))))


@pytest.mark.parametrize("axes", [1, 3])
def test_tensordot_int_axes_beyond_ndim_is_a_value_error(axes):
    with pytest.raises(ValueError):
        chainer.functions.tensordot(numpy.ones(3), numpy.ones((3, 2)), axes=axes + 1)


def _concat_with_async_transfer():
    return _module("dataset").ConcatWithAsyncTransfer()


@pytest.mark.parametrize("first, second", [(None, -1), (-1, None), (-1, -2)])
def test_concat_with_async_transfer_array_batches_leave_the_device_unbound(first, second):
    transfer = _concat_with_async_transfer()
    arrays = [numpy.zeros(2, numpy.float32), numpy.ones(2, numpy.float32)]
    transfer(arrays, first)
    numpy.testing.assert_array_equal(transfer(arrays, second), numpy.stack(arrays))
    # The first tuple batch binds the device it is sent to.
    pairs = [(array, numpy.int32(i)) for i, array in enumerate(arrays)]
    transfer(pairs, second)
    transfer(arrays, second)
    with pytest.raises(ValueError, match="device is different"):
        transfer(arrays, first)


@pytest.mark.parametrize("examples", [
    [(numpy.zeros(2),), (numpy.ones(2),)], [{"x": numpy.zeros(2)}, {"x": numpy.ones(2)}]])
def test_concat_with_async_transfer_tuple_or_dict_batch_binds_the_first_device(examples):
    transfer = _concat_with_async_transfer()
    transfer(examples, None)
    transfer(examples, None)
    with pytest.raises(ValueError, match="device is different"):
        transfer(examples, -1)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_dirichlet_samples_are_float32_and_log_prob_needs_alpha_dtype(dtype):
    distributions = _module("distributions")
    dist = distributions.Dirichlet(numpy.array([[1.5, 2.0, 3.0]], dtype))
    numpy.random.seed(0)
    sample = dist.sample(4)
    assert sample.dtype == numpy.float32 and sample.shape == (4, 1, 3)
    numpy.testing.assert_allclose(sample.array.sum(axis=-1), 1.0, rtol=1e-6)
    assert dist.sample().dtype == numpy.float32
    assert dist.log_prob(sample.array.astype(dtype)).dtype == dtype
    if dtype != numpy.float32:
        with pytest.raises(_module("utils.type_check").InvalidType):
            dist.log_prob(sample)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_poisson_samples_are_float32_and_log_prob_keeps_lam_dtype(dtype):
    distributions = _module("distributions")
    dist = distributions.Poisson(numpy.array([1.5, 4.0], dtype))
    numpy.random.seed(0)
    sample = dist.sample(5)
    assert sample.dtype == numpy.float32 and sample.shape == (5, 2)
    numpy.testing.assert_array_equal(sample.array, numpy.round(sample.array))
    assert dist.sample().dtype == numpy.float32
    for counts in (sample, numpy.array([1, 2], numpy.int32)):
        assert dist.log_prob(counts).dtype == dtype


@pytest.mark.parametrize("dtype, log_zero", [
    (numpy.float16, 1e4), (numpy.float32, 1e10), (numpy.float64, 1e10)])
def test_ctc_labels_that_cannot_fit_cost_log_zero_with_a_finite_gradient(dtype, log_zero):
    # [1, 2, 1] needs 3 frames and gets 2; [2, 1] fits.
    labels = numpy.array([[1, 2, 1], [2, 1, 0]], numpy.int32)
    frames = numpy.random.RandomState(3).normal(size=(2, 2, 3)).astype(dtype)
    xs = [chainer.Variable(frame) for frame in frames]
    with numpy.errstate(over="raise"):
        loss = _ctc(xs, labels, label_length=numpy.array([3, 2], numpy.int32), reduce="no")
    assert loss.dtype == dtype
    numpy.testing.assert_allclose(loss.array[0], log_zero, rtol=1e-6)
    probs = numpy.exp(frames.astype(numpy.float64))
    probs /= probs.sum(axis=2, keepdims=True)
    # Two frames for [2, 1]: only the alignment "2 1".
    numpy.testing.assert_allclose(loss.array[1], -numpy.log(probs[0, 1, 2] * probs[1, 1, 1]),
                                  rtol=1e-2 if dtype == numpy.float16 else 1e-5)
    loss.grad = numpy.ones(2, dtype)
    loss.backward()
    assert all(numpy.isfinite(x.grad).all() for x in xs)
