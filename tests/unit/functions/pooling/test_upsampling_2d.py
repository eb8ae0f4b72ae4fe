"""upsampling_2d: each entry placed at its max-pooling index, against a loop reference;
default and given outsize; first and second order gradients; errors."""

from __future__ import annotations

import itertools

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat import gradient_check
from chainer_compat.functions.pooling.max_pooling_2d import max_pooling_2d
from chainer_compat.functions.pooling.upsampling_2d import upsampling_2d
from chainer_compat.utils import type_check


def reference(x, indexes, ksize, stride, pad, outsize):
    kh, kw = ksize
    (sy, sx), (ph, pw) = stride, pad
    out_h, out_w = outsize
    canvas = numpy.zeros(x.shape[:2] + (max(out_h + 2 * ph, sy * x.shape[2] + kh),
                                        max(out_w + 2 * pw, sx * x.shape[3] + kw)))
    for n, c, i, j in itertools.product(*(range(s) for s in x.shape)):
        ky, kx = divmod(int(indexes[n, c, i, j]), kw)
        canvas[n, c, i * sy + ky, j * sx + kx] += x[n, c, i, j]
    return canvas[:, :, ph:ph + out_h, pw:pw + out_w]


@pytest.mark.parametrize("shape,ksize,stride,pad,cover_all", [
    ((2, 3, 4, 6), (2, 2), (2, 2), (0, 0), True),
    ((1, 2, 5, 5), (3, 3), (2, 2), (1, 1), True),
    ((1, 2, 5, 7), (2, 3), (1, 2), (1, 0), False),
])
def test_forward_and_gradients(shape, ksize, stride, pad, cover_all):
    rng = numpy.random.RandomState(0)
    source = rng.uniform(-1, 1, shape)
    pooled, indexes = max_pooling_2d(source, ksize, stride, pad, cover_all, True)
    x = rng.uniform(-1, 1, pooled.shape)
    y = upsampling_2d(x, indexes, ksize, stride, pad, shape[2:], cover_all)
    assert y.shape == shape
    numpy.testing.assert_allclose(
        y.array, reference(x, indexes, ksize, stride, pad, shape[2:]), atol=1e-12)
    default = upsampling_2d(x, indexes, ksize, stride, pad, cover_all=cover_all)
    numpy.testing.assert_allclose(
        default.array, reference(x, indexes, ksize, stride, pad, default.shape[2:]), atol=1e-12)

    def f(x):
        return upsampling_2d(x, indexes, ksize, stride, pad, shape[2:], cover_all)

    gy = rng.uniform(-1, 1, y.shape)
    gradient_check.check_backward(f, x, gy, atol=1e-6, rtol=1e-5)
    gradient_check.check_double_backward(f, x, gy, rng.uniform(-1, 1, x.shape), atol=1e-6,
                                         rtol=1e-5)


def test_on_device(xp):
    x = xp.asarray(numpy.random.RandomState(1).uniform(-1, 1, (1, 2, 4, 4)).astype("f"))
    pooled, indexes = max_pooling_2d(x, 2, return_indices=True)
    y = upsampling_2d(pooled, indexes, 2, outsize=(4, 4))
    assert y.dtype == numpy.float32
    assert ((y.array == x) | (y.array == 0)).all()
    assert float(y.array.sum()) == pytest.approx(float(pooled.array.sum()), rel=1e-5)


def test_errors():
    indexes = numpy.zeros((1, 1, 2, 2), dtype=int)
    with pytest.raises(type_check.InvalidType):
        upsampling_2d(numpy.ones((1, 1, 2, 3)), indexes, 2)
    with pytest.raises(type_check.InvalidType):
        upsampling_2d(numpy.ones((1, 1, 2, 2)), indexes, 2, outsize=(9, 4))


def test_a_hook_sees_chainers_gradient_node():
    rng = numpy.random.default_rng(25)
    pooled, indexes = max_pooling_2d(rng.standard_normal((2, 3, 5, 5)).astype(numpy.float32),
                                     2, stride=2, return_indices=True)
    x = pooled.array
    gy = rng.standard_normal((2, 3, 5, 5)).astype(numpy.float32)

    def upsample(x):
        return upsampling_2d(x, indexes, 2, stride=2, outsize=(5, 5))

    plain, hooked, labels = gradients_under_a_hook(upsample, (x,), gy)
    assert labels == ["Upsampling2DGrad"]  # Chainer 7.8.1's
    numpy.testing.assert_array_equal(hooked[0], plain[0])
    # Each input entry gets the gradient of the one output entry it was copied to.
    up = upsample(x).array
    picked = numpy.where(up != 0, gy, 0).reshape(2, 3, 5, 5)
    numpy.testing.assert_allclose(plain[0].sum(), picked.sum(), rtol=1e-5)
