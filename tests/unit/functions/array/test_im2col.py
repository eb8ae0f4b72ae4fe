"""im2col: agreement with a convolution by reshaped weights, gradients of every order."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.array.im2col import im2col
from chainer_compat.functions.connection.convolution_2d import convolution_2d


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def test_matches_convolution_with_flattened_kernels(xp):
    rng = numpy.random.default_rng(0)
    x = xp.asarray(rng.standard_normal((2, 3, 6, 5)))
    w = xp.asarray(rng.standard_normal((4, 3, 3, 2)))
    col = im2col(x, (3, 2), stride=(2, 1), pad=1, dilate=(1, 2))
    conv = convolution_2d(x, w, stride=(2, 1), pad=1, dilate=(1, 2))
    by_columns = xp.einsum("ok,nkhw->nohw", w.reshape(4, -1), col.array)
    numpy.testing.assert_allclose(_host(by_columns), _host(conv.array), rtol=1e-10)


@pytest.mark.parametrize("cover_all", [False, True])
def test_gradients_of_first_and_second_order(cover_all):
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((1, 2, 5, 4))

    def function(x):
        return im2col(x, 2, stride=2, pad=(0, 1), cover_all=cover_all)

    out_shape = function(x).shape
    gy = rng.standard_normal(out_shape)
    gradient_check.check_backward(function, x, gy)
    gradient_check.check_double_backward(function, x, gy, rng.standard_normal(x.shape))
