"""maxout: values along several axes, gradients, pool size validation."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat.functions.activation.maxout import maxout
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _reference(x, pool_size, axis):
    axis %= x.ndim
    shape = x.shape[:axis] + (x.shape[axis] // pool_size, pool_size) + x.shape[axis + 1:]
    return x.reshape(shape).max(axis=axis + 1)


@pytest.mark.parametrize("shape, pool_size, axis", [
    ((2, 6), 3, 1), ((2, 6, 2), 2, 1), ((4, 3), 2, 0), ((2, 3, 4), 2, -1)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, pool_size, axis, dtype, xp, check_function):
    # Distinct, well separated values: the maximum of each group is unambiguous.
    values = numpy.random.permutation(numpy.prod(shape)).reshape(shape) * 0.1
    x = xp.asarray(values.astype(dtype))
    check_function(lambda x: maxout(x, pool_size, axis), (x,),
                   lambda x: _reference(x, pool_size, axis), double=False,
                   grad_tolerance={"atol": 1e-2, "rtol": 1e-2})


def test_a_hook_sees_chainers_gradient_nodes():
    rng = numpy.random.default_rng(6)
    x = rng.standard_normal((3, 8)).astype(numpy.float32)
    gy = rng.standard_normal((3, 4)).astype(numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(lambda x: maxout(x, 2), (x,), gy)
    # Chainer 7.8.1's sequence: Max's backward reshapes both gy and y.
    assert labels == ["Reshape", "Reshape", "BroadcastTo", "_ * _", "Reshape"]
    numpy.testing.assert_array_equal(plain[0], hooked[0])


def test_pool_size_must_be_positive():
    with pytest.raises(ValueError, match="pool_size must be a positive integer"):
        maxout(numpy.ones((2, 4), numpy.float32), 0)


def test_axis_not_divisible_by_pool_size_is_rejected():
    with pytest.raises(type_check.InvalidType, match="axis dimension must be divided"):
        maxout(numpy.ones((2, 5), numpy.float32), 2)


@pytest.mark.parametrize("shape, axis", [((2, 4), 2), ((2, 4), -3), ((), 0)])
def test_axis_out_of_range_raises_index_error_as_chainer(shape, axis):
    # Chainer reads x.shape[axis] first, so its users get IndexError, not InvalidType.
    with pytest.raises(IndexError, match=rf"axis must be in[\s\S]*got {axis} for x.shape=") as info:
        maxout(numpy.ones(shape, numpy.float32), 1, axis)
    assert not isinstance(info.value, type_check.InvalidType)
