"""Noise functions on the inputs a differential fuzz against Chainer 7.8.1 found handled
differently: now as in Chainer."""

from __future__ import annotations

import warnings

import numpy
import pytest

import chainer_compat.functions as F
from chainer_compat import Variable, using_config


@pytest.mark.parametrize("dtype", [numpy.int32, numpy.bool_])
def test_gumbel_softmax_of_a_raw_int_array_is_float64_as_in_chainer(dtype):
    y = F.gumbel_softmax(numpy.ones((2, 3), dtype))
    assert y.dtype == numpy.float64
    numpy.testing.assert_allclose(y.array.sum(axis=1), 1.0)


def test_gumbel_softmax_tau_zero_on_a_raw_array_gives_nan_as_in_chainer():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        y = F.gumbel_softmax(numpy.ones((2, 3), numpy.float32), tau=0.0)
    assert y.dtype == numpy.float32
    assert numpy.isnan(y.array).all()


@pytest.mark.parametrize("x_shape", [(0, 3), (0, 1, 3)])
@pytest.mark.parametrize("batchwise", [False, True])
def test_simplified_dropconnect_of_an_empty_batch(x_shape, batchwise):
    x = Variable(numpy.ones(x_shape, numpy.float32))
    w = Variable(numpy.ones((4, 3), numpy.float32))
    b = Variable(numpy.ones(4, numpy.float32))
    y = F.simplified_dropconnect(x, w, b, use_batchwise_mask=batchwise)
    assert y.shape == (0, 4)
    y.grad = numpy.ones((0, 4), numpy.float32)
    y.backward()
    assert x.grad.shape == x_shape
    numpy.testing.assert_array_equal(w.grad, numpy.zeros((4, 3)))
    numpy.testing.assert_array_equal(b.grad, numpy.zeros(4))


@pytest.mark.parametrize("position", [0, 1])
def test_zoneout_of_none_in_training_is_a_type_error(position):
    args = [numpy.ones((2, 3), numpy.float32)] * 2
    args[position] = None
    with pytest.raises(TypeError, match="of zoneout must be a Variable or an array, got None"):
        F.zoneout(*args)
    # compat: outside training Chainer returns x itself, None included.
    with using_config("train", False):
        assert F.zoneout(*args) is args[1]


def test_gaussian_unknown_keyword_uses_chainers_wording():
    mean = numpy.zeros(3, numpy.float32)
    with pytest.raises(TypeError, match=r"^gaussian\(\) got unexpected keyword argument\(s\) "
                                        "'foo'"):
        F.gaussian(mean, mean, foo=1)
    y, eps = F.gaussian(mean, mean, return_eps=True)
    assert eps.shape == (3,)
