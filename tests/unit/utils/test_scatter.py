"""utils._scatter (NOTE [scatter-adds in order]): the fast paths give ``numpy.add.at``'s bits,
repeated rows (light and heavy), negative rows, slices and broadcast values included, and its
errors."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import profile_settings

from chainer_compat import utils
from chainer_compat.utils import _scatter

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _values(rng, shape, dtype):
    # Mixed magnitudes, so that the order of the additions shows in the rounding.
    scale = 10.0 ** rng.integers(-3, 4, shape)
    return (rng.standard_normal(shape) * scale).astype(dtype)


def _both(target, indices, values):
    expected = target.copy()
    numpy.add.at(expected, indices, values)
    actual = target.copy()
    utils.add_at(actual, indices, values)
    return actual, expected


@st.composite
def row_cases(draw):
    rows = draw(st.integers(1, 40))
    width = draw(st.sampled_from([(), (1,), (3,), (2, 5)]))
    count = draw(st.integers(0, 300))
    # Some ids heavy (a padding id), most light, some negative.
    heavy = draw(st.integers(0, rows - 1))
    share = draw(st.sampled_from([0.0, 0.1, 0.5, 0.95, 1.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    dtype = draw(st.sampled_from(DTYPES))
    index_shape = draw(st.sampled_from(["flat", "2-d"]))
    return rows, width, count, heavy, share, seed, dtype, index_shape


@profile_settings(300)
@given(row_cases())
def test_rows_of_a_table_get_add_at_bits(case):
    rows, width, count, heavy, share, seed, dtype, index_shape = case
    rng = numpy.random.default_rng(seed)
    ids = numpy.where(rng.random(count) < share, heavy, rng.integers(-rows, rows, count))
    if index_shape == "2-d" and count % 2 == 0:
        ids = ids.reshape(2, -1)
    table = _values(rng, (rows, 4) + width, dtype)
    values = _values(rng, ids.shape + (4,) + width, dtype)
    actual, expected = _both(table, ids, values)
    assert actual.tobytes() == expected.tobytes()


@pytest.mark.parametrize("rows", [50, 1000])
@pytest.mark.parametrize("dtype", DTYPES)
def test_a_row_repeated_thousands_of_times_adds_in_order(dtype, rows):
    # The padding id of a language model's batch: the passes give way to one-by-one adds (at
    # once for 50 rows, after a few passes for 1,000).
    rng = numpy.random.default_rng(0)
    ids = numpy.where(rng.random(3000) < 0.6, 7, rng.integers(0, rows, 3000))
    table = numpy.zeros((rows, 16), dtype)
    values = _values(rng, (3000, 16), dtype)
    actual, expected = _both(table, ids, values)
    assert actual.tobytes() == expected.tobytes()


@pytest.mark.parametrize("indices", [
    (slice(1, 5), slice(None, None, 2)),
    (Ellipsis, slice(2, None)),
    (None, slice(1, 3)),
    (2, slice(None)),
    slice(None, None, -1),
    (numpy.int64(1), Ellipsis),
])
@pytest.mark.parametrize("dtype", DTYPES)
def test_basic_indexing_adds_into_the_view_with_add_at_bits(indices, dtype):
    rng = numpy.random.default_rng(1)
    target = _values(rng, (6, 7), dtype)
    shape = target[indices].shape
    for values in (_values(rng, shape, dtype), _values(rng, shape[-1:], dtype)):  # broadcast
        actual, expected = _both(target, indices, values)
        assert actual.tobytes() == expected.tobytes()


def test_negative_zero_gradients_become_positive_zero_as_in_add_at():
    target = numpy.zeros((3, 4), numpy.float32)
    values = numpy.full((2, 4), -0.0, numpy.float32)
    for indices in ((slice(0, 2),), numpy.array([0, 0])):
        actual, expected = _both(target, indices, values)
        assert actual.tobytes() == expected.tobytes()
        assert not numpy.signbit(actual).any()


@pytest.mark.parametrize("indices", [
    numpy.array([0, 5]),  # a row past the end
    numpy.array([-6, 1]),
    (7, slice(None)),
    (slice(None), 9),
])
def test_out_of_range_indices_raise_add_at_index_error_and_change_nothing(indices):
    target = numpy.arange(15, dtype=numpy.float32).reshape(5, 3)
    values = numpy.ones((2, 3), numpy.float32)[:1]
    with pytest.raises(IndexError) as expected:
        numpy.add.at(target.copy(), indices, values)
    actual = target.copy()
    with pytest.raises(IndexError) as raised:
        utils.add_at(actual, indices, values)
    assert str(raised.value) == str(expected.value)
    numpy.testing.assert_array_equal(actual, target)


@pytest.mark.parametrize("case", ["boolean mask", "two index arrays", "other dtype", "list"])
def test_other_indices_go_to_add_at(case):
    rng = numpy.random.default_rng(2)
    target = _values(rng, (5, 3), numpy.float32)
    values = _values(rng, (3,), numpy.float32)
    indices: object = numpy.array([1, 1, 4])
    if case == "boolean mask":
        indices = numpy.array([True, False, True, False, True])
    elif case == "two index arrays":
        indices = (numpy.array([1, 1, 4]), numpy.array([0, 0, 2]))
    elif case == "other dtype":
        values = values.astype(numpy.float64)
    else:
        indices = [1, 1, 4]
    actual, expected = _both(target, indices, values)
    assert actual.tobytes() == expected.tobytes()


def test_add_in_order_adds_one_by_one_only_when_terms_have_the_table_dtype():
    # float64 terms into a float32 table round into it entry by entry, as add.at does.
    rng = numpy.random.default_rng(3)
    ids = numpy.zeros(500, numpy.intp)
    table = numpy.zeros((2, 3), numpy.float32)
    terms = _values(rng, (500, 3), numpy.float64)
    expected = table.copy()
    numpy.add.at(expected, ids, terms)
    _scatter.add_in_order(table, ids, terms)
    assert table.tobytes() == expected.tobytes()


def test_values_sharing_memory_with_the_table_are_read_as_add_at_reads_them():
    # add.at reads its values as they were before it began; the passes would see their own
    # additions.
    for indices in (numpy.array([0, 1, 2, 0, 1, 2]), (slice(None),)):
        table = numpy.ones((3, 2))
        expected = table.copy()
        numpy.add.at(expected, indices, expected[0])
        utils.add_at(table, indices, table[0])
        assert table.tobytes() == expected.tobytes()


def test_a_read_only_table_raises_add_at_error():
    table = numpy.zeros((3, 2))
    table.flags.writeable = False
    with pytest.raises(ValueError) as expected:
        numpy.add.at(table, numpy.array([0, 0]), numpy.ones(2))
    with pytest.raises(ValueError) as raised:
        utils.add_at(table, numpy.array([0, 0]), numpy.ones(2))
    assert str(raised.value) == str(expected.value)


def test_a_table_whose_entries_overlap_gets_add_at_sums():
    base = numpy.zeros(2)
    table = numpy.lib.stride_tricks.as_strided(base, (4, 2), (0, 8), writeable=True)
    values = numpy.arange(8.0).reshape(4, 2)
    expected_base = numpy.zeros(2)
    expected = numpy.lib.stride_tricks.as_strided(expected_base, (4, 2), (0, 8), writeable=True)
    numpy.add.at(expected, numpy.array([0, 1, 1, 3]), values)
    utils.add_at(table, numpy.array([0, 1, 1, 3]), values)
    assert base.tobytes() == expected_base.tobytes()
