"""Unit tests of chainer_compat.utils.array: the deprecated helpers warn and still work, and
size_of_shape and sum_to agree with chainer_compat.utils'."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import utils
from chainer_compat.utils import array as array_utils


def test_as_vec_warns_and_flattens(xp):
    x = xp.arange(6).reshape(2, 3)
    with pytest.warns(DeprecationWarning, match="as_vec is deprecated"):
        y = array_utils.as_vec(x)
    assert y.shape == (6,)
    xp.testing.assert_array_equal(y, x.ravel())


def test_as_vec_returns_a_vector_itself(xp):
    x = xp.arange(4)
    with pytest.warns(DeprecationWarning):
        assert array_utils.as_vec(x) is x


def test_as_mat_warns_and_keeps_the_first_axis(xp):
    x = xp.arange(24).reshape(2, 3, 4)
    with pytest.warns(DeprecationWarning, match="as_mat is deprecated"):
        y = array_utils.as_mat(x)
    assert y.shape == (2, 12)
    xp.testing.assert_array_equal(y, x.reshape(2, 12))
    matrix = xp.ones((3, 2))
    with pytest.warns(DeprecationWarning):
        assert array_utils.as_mat(matrix) is matrix


def test_empty_like_warns_and_uses_the_array_module_of_x(xp):
    x = xp.ones((2, 3), dtype=numpy.float16)
    with pytest.warns(DeprecationWarning, match="empty_like is deprecated"):
        y = array_utils.empty_like(x)
    assert type(y) is type(x)
    assert (y.shape, y.dtype) == (x.shape, x.dtype)


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3, 4), [5, 2]])
def test_size_of_shape_is_the_product_as_a_python_int(shape):
    size = array_utils.size_of_shape(shape)
    assert type(size) is int
    assert size == utils.size_of_shape(tuple(shape)) == int(numpy.prod(shape, dtype=numpy.int64))


@pytest.mark.parametrize("source, target", [
    ((2, 3, 4), (3, 4)), ((2, 3, 4), (3, 1)), ((2, 3, 4), (1, 3, 1)), ((5, 1), (1,)),
    ((2, 3), ())])
def test_sum_to_matches_a_numpy_reduction(xp, source, target):
    x = xp.asarray(numpy.random.default_rng(0).standard_normal(source))
    y = array_utils.sum_to(x, target)
    lead = len(source) - len(target)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, size in enumerate(target) if size == 1)
    expected = x.sum(axis=axes, keepdims=True).reshape(target)
    assert y.shape == tuple(target)
    xp.testing.assert_array_almost_equal(y, expected)


def test_sum_to_returns_x_when_the_shape_already_matches():
    x = numpy.ones((2, 3))
    assert array_utils.sum_to(x, (2, 3)) is x


def test_sum_to_rejects_a_variable_and_names_the_function_to_use():
    variable = chainer.Variable(numpy.ones((2, 3)))
    with pytest.raises(TypeError, match="Use chainer.functions.sum_to instead"):
        array_utils.sum_to(variable, (3,))
