"""dropout: masks in training mode, identity in test mode, mask reuse, gradients, errors."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.noise.dropout import dropout
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("ratio", [0.0, 0.3, 0.8])
def test_training_mode_drops_and_rescales(xp, dtype, ratio):
    xp.random.seed(0)
    x = numpy.random.default_rng(0).uniform(1, 2, (50, 40)).astype(dtype)
    y, mask = dropout(xp.asarray(x), ratio, return_mask=True)
    y, mask = _host(y.array), _host(mask)
    assert y.dtype == dtype and mask.dtype == dtype
    kept = mask != 0
    numpy.testing.assert_allclose(mask[kept], 1 / (1 - ratio), rtol=1e-3)
    numpy.testing.assert_array_equal(y[~kept], 0)
    numpy.testing.assert_allclose(y[kept], x[kept] / (1 - ratio), rtol=1e-3)
    # 2000 draws: the dropped fraction is within a few standard deviations of the ratio.
    assert abs((~kept).mean() - ratio) < 0.05


def test_seeding_the_global_rng_reproduces_the_mask():
    x = numpy.ones((4, 5), numpy.float32)
    numpy.random.seed(3)
    first = dropout(x).array
    numpy.random.seed(3)
    second = dropout(x).array
    numpy.testing.assert_array_equal(first, second)


def test_test_mode_returns_input_unchanged():
    x = chainer_compat.Variable(numpy.ones((2, 3), numpy.float32))
    with chainer_compat.using_config("train", False):
        y = dropout(x, 0.9)
        y_and_mask = dropout(x.array, 0.9, return_mask=True)
    assert y is x
    numpy.testing.assert_array_equal(y_and_mask[0].array, x.array)
    assert y_and_mask[1] is None


def test_given_mask_is_used_and_ratio_ignored(xp):
    x = xp.asarray(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    mask = xp.asarray(numpy.array([[0, 2, 2], [2, 0, 2]], numpy.float32))
    y, returned = dropout(x, 0.0, mask=mask, return_mask=True)
    assert returned is mask
    numpy.testing.assert_array_equal(_host(y.array), [[0, 2, 4], [6, 0, 10]])


def test_backward_and_double_backward_use_the_mask(xp):
    rng = numpy.random.default_rng(1)
    mask = xp.asarray((rng.random((3, 4)) > 0.5) * 2.0)
    x = xp.asarray(rng.standard_normal((3, 4)))
    gy = xp.asarray(rng.standard_normal((3, 4)))

    def f(x):
        return dropout(x, 0.5, mask=mask)

    gradient_check.check_backward(f, x, gy)
    gradient_check.check_double_backward(f, x, gy, xp.asarray(rng.standard_normal((3, 4))))
    x_var = chainer_compat.Variable(x)
    y = dropout(x_var)
    y.grad = gy
    y.backward()
    numpy.testing.assert_array_equal(_host(x_var.grad), _host(gy * (y.array != 0) * 2))


@pytest.mark.parametrize("ratio", [-0.1, 1.0])
def test_ratio_outside_range_raises_value_error(ratio):
    with pytest.raises(ValueError, match=r"dropout_ratio must be in the range \[0, 1\)"):
        dropout(numpy.ones(3, numpy.float32), ratio)


def test_train_argument_raises_value_error():
    with pytest.raises(ValueError, match="train argument is not supported anymore"):
        dropout(numpy.ones(3, numpy.float32), 0.5, train=True)


def test_unknown_keyword_raises_type_error():
    with pytest.raises(TypeError, match="dropout\\(\\) got unexpected keyword argument\\(s\\) 'p'"):
        dropout(numpy.ones(3, numpy.float32), p=0.5)


def test_integer_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"Dropout[\s\S]*x\.dtype\.kind == f"):
        dropout(numpy.ones(3, numpy.int32))
