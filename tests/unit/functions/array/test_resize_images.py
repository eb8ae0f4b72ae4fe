"""resize_images: identity and corner cases, float64 gradients of every order."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.array.resize_images import resize_images


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


@pytest.mark.parametrize("mode,align_corners", [("bilinear", True), ("bilinear", False),
                                                 ("nearest", True)])
def test_same_size_is_identity(xp, mode, align_corners):
    x = numpy.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(numpy.float32)
    y = resize_images(xp.asarray(x), (4, 5), mode=mode, align_corners=align_corners)
    numpy.testing.assert_allclose(_host(y.array), x, rtol=1e-6, atol=1e-6)


def test_aligned_corners_keep_corner_pixels_and_midpoints_average():
    x = numpy.arange(4.0).reshape(1, 1, 2, 2)
    y = resize_images(x, (3, 3)).array[0, 0]
    numpy.testing.assert_allclose(y[[0, 0, -1, -1], [0, -1, 0, -1]], [0, 1, 2, 3])
    numpy.testing.assert_allclose(y[1, 1], 1.5)


@pytest.mark.parametrize("mode,align_corners", [("bilinear", True), ("bilinear", False),
                                                 ("nearest", True)])
def test_gradients_of_first_and_second_order(mode, align_corners):
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((2, 2, 3, 4))

    def function(x):
        return resize_images(x, (5, 2), mode=mode, align_corners=align_corners)

    gy = rng.standard_normal((2, 2, 5, 2))
    gradient_check.check_backward(function, x, gy)
    gradient_check.check_double_backward(function, x, gy, rng.standard_normal(x.shape))


def test_unknown_mode_is_value_error():
    with pytest.raises(ValueError, match="mode must be"):
        resize_images(numpy.zeros((1, 1, 2, 2)), (3, 3), mode="bicubic")
