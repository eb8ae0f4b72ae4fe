"""local_response_normalization: values against a channel loop, gradients, errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import assert_same_gradient, input_gradient_both_ways

from chainer_compat import gradient_check
from chainer_compat.functions.normalization.local_response_normalization import (
    local_response_normalization,
)
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _reference(x, n, k, alpha, beta):
    x = x.astype(numpy.float64)
    y = numpy.empty_like(x)
    channels = x.shape[1]
    for c in range(channels):
        low, high = max(0, c - n // 2), min(channels, c + n // 2 + 1)
        window = (x[:, low:high] ** 2).sum(axis=1)
        y[:, c] = x[:, c] / (k + alpha * window) ** beta
    return y


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(2, 7), (2, 6, 3, 2)])
@pytest.mark.parametrize("n", [5, 2])
def test_forward_matches_channel_loop(xp, dtype, shape, n):
    x = numpy.random.default_rng(0).standard_normal(shape).astype(dtype)
    y = local_response_normalization(xp.asarray(x), n=n, k=1, alpha=0.3, beta=0.75)
    assert y.dtype == dtype and y.shape == shape
    tolerance = {"atol": 2e-2, "rtol": 2e-2} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(_host(y.array), _reference(x, n, 1, 0.3, 0.75), **tolerance)


def test_default_parameters_match_alexnet_constants():
    x = numpy.random.default_rng(1).standard_normal((2, 8, 2))
    y = local_response_normalization(x)
    numpy.testing.assert_allclose(y.array, _reference(x, 5, 2, 1e-4, 0.75), rtol=1e-12)


def test_backward_and_double_backward_match_numerical(xp):
    rng = numpy.random.default_rng(2)
    x, gy, ggx = (xp.asarray(rng.standard_normal((2, 5, 2))) for _ in range(3))

    def f(x):
        return local_response_normalization(x, n=3, k=1, alpha=0.5, beta=0.75)

    gradient_check.check_backward(f, x, gy)
    gradient_check.check_double_backward(f, x, gy, ggx)


def test_gradient_node_gives_the_gradient_computed_without_it():
    # Under a hook the backward applies LocalResponseNormalizationGrad; without one it runs
    # the same array arithmetic without the node, bit for bit.
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal((2, 7, 3)).astype(numpy.float32)
    gy = rng.standard_normal((2, 7, 3)).astype(numpy.float32)
    direct, through_node, labels = input_gradient_both_ways(local_response_normalization, x, gy)
    assert labels == ["LocalResponseNormalizationGrad"]
    assert_same_gradient(direct, through_node)


def test_vector_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType,
                       match=r"LocalResponseNormalization[\s\S]*x\.ndim >= 2"):
        local_response_normalization(numpy.zeros(4, "f"))
