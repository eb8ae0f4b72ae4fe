"""Unit tests of chainer_compat.dataset.tabular: slicing composed with every step against list
slicing (where Chainer 7.8.1 misplaces rows), negative row indices on views, our messages,
and the default converter on empty and CuPy columns."""

from __future__ import annotations

import itertools

import numpy
import pytest

from chainer_compat.dataset import tabular
from chainer_compat.dataset.tabular.tabular_dataset import TabularDataset

ROWS = list(range(9))
WINDOWS = [slice(*bounds) for bounds in itertools.product(
    (None, 0, 2, 5, 8, -3, -20), (None, 0, 1, 4, 8, -1, 20), (None, 1, 2, 3, -1, -2, -3))]


def concatenated() -> TabularDataset:
    """Rows 0..8 as one column spread over four datasets, one of them empty."""
    parts = [[0, 1, 2], [], [3, 4, 5, 6], [7, 8]]
    datasets = [tabular.from_data(("v", part)) for part in parts]
    return datasets[0].concat(*datasets[1:])


def test_concat_slices_with_any_step_match_list_slicing():
    dataset = concatenated()
    for window in WINDOWS:
        assert list(dataset.slice[window].fetch()) == ROWS[window], window


def test_concat_lists_of_rows_keep_their_order_and_accept_negative_rows():
    dataset = concatenated()
    picks = [8, 0, 4, -1, 3, 3]
    assert list(dataset.slice[picks].fetch()) == [ROWS[i] for i in picks]
    assert dataset[-2] == 7
    assert dataset.get_examples([-9], None) == ([0],)
    with pytest.raises(IndexError, match="index 9 is out of bounds for dataset with size 9"):
        dataset.get_examples([9], None)


def test_nested_slices_with_any_steps_match_list_slicing():
    dataset = tabular.from_data(numpy.arange(9))
    for outer, inner in itertools.product(WINDOWS[::7], WINDOWS[::5]):
        expected = ROWS[outer][inner]
        assert dataset.slice[outer].slice[inner].fetch().tolist() == expected, (outer, inner)


def test_negative_row_of_a_sliced_view_counts_from_the_views_end():
    view = tabular.from_data(("v", list(range(10)))).slice[2:8:2]
    assert [view[i] for i in range(-3, 0)] == [2, 4, 6]


def test_from_data_rejects_an_unsupported_column():
    with pytest.raises(TypeError, match="must be a list, an array or a callable.*got int"):
        tabular.from_data(5)
    with pytest.raises(TypeError, match="got str"):
        tabular.from_data(("a", "text"))


def test_slice_messages():
    dataset = tabular.from_data((("a", [1, 2]), ("b", [3, 4])))
    with pytest.raises(KeyError, match="z does not exists"):
        dataset.slice[:, "z"]
    with pytest.raises(ValueError, match=r"one value per row \(2\), got 3"):
        dataset.slice[[True, False, True]]
    with pytest.raises(IndexError, match="index -3 is out of bounds for dataset with size 2"):
        dataset.slice[[-3]]
    with pytest.raises(TypeError, match="must be a slice or a list or array"):
        dataset.slice[1]


def test_concat_and_join_messages():
    one = tabular.from_data(("a", [1, 2]))
    with pytest.raises(ValueError, match=r"same keys: expected \('a',\), got \('b',\)"):
        one.concat(tabular.from_data(("b", [1, 2])))
    with pytest.raises(ValueError, match="same length: expected 2, got 1"):
        one.join(tabular.from_data(("b", [1])))
    with pytest.raises(ValueError, match=r"unique among all datasets, got \['a'\] twice"):
        one.join(tabular.from_data(("a", [1, 2])))


def test_transform_messages():
    fickle = tabular.from_data(("x", [0, 1])).transform("y", lambda x: (x,) if x else x)
    with pytest.raises(ValueError, match="returned a bare value before, got a tuple"):
        fickle.fetch()
    shrink = tabular.from_data(("x", [0, 1])).transform_batch("y", lambda x: x[:1])
    with pytest.raises(ValueError, match=r"must have 2 rows, got \[1\]"):
        shrink.fetch()


def test_transform_mode_is_found_from_row_zero_once():
    calls = []

    def double(x):
        calls.append(x)
        return {"y": 2 * x}

    view = tabular.from_data(("x", [3, 4])).transform("y", double)
    assert view.mode is dict and view.mode is dict
    assert calls == [3]
    assert view[1] == {"y": 8}


def test_fetch_rejects_an_unknown_mode():
    class ListMode(TabularDataset):
        def __len__(self):
            return 1

        @property
        def keys(self):
            return ("a",)

        @property
        def mode(self):
            return list

        def get_examples(self, indices, key_indices):
            return ([0],)

    with pytest.raises(ValueError, match="must be tuple, dict or None, got <class 'list'>"):
        ListMode().fetch()


def test_abstract_members_name_the_subclass():
    class Empty(TabularDataset):
        pass

    with pytest.raises(NotImplementedError, match="Empty must implement get_examples"):
        Empty().get_examples(None, None)
    with pytest.raises(NotImplementedError, match="Empty must implement the keys property"):
        Empty().keys  # noqa: B018


def test_default_converter_keeps_an_empty_column_on_the_host():
    dataset = tabular.from_data(("a", [1, 2])).slice[[]]
    converted = dataset.convert(dataset.fetch())
    assert isinstance(converted, numpy.ndarray) and converted.shape == (0,)


def test_converted_lists_have_numpys_dtype():
    dataset = tabular.from_data((("i", [1, 2]), ("f", [0.5, 1.5])))
    integers, floats = dataset.convert(dataset.fetch())
    assert integers.dtype == numpy.asarray([1, 2]).dtype
    assert floats.dtype == numpy.float64


def test_default_converter_puts_a_column_of_cupy_values_on_their_device(xp):
    if xp is numpy:
        values = [numpy.float32(1), numpy.float32(2)]
    else:
        values = [xp.asarray(1.0, dtype=xp.float32), xp.asarray(2.0, dtype=xp.float32)]
    dataset = tabular.from_data(("a", values))
    converted = dataset.convert(dataset.fetch())
    assert isinstance(converted, xp.ndarray)
    assert converted.tolist() == [1.0, 2.0]
