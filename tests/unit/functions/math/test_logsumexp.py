"""logsumexp: values (also where exp would overflow), gradients, argument errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat.functions.math.logsumexp import LogSumExp, logsumexp
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _reference(x, axis):
    return numpy.log(numpy.sum(numpy.exp(x), axis=axis))


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(axis, dtype, uniform, check_function):
    check_function(lambda x: logsumexp(x, axis=axis), (uniform((2, 3, 4), dtype),),
                   lambda x: _reference(x, axis))


@pytest.mark.parametrize("axis, expand_dims", [(None, 0), (1, 1), ((2, -3), 2), ((), 0)])
def test_a_hook_sees_chainers_gradient_nodes(axis, expand_dims):
    rng = numpy.random.default_rng(5)
    x = rng.standard_normal((3, 4, 5)).astype(numpy.float32)
    gy = rng.standard_normal(logsumexp(x, axis=axis).shape).astype(numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(lambda x: logsumexp(x, axis=axis), (x,), gy)
    # Chainer 7.8.1's sequence: gy and y each gain the reduced axes back one ExpandDims at a
    # time, in turn; no BroadcastTo where nothing was reduced.
    broadcasts = ["BroadcastTo", "BroadcastTo"] if axis != () else []
    assert labels == ["ExpandDims"] * 2 * expand_dims + broadcasts + ["_ - _", "exp", "_ * _"]
    numpy.testing.assert_array_equal(plain[0], hooked[0])


def test_large_inputs_do_not_overflow():
    x = numpy.array([[1000.0, 1000.0], [-1000.0, -1001.0]], numpy.float32)
    y = logsumexp(x, axis=1)
    expected = [1000.0 + numpy.log(2.0), -1000.0 + numpy.log1p(numpy.exp(-1.0))]
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)


def test_argument_and_type_errors():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"LogSumExp \(Forward\)"):
        logsumexp(x, axis=2)
    with pytest.raises(ValueError, match="duplicate value in axis"):
        LogSumExp(axis=(0, 0))
    with pytest.raises(TypeError, match="axis must be"):
        logsumexp(x, axis=[0])
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind"):
        logsumexp(numpy.arange(3))
