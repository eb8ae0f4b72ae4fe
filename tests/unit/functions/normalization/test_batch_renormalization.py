"""batch_renormalization: agreement with batch normalization, double backprop, errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check
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
