"""spatial_pyramid_pooling_2d: levels, uneven sizes, gradients."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.pooling.spatial_pyramid_pooling_2d import (
    spatial_pyramid_pooling_2d,
)


def test_first_level_is_the_global_maximum():
    x = numpy.random.default_rng(0).standard_normal((2, 3, 5, 7))
    y = spatial_pyramid_pooling_2d(x, 2, "max")
    assert y.shape == (2, 3 * 5, 1, 1)
    numpy.testing.assert_array_equal(y.array[:, :3, 0, 0], x.max(axis=(2, 3)))


def test_gradient_matches_numerical():
    rng = numpy.random.default_rng(1)
    # Distinct values, so that each maximum is unique and the numerical gradient is exact.
    x = rng.permutation(2 * 2 * 8 * 4).reshape(2, 2, 8, 4).astype(numpy.float64)
    gradient_check.check_backward(lambda x: spatial_pyramid_pooling_2d(x, 3, "max"), x,
                                  rng.standard_normal((2, 2 * 21, 1, 1)))


def test_pooling_other_than_max_is_value_error():
    with pytest.raises(ValueError, match="Unsupported pooling"):
        spatial_pyramid_pooling_2d(numpy.zeros((1, 1, 2, 2)), 1, "average")
