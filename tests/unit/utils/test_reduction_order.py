"""sum_in_numpy1_order against an explicit reference of NumPy 1.26's order: pairwise sums of
8,192-element chunks of each innermost run, added in turn; and its fast path, which is xp.sum.
"""

from __future__ import annotations

import numpy
import pytest
from numpy_sum_reference import CHUNK, numpy1_sum_of_runs

from chainer_compat.utils._reduction_order import (
    mean_in_numpy1_order,
    sum_in_numpy1_order,
    var_in_numpy1_order,
)


def _data(shape, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    scale = 1.0 if dtype == numpy.float16 else 1000.0
    return (rng.standard_normal(shape) * scale + 0.3).astype(dtype)


def _same_bits(a, b) -> bool:
    a, b = numpy.asarray(a), numpy.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and numpy.array_equal(a, b)


DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("length", [8193, 10000, 16384, 16385, 3 * CHUNK + 5])
def test_long_vector_adds_chunks_in_turn(dtype, length):
    x = _data((length,), dtype, seed=length)
    expected = numpy1_sum_of_runs(x.reshape(1, 1, -1))[0]
    result = sum_in_numpy1_order(x)
    assert isinstance(result, numpy.generic)
    assert _same_bits(result, expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_bias_gradient_axes_walk_batch_then_chunks(dtype):
    x = _data((3, 4, 100, 100), dtype)
    runs = x.transpose(1, 0, 2, 3).reshape(4, 3, 10000)
    assert _same_bits(sum_in_numpy1_order(x, axis=(0, 2, 3)), numpy1_sum_of_runs(runs))


def test_full_sum_of_image_batch_is_one_run():
    x = _data((2, 3, 91, 91), numpy.float32)
    expected = numpy1_sum_of_runs(x.reshape(1, 1, -1))[0]
    assert _same_bits(sum_in_numpy1_order(x), expected)


def test_keepdims_and_spatial_axes():
    x = _data((2, 3, 100, 100), numpy.float32)
    expected = numpy1_sum_of_runs(x.reshape(6, 1, 10000)).reshape(2, 3, 1, 1)
    assert _same_bits(sum_in_numpy1_order(x, axis=(2, 3), keepdims=True), expected)
    assert _same_bits(sum_in_numpy1_order(x, axis=(-1, -2), dtype=numpy.float32),
                      expected.reshape(2, 3))


def test_transposed_input_follows_memory_order():
    base = _data((3, 20000), numpy.float32)
    x = base.T  # logical (20000, 3); the reduced axis 0 is the contiguous one in memory
    assert _same_bits(sum_in_numpy1_order(x, axis=0),
                      numpy1_sum_of_runs(base.reshape(3, 1, 20000)))


def test_sliced_rows_are_chunked_as_one_buffered_run():
    x = _data((2, 3, 100, 101), numpy.float32)[..., 1:]
    runs = numpy.ascontiguousarray(x).reshape(6, 1, 10000)
    expected = numpy1_sum_of_runs(runs).reshape(2, 3)
    assert _same_bits(sum_in_numpy1_order(x, axis=(2, 3)), expected)


def test_negative_stride_run_is_added_in_logical_order():
    x = _data((2, 10000), numpy.float32)[:, ::-1]
    expected = numpy1_sum_of_runs(numpy.ascontiguousarray(x).reshape(2, 1, 10000))
    assert _same_bits(sum_in_numpy1_order(x, axis=1), expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcast_scalar_is_walked_in_index_order(dtype):
    # A zero stride gives NumPy 1's iterator nothing to order by: it walks the axes as indexed,
    # which is the memory order of the array's contiguous copy.
    x = numpy.broadcast_to(numpy.asarray(dtype(1) / dtype(3)), (3, 4, 100, 100))
    runs = numpy.ascontiguousarray(x).transpose(1, 0, 2, 3).reshape(4, 3, 10000)
    assert _same_bits(sum_in_numpy1_order(x, axis=(0, 2, 3)), numpy1_sum_of_runs(runs))
    assert _same_bits(sum_in_numpy1_order(x),
                      numpy1_sum_of_runs(numpy.ascontiguousarray(x).reshape(1, 1, -1))[0])


@pytest.mark.parametrize("source_shape, axis", [
    ((1, 4, 1, 1), (0, 2, 3)),
    ((1, 1, 100, 100), (0, 2, 3)),
    ((3, 1, 100, 1), (1, 2, 3)),
])
def test_partly_broadcast_input_is_walked_in_index_order(source_shape, axis):
    x = numpy.broadcast_to(_data(source_shape, numpy.float32), (3, 4, 100, 100))
    expected = sum_in_numpy1_order(numpy.ascontiguousarray(x), axis=axis)
    result = sum_in_numpy1_order(x, axis=axis)
    assert _same_bits(result, expected)


@pytest.mark.parametrize("make, axis", [
    (lambda: _data((8192,), numpy.float32), None),
    (lambda: _data((4, 3, 64, 128), numpy.float32), (0, 2, 3)),
    # channels last: the innermost axis is kept, so both NumPy versions add element by element
    (lambda: _data((2, 100, 100, 3), numpy.float32).transpose(0, 3, 1, 2), (0, 2, 3)),
    (lambda: _data((20000, 3), numpy.float32), 0),
    # integers, empty and broadcast arrays are left to numpy.sum
    (lambda: numpy.arange(20000, dtype=numpy.int64), None),
    (lambda: numpy.zeros((0, 20000), numpy.float32), 1),
    # a broadcast row whose other axes run backwards in memory: an order not established
    (lambda: numpy.broadcast_to(_data((20000, 3), numpy.float32).T[None], (2, 3, 20000)), 2),
])
def test_fast_path_is_plain_sum(make, axis):
    x = make()
    assert _same_bits(sum_in_numpy1_order(x, axis=axis), numpy.sum(x, axis=axis))


@pytest.mark.parametrize("source, target", [
    (numpy.float32, numpy.float64), (numpy.float16, numpy.float32), (numpy.float64, numpy.float32),
])
def test_casting_dtype_adds_the_cast_values_in_the_same_order(source, target):
    x = _data((2, 3, 100, 100), source)
    cast = x.astype(target).transpose(1, 0, 2, 3).reshape(3, 2, 10000)
    assert _same_bits(sum_in_numpy1_order(x, axis=(0, 2, 3), dtype=target),
                      numpy1_sum_of_runs(cast))


def _quotient(total, count, dtype):
    """total / count rounded once to dtype, as numpy.mean divides."""
    return (total.astype(numpy.float64) / count).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mean_divides_the_chunked_sum(dtype):
    x = _data((3, 4, 100, 100), dtype)
    runs = x.transpose(1, 0, 2, 3).reshape(4, 3, 10000)
    # numpy.mean sums float16 in float32 and casts the quotient back
    wide = numpy.float32 if dtype == numpy.float16 else dtype
    expected = _quotient(numpy1_sum_of_runs(runs.astype(wide)), 30000, dtype)
    assert _same_bits(mean_in_numpy1_order(x, axis=(0, 2, 3)), expected)


@pytest.mark.parametrize("dtype, wide", [
    (numpy.float32, None), (numpy.float64, None), (numpy.float16, None),
    (numpy.float16, numpy.float32),
])
@pytest.mark.parametrize("ddof", [0, 1])
def test_var_sums_squared_deviations_from_the_chunked_mean(dtype, wide, ddof):
    x = _data((3, 4, 100, 100), dtype)
    target = x.dtype if wide is None else numpy.dtype(wide)
    runs = x.astype(target).transpose(1, 0, 2, 3).reshape(4, 3, 10000)
    mean = _quotient(numpy1_sum_of_runs(runs), 30000, target)
    deviation = x - mean.reshape(1, 4, 1, 1)  # NumPy's promotion, as numpy.var subtracts
    squared = (deviation * deviation).transpose(1, 0, 2, 3).reshape(4, 3, 10000)
    expected = _quotient(numpy1_sum_of_runs(squared), 30000 - ddof, target)
    assert _same_bits(var_in_numpy1_order(x, axis=(0, 2, 3), dtype=wide, ddof=ddof), expected)


def test_mean_and_var_fast_path_are_numpys():
    x = _data((4, 3, 64, 128), numpy.float16)
    assert _same_bits(mean_in_numpy1_order(x, axis=(0, 2, 3)), x.mean(axis=(0, 2, 3)))
    assert _same_bits(var_in_numpy1_order(x, axis=(0, 2, 3), dtype=numpy.float32),
                      x.var(axis=(0, 2, 3), dtype=numpy.float32))


def test_invalid_axis_raises_numpys_error():
    x = numpy.zeros((3, 10000), numpy.float32)
    with pytest.raises(numpy.exceptions.AxisError):
        sum_in_numpy1_order(x, axis=2)
    with pytest.raises(ValueError):
        sum_in_numpy1_order(x, axis=(1, 1))
    with pytest.raises(TypeError):
        sum_in_numpy1_order(x, axis=[0, 1])


def test_result_stays_on_the_input_backend(xp):
    # On CuPy this is always the plain sum; on NumPy it is the chunked order.
    host = _data((2, 20000), numpy.float32)
    x = xp.asarray(host)
    result = sum_in_numpy1_order(x, axis=1)
    assert type(result) is type(x)
    if xp is numpy:
        expected = numpy1_sum_of_runs(host.reshape(2, 1, 20000))
    else:
        expected = x.sum(axis=1)
    assert bool(xp.array_equal(result, expected))
