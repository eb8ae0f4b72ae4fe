"""negative_sampling with a fixed sampler against a NumPy reference, ignored rows, gradients."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check
from chainer_compat.backends.cuda import to_cpu
from chainer_compat.functions.loss.negative_sampling import negative_sampling
from chainer_compat.utils import type_check

SAMPLES = numpy.array([[0, 2, 3], [4, 4, 1], [0, 0, 2], [5, 1, 1]], numpy.int32)


def _fixed_sampler(shape):
    assert shape == SAMPLES.shape  # the sampler is asked for sample_size + 1 columns
    return SAMPLES.copy()


def _problem(dtype=numpy.float64):
    rng = numpy.random.RandomState(0)
    x = rng.normal(size=(4, 3)).astype(dtype)
    W = rng.normal(size=(6, 3)).astype(dtype)  # noqa: N806
    t = numpy.array([1, -1, 5, 0], numpy.int32)
    return x, t, W


def _reference(x, t, W):  # noqa: N803
    losses = numpy.zeros(len(x))
    for i, label in enumerate(t):
        if label == -1:
            continue
        ids = [label, *SAMPLES[i, 1:]]
        scores = W[ids] @ x[i]
        losses[i] = numpy.logaddexp(0, -scores[0]) + numpy.logaddexp(0, scores[1:]).sum()
    return losses


@pytest.mark.parametrize("reduce", ["sum", "no"])
def test_loss_matches_reference(reduce):
    x, t, W = _problem()  # noqa: N806
    loss = negative_sampling(x, t, W, _fixed_sampler, 2, reduce=reduce)
    expected = _reference(x, t, W)
    numpy.testing.assert_allclose(loss.array, expected.sum() if reduce == "sum" else expected,
                                  rtol=1e-12)


def test_return_samples_puts_the_targets_in_column_zero():
    x, t, W = _problem()  # noqa: N806
    _, samples = negative_sampling(x, t, W, _fixed_sampler, 2, return_samples=True)
    assert samples.dtype == numpy.int32
    numpy.testing.assert_array_equal(samples[:, 0], t)
    numpy.testing.assert_array_equal(samples[:, 1:], SAMPLES[:, 1:])


def test_float32_keeps_its_dtype():
    x, t, W = _problem(numpy.float32)  # noqa: N806
    assert negative_sampling(x, t, W, _fixed_sampler, 2).dtype == numpy.float32


def test_gradients_match_numerical_ones():
    x, t, W = _problem()  # noqa: N806
    rng = numpy.random.RandomState(1)

    def loss(x, W):  # noqa: N803
        return negative_sampling(x, t, W, _fixed_sampler, 2, reduce="no")

    gradient_check.check_backward(loss, (x, W), rng.normal(size=4), dtype=numpy.float64)
    gradient_check.check_double_backward(loss, (x, W), rng.normal(size=4),
                                         (rng.normal(size=x.shape), rng.normal(size=W.shape)),
                                         dtype=numpy.float64)


def test_ignored_rows_get_no_gradient():
    import chainer_compat as chainer

    x, t, W = _problem()  # noqa: N806
    x_var = chainer.Variable(x)
    negative_sampling(x_var, t, W, _fixed_sampler, 2).backward()
    numpy.testing.assert_array_equal(x_var.grad[1], 0)
    assert numpy.abs(x_var.grad[0]).sum() > 0


def test_errors():
    x, t, W = _problem()  # noqa: N806
    with pytest.raises(
            ValueError,
            match="^only 'sum' and 'no' are valid for 'reduce', but 'mean' is given"):
        negative_sampling(x, t, W, _fixed_sampler, 2, reduce="mean")
    with pytest.raises(TypeError):
        negative_sampling(x, t, W, _fixed_sampler, 2, return_sample=True)
    with pytest.raises(type_check.InvalidType):
        negative_sampling(x, t.astype(numpy.int64), W, _fixed_sampler, 2)
    with pytest.raises(type_check.InvalidType):
        negative_sampling(x, t, W.astype(numpy.float32), _fixed_sampler, 2)
    with pytest.raises(type_check.InvalidType):
        negative_sampling(x, t[:3], W, _fixed_sampler, 2)


# The bits of Chainer's CPU order are pinned, on both libraries, in
# tests/conformance/test_hsm_negative_sampling_bits_conformance.py.


def test_samples_are_the_samplers_array_with_the_targets_written_in():
    x, t, W = _problem()  # noqa: N806
    drawn = numpy.ones((4, 3), numpy.int64)
    _, samples = negative_sampling(x, t, W, lambda shape: drawn, 2, return_samples=True)
    assert samples is drawn  # compat: Chainer writes t into the sampler's own array
    numpy.testing.assert_array_equal(samples[:, 0], t)


def test_summed_loss_can_be_differentiated_twice():
    x, t, W = _problem()  # noqa: N806
    rng = numpy.random.RandomState(3)

    def loss(x, W):  # noqa: N803
        return negative_sampling(x, t, W, _fixed_sampler, 2)

    gradient_check.check_double_backward(loss, (x, W), rng.normal(size=()),
                                         (rng.normal(size=x.shape), rng.normal(size=W.shape)),
                                         dtype=numpy.float64)


@pytest.mark.parametrize("reduce", ["sum", "no"])
def test_cupy_loss_and_gradients_match_numpys(cupy, reduce):
    x, t, W = _problem(numpy.float32)  # noqa: N806
    results = []
    for to_device in (numpy.asarray, cupy.asarray):
        x_var, W_var = chainer.Variable(to_device(x)), chainer.Variable(to_device(W))  # noqa: N806
        samples = to_device(SAMPLES)
        loss = negative_sampling(x_var, to_device(t), W_var, lambda shape: samples.copy(), 2,
                                 reduce=reduce)
        chainer.functions.sum(loss).backward()
        results.append([to_cpu(array) for array in (loss.array, x_var.grad, W_var.grad)])
    for on_cpu, on_gpu in zip(*results, strict=True):
        numpy.testing.assert_allclose(on_gpu, on_cpu, rtol=1e-5, atol=1e-6)
