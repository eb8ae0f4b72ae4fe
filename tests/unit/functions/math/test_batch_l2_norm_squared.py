"""batch_l2_norm_squared: per-sample squared norms, gradients, type errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

import chainer_compat
from chainer_compat.functions.math.batch_l2_norm_squared import batch_l2_norm_squared
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _reference(x):
    return (x ** 2).sum(axis=tuple(range(1, x.ndim)))


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (4, 1), (0, 3)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, dtype, uniform, check_function):
    x = uniform(shape, dtype)
    check_function(batch_l2_norm_squared, (x,), _reference, backward=x.size > 0)


@pytest.mark.parametrize("x", [numpy.zeros(3, numpy.float32), numpy.zeros((2, 3), numpy.int32)])
def test_type_check_needs_a_float_batch(x):
    with pytest.raises(type_check.InvalidType, match=r"BatchL2NormSquared \(Forward\)"):
        batch_l2_norm_squared(x)


def test_a_hook_sees_chainers_gradient_node():
    rng = numpy.random.default_rng(24)
    x = rng.standard_normal((4, 3, 2)).astype(numpy.float32)
    gy = rng.standard_normal(4).astype(numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(
        chainer_compat.functions.batch_l2_norm_squared, (x,), gy)
    assert labels == ["BatchL2NormSquaredGrad"]  # Chainer 7.8.1's
    numpy.testing.assert_array_equal(plain[0], 2 * x * gy[:, None, None])
    numpy.testing.assert_array_equal(hooked[0], plain[0])
