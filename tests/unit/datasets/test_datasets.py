"""Unit tests of chainer_compat.datasets: our messages (with the offending values), NumPy
integer indices, and the splits' invariants on random sizes."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import datasets


def test_tuple_dataset_message_names_the_lengths():
    with pytest.raises(ValueError, match="must have length 2, got 3"):
        datasets.TupleDataset([1, 2], [1, 2, 3])


def test_tuple_dataset_of_one_dataset_and_of_arrays():
    single = datasets.TupleDataset(numpy.arange(3))
    assert single[1] == (1,)
    pairs = datasets.TupleDataset(numpy.arange(4), numpy.arange(4) ** 2)
    assert pairs[numpy.int32(3)] == (3, 9)
    assert pairs[::2] == [(0, 0), (2, 4)]
    assert pairs[5:] == []


def test_dict_dataset_message_names_the_lengths():
    with pytest.raises(ValueError, match='conflicts at "b": all datasets must have length 1'):
        datasets.DictDataset(a=[1], b=[1, 2])


def test_sub_dataset_overrun_message_names_the_window():
    with pytest.raises(ValueError, match=r"in \[0, 2\], got start=0, finish=3"):
        datasets.SubDataset([1, 2], 0, 3)


def test_sub_dataset_with_numpy_integer_index_and_order_list():
    window = datasets.SubDataset(list("abcdef"), 1, 4, order=[5, 4, 3, 2, 1, 0])
    assert window[numpy.int64(0)] == "e"
    assert window[numpy.array([2, 0])] == ["c", "e"]


def test_split_dataset_messages():
    with pytest.raises(ValueError, match="split_at must be non-negative, got -2"):
        datasets.split_dataset([1], -2)
    with pytest.raises(ValueError, match="it must be at most 1, got 2"):
        datasets.split_dataset([1], 2)


@pytest.mark.parametrize("seed", range(5))
def test_random_splits_partition_the_dataset(seed):
    rng = numpy.random.default_rng(seed)
    length = int(rng.integers(1, 30))
    base = list(range(length))
    first_size = int(rng.integers(0, length + 1))
    first, second = datasets.split_dataset_random(base, first_size, seed=seed)
    assert len(first) == first_size
    assert sorted(first[:] + second[:]) == base
    n = int(rng.integers(1, length + 1))
    parts = datasets.split_dataset_n_random(base, n, seed=seed)
    contents = sum((part[:] for part in parts), [])
    assert len(contents) == len(set(contents)) == n * (length // n)


@pytest.mark.parametrize(("length", "n_folds"), [(7, 1), (7, 2), (7, 7), (12, 5)])
def test_cross_validation_folds_partition_and_train_on_the_rest(length, n_folds):
    base = list(range(length))
    splits = datasets.get_cross_validation_datasets_random(base, n_folds, seed=length)
    sizes = [len(test) for _, test in splits]
    assert max(sizes) - min(sizes) <= 1
    assert sorted(sum((test[:] for _, test in splits), [])) == base
    for train, test in splits:
        assert sorted(train[:] + test[:]) == base


def test_cross_validation_messages():
    with pytest.raises(ValueError, match="n_folds must be at most the number of examples 2"):
        datasets.get_cross_validation_datasets([1, 2], 3)
    with pytest.raises(TypeError, match="n_folds must be a positive int, got None"):
        datasets.get_cross_validation_datasets([1, 2])


def test_cross_validation_keeps_the_callers_order_unchanged():
    order = numpy.array([3, 2, 1, 0])
    datasets.get_cross_validation_datasets(list(range(4)), 2, order=order)
    numpy.testing.assert_array_equal(order, [3, 2, 1, 0])


def test_concatenated_dataset_messages():
    joined = datasets.ConcatenatedDataset([1], [2])
    with pytest.raises(IndexError, match="must be non-negative, got -1"):
        joined[-1]
    with pytest.raises(IndexError, match="less than its length 2, got 2"):
        joined[2]


def test_transform_dataset_over_a_tuple_dataset():
    values = numpy.arange(3.0)
    base = datasets.TupleDataset(values, numpy.arange(3))
    shifted = datasets.TransformDataset(base, lambda example: (example[0] - 0.5, example[1]))
    assert shifted[2] == (1.5, 2)
    assert shifted[0:2] == [(-0.5, 0), (0.5, 1)]
    numpy.testing.assert_array_equal(values, [0.0, 1.0, 2.0])
