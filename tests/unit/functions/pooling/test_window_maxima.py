"""The array work of max pooling (NOTE [window maxima]): the maximum of each window and its first
position, the scatter of gradients to those positions and the gather back, against references
that visit one window at a time, on values full of ties, signed zeros, infinities and NaNs."""

from __future__ import annotations

import itertools

import numpy
from hypothesis import given
from hypothesis import strategies as st
from strategies import profile_settings

from chainer_compat.functions.pooling import _pooling

# Few distinct values, so windows tie often; both zeros, both infinities and NaN.
POOL = numpy.array([0.0, -0.0, 1.0, -1.0, 2.5, numpy.inf, -numpy.inf, numpy.nan])


@st.composite
def pooling_cases(draw):
    ndim = draw(st.integers(1, 3))
    spatial = tuple(draw(st.lists(st.integers(1, 6), min_size=ndim, max_size=ndim)))
    ksize = tuple(draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim)))
    stride = tuple(draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim)))
    pad = tuple(draw(st.integers(0, k - 1)) for k in ksize)
    cover_all = draw(st.booleans())
    window = _pooling.WindowND(ndim, ksize, stride, pad)
    outs = window.pooled_size(spatial, cover_all)
    dtype = draw(st.sampled_from([numpy.float16, numpy.float32, numpy.float64]))
    shape = (2, 2) + spatial
    picks = draw(st.lists(st.integers(0, len(POOL) - 1), min_size=int(numpy.prod(shape)),
                          max_size=int(numpy.prod(shape))))
    x = POOL[numpy.array(picks)].reshape(shape).astype(dtype)
    return x, window, outs


def _windows(x, window, outs, fill):
    """``(output index, window entries in position order)`` for every window of ``x``."""
    padded = numpy.full(x.shape[:2] + tuple(
        p + size + k + s * o for size, p, k, s, o in zip(x.shape[2:], window.pad, window.ksize,
                                                         window.stride, outs)), fill, x.dtype)
    padded[(slice(None), slice(None)) + tuple(
        slice(p, p + size) for p, size in zip(window.pad, x.shape[2:]))] = x
    for out_index in itertools.product(*(range(o) for o in outs)):
        region = tuple(slice(i * s, i * s + k)
                       for i, s, k in zip(out_index, window.stride, window.ksize))
        yield out_index, padded[(slice(None), slice(None)) + region].reshape(x.shape[:2] + (-1,))


def _reference_maxima(x, window, outs):
    y = numpy.empty(x.shape[:2] + tuple(outs), x.dtype)
    indexes = numpy.empty(y.shape, numpy.intp)
    for out_index, entries in _windows(x, window, outs, -numpy.inf):
        at = (slice(None), slice(None)) + out_index
        indexes[at] = entries.argmax(axis=2)  # the first maximum, or the first NaN
        y[at] = entries.max(axis=2)
    return y, indexes


@profile_settings(300)
@given(pooling_cases())
def test_maxima_and_their_first_positions_match_a_window_by_window_reference(case):
    x, window, outs = case
    if any(o <= 0 for o in outs):
        return
    y, indexes = _pooling.max_of_windows(x, window, outs)
    expected, expected_indexes = _reference_maxima(x, window, outs)
    assert y.dtype == x.dtype and indexes.dtype == numpy.intp
    numpy.testing.assert_array_equal(y, expected)  # NaN where NaN, zeros of either sign alike
    numpy.testing.assert_array_equal(indexes, expected_indexes)


def _chosen_positions(x_shape, window, outs, indexes):
    """``(position, output entry, input entry or None)`` for every output entry, by window
    position first, the order in which Chainer's col2im adds them up."""
    area = int(numpy.prod(window.ksize))
    for flat in range(area):
        offsets = numpy.unravel_index(flat, window.ksize)
        for out_index in itertools.product(*(range(o) for o in outs)):
            for lead in itertools.product(*(range(size) for size in x_shape[:2])):
                if int(indexes[lead + out_index]) != flat:
                    continue
                position = tuple(i * s + o - p for i, s, o, p in zip(
                    out_index, window.stride, offsets, window.pad))
                inside = all(0 <= q < size for q, size in zip(position, x_shape[2:]))
                yield lead + out_index, lead + position if inside else None


@profile_settings(200)
@given(pooling_cases(), st.integers(0, 2**32 - 1))
def test_gradients_scatter_to_and_gather_from_the_chosen_positions(case, seed):
    x, window, outs = case
    if any(o <= 0 for o in outs):
        return
    rng = numpy.random.default_rng(seed)
    _, indexes = _pooling.max_of_windows(x, window, outs)
    # Gradients with infinities and NaNs too: they must reach their position only.
    gy = POOL[rng.integers(0, len(POOL), indexes.shape)].astype(x.dtype)
    expected = numpy.zeros(x.shape, x.dtype)
    expected_gathered = numpy.zeros(indexes.shape, x.dtype)
    with numpy.errstate(invalid="ignore"):  # inf - inf
        for out_at, x_at in _chosen_positions(x.shape, window, outs, indexes):
            if x_at is not None:
                expected[x_at] += gy[out_at]
                expected_gathered[out_at] = x[x_at]
        gx = _pooling.scatter_at_indexes(gy, indexes, window, x.shape)
    gathered = _pooling.gather_at_indexes(x, indexes, window)
    assert gx.dtype == x.dtype and gathered.dtype == x.dtype
    # Bits, not values: +0 where nothing lands, as Chainer's col2im adds its zeros.
    _assert_same_bits(gx, expected)
    _assert_same_bits(gathered, expected_gathered)


def _assert_same_bits(actual, expected):
    """Equal bits, but any NaN for a NaN (an inf - inf's sign is the hardware's choice)."""
    nan = numpy.isnan(expected)
    numpy.testing.assert_array_equal(numpy.isnan(actual), nan)
    assert actual[~nan].tobytes() == expected[~nan].tobytes()


def test_overwrite_wraps_exactly_in_the_narrow_type():
    target = numpy.array([0, 3, 255, 7], numpy.uint8)
    scratch = numpy.empty_like(target)
    _pooling._overwrite(target, numpy.array([True, True, True, False]), 200, scratch)
    numpy.testing.assert_array_equal(target, [200, 200, 200, 7])


def test_windows_of_more_than_256_positions_index_past_a_byte():
    # A global max pooling of a 20 x 20 plane: its positions need a 16-bit index internally.
    x = numpy.zeros((1, 1, 20, 20), numpy.float32)
    x[0, 0, 19, 17] = 1.0
    window = _pooling.Window(20, 20, 0)
    y, indexes = _pooling.max_of_windows(x, window, (1, 1))
    assert float(y[0, 0, 0, 0]) == 1.0 and int(indexes[0, 0, 0, 0]) == 19 * 20 + 17


def test_on_the_gpu_the_maxima_positions_and_gradients_match_numpy(cupy):
    rng = numpy.random.default_rng(3)
    x = POOL[rng.integers(0, len(POOL), (2, 3, 7, 6))].astype(numpy.float32)
    window = _pooling.Window(3, 2, 1)
    outs = window.pooled_size(7, 6, True)
    y, indexes = _pooling.max_of_windows(x, window, outs)
    y_gpu, indexes_gpu = _pooling.max_of_windows(cupy.asarray(x), window, outs)
    numpy.testing.assert_array_equal(y_gpu.get(), y)
    numpy.testing.assert_array_equal(indexes_gpu.get(), indexes)
    gy = POOL[rng.integers(0, len(POOL), y.shape)].astype(numpy.float32)
    gx = _pooling.scatter_at_indexes(gy, indexes, window, x.shape)
    gx_gpu = _pooling.scatter_at_indexes(cupy.asarray(gy), indexes_gpu, window, x.shape)
    _assert_same_bits(gx_gpu.get(), gx)
    gathered = _pooling.gather_at_indexes(x, indexes, window)
    gathered_gpu = _pooling.gather_at_indexes(cupy.asarray(x), indexes_gpu, window)
    _assert_same_bits(gathered_gpu.get(), gathered)


def test_large_planes_take_the_branch_free_selection_with_the_same_bits():
    # Above utils._select's threshold the selections are made by bit masks: the scatter and
    # gather must still equal where()'s, infinities and NaNs included.
    from chainer_compat.utils import _select

    rng = numpy.random.default_rng(11)
    x = POOL[rng.integers(0, len(POOL), (2, 8, 64, 64))].astype(numpy.float32)
    window = _pooling.Window(2, 2, 0)
    outs = window.pooled_size(64, 64, True)
    _, indexes = _pooling.max_of_windows(x, window, outs)
    assert indexes.size >= _select._MIN_SIZE
    gy = POOL[rng.integers(0, len(POOL), indexes.shape)].astype(numpy.float32)
    expected = numpy.zeros(x.shape, numpy.float32)
    expected_gathered = numpy.zeros(indexes.shape, numpy.float32)
    with numpy.errstate(invalid="ignore"):
        for index, where in _pooling.position_slices(window, outs):
            expected[where] += numpy.where(indexes == index, gy, numpy.float32(0))
            expected_gathered = numpy.where(indexes == index, x[where], expected_gathered)
        gx = _pooling.scatter_at_indexes(gy, indexes, window, x.shape)
    _assert_same_bits(gx, expected)
    assert _pooling.gather_at_indexes(x, indexes, window).tobytes() == expected_gathered.tobytes()
