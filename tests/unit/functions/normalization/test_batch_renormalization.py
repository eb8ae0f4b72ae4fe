"""batch_renormalization: agreement with batch normalization, double backprop, errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import LabelRecorder

import chainer_compat
from chainer_compat import Variable, gradient_check
from chainer_compat.functions.normalization.batch_normalization import batch_normalization
from chainer_compat.functions.normalization.batch_renormalization import (
    BatchRenormalizationFunction,
    batch_renormalization,
)
from chainer_compat.utils import type_check


def test_no_correction_is_batch_normalization():
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((5, 3, 2))
    gamma, beta = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3)
    y = batch_renormalization(x, gamma, beta, 1, 0, running_mean=rng.standard_normal(3),
                              running_var=rng.uniform(0.5, 2, 3))
    numpy.testing.assert_allclose(y.array, batch_normalization(x, gamma, beta).array)


def test_double_backward_with_saturated_corrections():
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((6, 2))
    gamma, beta = rng.uniform(0.5, 1.5, 2), rng.standard_normal(2)

    def function(x, gamma, beta):
        # Far running statistics pin r at rmax and d at -dmax, constants as backprop treats
        # them.
        return batch_renormalization(x, gamma, beta, 1.5, 0.3,
                                     running_mean=numpy.full(2, 5.0),
                                     running_var=numpy.full(2, 0.01))

    gy = rng.standard_normal(x.shape)
    gradient_check.check_backward(function, (x, gamma, beta), gy)
    gradient_check.check_double_backward(
        function, (x, gamma, beta), gy,
        (rng.standard_normal(x.shape), rng.standard_normal(2), rng.standard_normal(2)))


def test_mismatched_gamma_is_invalid_type():
    ones = numpy.ones(4)
    with pytest.raises(type_check.InvalidType):
        batch_renormalization(numpy.zeros((2, 3)), ones, ones, 1, 0, running_mean=ones,
                              running_var=ones)


def test_function_class_records_its_corrections_and_needs_the_statistics():
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal((6, 3))
    gamma, beta = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3)
    mean, var = rng.standard_normal(3), rng.uniform(0.5, 2, 3)
    node = BatchRenormalizationFunction(1e-5, mean.copy(), var.copy(), 0.9, 1.5, 0.2,
                                        update_statistics=False)
    node(x, gamma, beta)
    expected_r = numpy.clip(numpy.sqrt(x.var(axis=0) + 1e-5) / numpy.sqrt(var + 1e-5),
                            1 / 1.5, 1.5)
    expected_d = numpy.clip((x.mean(axis=0) - mean) / numpy.sqrt(var + 1e-5), -0.2, 0.2)
    numpy.testing.assert_allclose(node.r, expected_r)
    numpy.testing.assert_allclose(node.d, expected_d)
    with pytest.raises(TypeError, match="running_mean is required"):
        BatchRenormalizationFunction(var=var)(x, gamma, beta)


def _renormalize(x, gamma, beta):
    return batch_renormalization(x, gamma, beta, 1.5, 0.3, running_mean=numpy.full(3, 0.2),
                                 running_var=numpy.full(3, 0.5))


def test_backward_applies_no_function_as_chainers_old_style_function():
    rng = numpy.random.default_rng(4)
    inputs = [Variable(rng.standard_normal(shape).astype(numpy.float32))
              for shape in ((5, 3, 2), (3,), (3,))]
    gy = rng.standard_normal((5, 3, 2)).astype(numpy.float32)
    y = _renormalize(*inputs)
    assert y.creator.label == "BatchRenormalizationFunction"
    y.grad = gy
    y.backward()
    plain = [v.grad.copy() for v in inputs]
    for v in inputs:
        v.cleargrad()

    class Recorder(LabelRecorder):
        def __init__(self):
            super().__init__()
            self.backward_labels = []

        def backward_preprocess(self, function, in_data, out_grad):
            self.backward_labels.append(function.label)

    recorder = Recorder()
    y.grad = gy
    with recorder:
        y.backward()
    # Chainer 7.8.1: the hook sees the Function's backward, which applies nothing.
    assert recorder.labels == [] and recorder.backward_labels == [
        "BatchRenormalizationFunction"]
    for value, v in zip(plain, inputs):
        numpy.testing.assert_array_equal(v.grad, value)
        assert v.grad.dtype == numpy.float32


def test_gradients_recorded_for_double_backprop_equal_the_plain_ones():
    rng = numpy.random.default_rng(5)
    x, gamma, beta = (Variable(rng.standard_normal(shape)) for shape in ((6, 3), (3,), (3,)))
    plain = chainer_compat.grad([_renormalize(x, gamma, beta) ** 2], [x, gamma, beta])
    recorded = chainer_compat.grad([_renormalize(x, gamma, beta) ** 2], [x, gamma, beta],
                                   enable_double_backprop=True)
    assert all(g.creator is not None for g in recorded)
    for expected, gradient in zip(plain, recorded):
        numpy.testing.assert_allclose(gradient.array, expected.array, rtol=1e-12, atol=1e-14)


def test_a_function_called_again_keeps_each_calls_renormalization_for_double_backprop():
    # The graph path of the gradient read the function's latest d: a second call before
    # backward (a reused BatchRenormalizationFunction) changed the first call's gradients.
    rng = numpy.random.RandomState(0)
    x1, x2 = rng.randn(4, 3), rng.randn(4, 3) * 3 + 2
    gamma, beta = rng.rand(3) + 0.5, rng.randn(3)

    def gamma_gradient(call_again):
        function = BatchRenormalizationFunction(2e-5, numpy.zeros(3), numpy.ones(3), 0.9, 3.0,
                                                5.0, False)
        x, g, b = Variable(x1), Variable(gamma), Variable(beta)
        y = function(x, g, b)
        if call_again:
            function(x2, gamma, beta)
        _, g_gamma, _ = chainer_compat.grad([chainer_compat.functions.sum(y * y)], [x, g, b],
                                            enable_double_backprop=True)
        return g_gamma.array

    assert gamma_gradient(True).tobytes() == gamma_gradient(False).tobytes()


def test_float16_sums_that_overflow_give_way_to_float32_sums():
    # Channel 0 near 100: its float16 sum overflows, channel 1's does not.
    rng = numpy.random.RandomState(0)
    x = rng.standard_normal((40, 2, 5, 5))
    x[:, 0] += 100
    x = x.astype(numpy.float16)
    gamma, beta = numpy.ones(2, numpy.float16), numpy.zeros(2, numpy.float16)
    running_mean = numpy.array([100, 0], numpy.float16)
    running_var = numpy.ones(2, numpy.float16)
    y = batch_renormalization(x, gamma, beta, 1.5, 0.5, running_mean=running_mean,
                              running_var=running_var, update_statistics=True)
    wide_mean, wide_var = running_mean.astype(numpy.float32), running_var.astype(numpy.float32)
    y_wide = batch_renormalization(x.astype(numpy.float32), gamma.astype(numpy.float32),
                                   beta.astype(numpy.float32), 1.5, 0.5,
                                   running_mean=wide_mean, running_var=wide_var,
                                   update_statistics=True)
    numpy.testing.assert_allclose(y.array, y_wide.array, atol=2e-2, rtol=1e-2)
    numpy.testing.assert_allclose(running_mean, wide_mean, rtol=1e-2, atol=1e-3)
    numpy.testing.assert_allclose(running_var, wide_var, rtol=1e-2)
