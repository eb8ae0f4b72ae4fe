"""Tests for chainer_compat.testing.matrix: generate_matrix."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import testing


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64,
                                   numpy.complex64, numpy.complex128])
@pytest.mark.parametrize("shape, values_shape", [
    ((2, 2), (2,)),
    ((2, 3), (2,)),
    ((4, 2), (2,)),
    ((2, 3, 4), (2, 3)),
    ((3, 4, 2), (3, 2)),
    ((2, 2), ()),           # broadcast
    ((2, 3, 4), (2, 1)),    # broadcast
])
def test_singular_values_are_the_given_ones(dtype, shape, values_shape):
    rng = numpy.random.RandomState(0)
    values = rng.uniform(0.5, 1.5, values_shape)
    matrix = testing.generate_matrix(shape, dtype=dtype, singular_values=values)
    assert matrix.shape == shape
    assert matrix.dtype == dtype
    computed = numpy.linalg.svd(matrix.astype(numpy.complex128), compute_uv=False)
    expected = numpy.sort(numpy.broadcast_to(values, computed.shape), axis=-1)[..., ::-1]
    rtol = {2: 1e-3, 4: 1e-5, 8: 1e-5}.get(numpy.dtype(dtype).itemsize, 1e-10)
    numpy.testing.assert_allclose(computed, expected, rtol=rtol)


def test_zero_singular_value_gives_a_singular_matrix():
    matrix = testing.generate_matrix((3, 3), singular_values=[2.0, 1.0, 0.0])
    assert numpy.linalg.matrix_rank(matrix) == 2
    numpy.testing.assert_allclose(numpy.linalg.det(matrix), 0.0, atol=1e-12)


def test_empty_shapes():
    assert testing.generate_matrix((0, 0), singular_values=[]).shape == (0, 0)
    assert testing.generate_matrix((0, 2, 3), singular_values=numpy.ones((0, 2))).shape == (0, 2, 3)


def test_draws_from_numpy_global_generator():
    numpy.random.seed(3)
    first = testing.generate_matrix((3, 3), singular_values=1)
    numpy.random.seed(3)
    second = testing.generate_matrix((3, 3), singular_values=1)
    numpy.testing.assert_array_equal(first, second)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"shape": (2, 2)}, TypeError, "singular_values"),
    ({"shape": (2,), "singular_values": 1}, ValueError, "at least two axes"),
    ({"shape": (2, 2), "dtype": numpy.int32, "singular_values": 1}, TypeError,
     "floating or complex"),
    ({"shape": (2, 2), "singular_values": 1 + 0j}, TypeError, "must be real"),
    ({"shape": (2, 2), "singular_values": [1, -1]}, ValueError, "non-negative"),
    ({"shape": (2, 2), "singular_values": numpy.ones(3)}, ValueError, "broadcast"),
    ({"shape": (0, 2, 2), "singular_values": numpy.ones(3)}, ValueError, "broadcast"),
])
def test_invalid_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        testing.generate_matrix(**kwargs)
