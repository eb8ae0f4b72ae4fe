"""bilinear: forward against einsum, gradients (first and second order), argument errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.connection.bilinear import bilinear
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _inputs(rng, dtype, with_linear, e1_shape=(3, 2), e2_shape=(3, 4)):
    j = int(numpy.prod(e1_shape[1:]))
    k = int(numpy.prod(e2_shape[1:]))
    arrays = [rng.standard_normal(e1_shape), rng.standard_normal(e2_shape),
              rng.standard_normal((j, k, 5))]
    if with_linear:
        arrays += [rng.standard_normal((j, 5)), rng.standard_normal((k, 5)),
                   rng.standard_normal(5)]
    return tuple(a.astype(dtype) for a in arrays)


def _reference(arrays):
    e1 = arrays[0].reshape(len(arrays[0]), -1).astype(numpy.float64)
    e2 = arrays[1].reshape(len(arrays[1]), -1).astype(numpy.float64)
    y = numpy.einsum("ij,ik,jkl->il", e1, e2, arrays[2].astype(numpy.float64))
    if len(arrays) == 6:
        y += e1 @ arrays[3] + e2 @ arrays[4] + arrays[5]
    return y


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("with_linear", [False, True])
def test_forward_matches_einsum(xp, dtype, with_linear):
    arrays = _inputs(numpy.random.default_rng(0), dtype, with_linear, e1_shape=(3, 1, 2))
    y = bilinear(*[xp.asarray(a) for a in arrays])
    assert y.shape == (3, 5) and y.dtype == dtype
    tolerance = {"atol": 5e-2, "rtol": 5e-2} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(_host(y.array), _reference(arrays), **tolerance)


@pytest.mark.parametrize("with_linear", [False, True])
def test_backward_and_double_backward_match_numerical(xp, with_linear):
    rng = numpy.random.default_rng(1)
    arrays = tuple(xp.asarray(a) for a in _inputs(rng, numpy.float64, with_linear,
                                                    e2_shape=(3, 2, 2)))
    gy = xp.asarray(rng.standard_normal((3, 5)))
    grad_grads = tuple(xp.asarray(rng.standard_normal(a.shape)) for a in arrays)
    gradient_check.check_backward(bilinear, arrays, gy)
    gradient_check.check_double_backward(bilinear, arrays, gy, grad_grads)


def test_partial_linear_parameters_raise_value_error():
    arrays = _inputs(numpy.random.default_rng(2), numpy.float32, True)
    with pytest.raises(ValueError, match="V1, V2 and b of bilinear must be given all together"):
        bilinear(*arrays[:4])


def test_weight_shape_mismatch_raises_invalid_type():
    arrays = _inputs(numpy.random.default_rng(3), numpy.float32, False)
    with pytest.raises(type_check.InvalidType, match=r"BilinearFunction[\s\S]*W\.shape\[1\]"):
        bilinear(arrays[0], arrays[1], numpy.zeros((2, 3, 5), numpy.float32))


def test_mixed_dtypes_raise_invalid_type():
    arrays = _inputs(numpy.random.default_rng(4), numpy.float32, False)
    with pytest.raises(type_check.InvalidType, match=r"e2\.dtype == e1\.dtype"):
        bilinear(arrays[0], arrays[1].astype(numpy.float64), arrays[2])
