"""Chainer-visible behaviour of ``chainer.dataset`` and ``chainer.datasets``: concat_examples
(arrays, tuples, dicts, padding, devices), the converter protocol, DatasetMixin indexing, the
dataset classes, the splitting helpers and the download cache. Each case was checked against
Chainer 7.8.1; set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import subprocess
import sys

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
dataset_module = importlib.import_module(chainer.__name__ + ".dataset")
datasets = importlib.import_module(chainer.__name__ + ".datasets")
backend = importlib.import_module(chainer.__name__ + ".backend")
concat_examples = dataset_module.concat_examples


# ------------------------------------------------------------------------------------------------
# concat_examples, to_device and converters
# ------------------------------------------------------------------------------------------------

def test_concat_examples_stacks_arrays_on_a_new_axis():
    rows = [numpy.arange(3, dtype=numpy.float32) + i for i in range(4)]
    result = concat_examples(rows)
    assert isinstance(result, numpy.ndarray)
    assert result.dtype == numpy.float32
    numpy.testing.assert_array_equal(result, numpy.stack(rows))


def test_concat_examples_of_tuples_gives_a_tuple_per_position():
    batch = [(numpy.full((2, 2), i, dtype=numpy.float32), numpy.int32(i)) for i in range(3)]
    x, t = concat_examples(batch)
    numpy.testing.assert_array_equal(x, numpy.stack([example[0] for example in batch]))
    numpy.testing.assert_array_equal(t, numpy.arange(3))
    assert (x.dtype, t.dtype) == (numpy.float32, numpy.int32)


def test_concat_examples_of_dicts_gives_a_dict_per_key():
    batch = [{"feature": numpy.array([i, i + 1]), "label": i} for i in range(3)]
    result = concat_examples(batch)
    assert set(result) == {"feature", "label"}
    numpy.testing.assert_array_equal(result["feature"], [[0, 1], [1, 2], [2, 3]])
    numpy.testing.assert_array_equal(result["label"], [0, 1, 2])


def test_concat_examples_of_python_numbers_and_lists():
    numpy.testing.assert_array_equal(concat_examples([1, 2, 3]), numpy.asarray([1, 2, 3]))
    numpy.testing.assert_array_equal(concat_examples([[1, 2], [3, 4]]), [[1, 2], [3, 4]])
    floats = concat_examples([([1.5], 2), ([2.5], 3)])
    numpy.testing.assert_array_equal(floats[0], [[1.5], [2.5]])


def test_concat_examples_promotes_dtypes_without_padding():
    result = concat_examples([numpy.array([1], dtype=numpy.int32), numpy.array([3.5])])
    assert result.dtype == numpy.result_type(numpy.int32, numpy.float64)
    numpy.testing.assert_array_equal(result, [[1.0], [3.5]])


def padded_reference(arrays, padding):
    """Each array written into the corner of a block of ``padding`` of the largest shape."""
    shape = tuple(max(sizes) for sizes in zip(*(array.shape for array in arrays)))
    result = numpy.full((len(arrays),) + shape, padding, dtype=arrays[0].dtype)
    for i, array in enumerate(arrays):
        result[i][tuple(slice(0, size) for size in array.shape)] = array
    return result


def test_concat_examples_pads_to_the_largest_shape_with_the_first_dtype():
    arrays = [numpy.ones((2, 1), dtype=numpy.int32), numpy.full((1, 3), 7.5),
              numpy.zeros((0, 2), dtype=numpy.int64)]
    result = concat_examples(arrays, padding=-1)
    assert result.shape == (3, 2, 3)
    assert result.dtype == numpy.int32
    numpy.testing.assert_array_equal(result, padded_reference(arrays, -1))


def test_concat_examples_takes_a_padding_per_tuple_position_and_dict_key():
    batch = [(numpy.array([1, 2]), numpy.array([0])), (numpy.array([3]), numpy.array([], int))]
    x, t = concat_examples(batch, padding=(100, 200))
    numpy.testing.assert_array_equal(x, [[1, 2], [3, 100]])
    numpy.testing.assert_array_equal(t, [[0], [200]])
    scalar_padding = concat_examples(batch, padding=9)
    numpy.testing.assert_array_equal(scalar_padding[1], [[0], [9]])
    dict_batch = [{"a": numpy.array([1, 2]), "b": numpy.array([5])},
                  {"a": numpy.array([3]), "b": numpy.array([6, 7])}]
    result = concat_examples(dict_batch, padding={"a": -1, "b": -2})
    numpy.testing.assert_array_equal(result["a"], [[1, 2], [3, -1]])
    numpy.testing.assert_array_equal(result["b"], [[5, -2], [6, 7]])


def test_concat_examples_errors():
    with pytest.raises(ValueError, match="batch is empty"):
        concat_examples([])
    with pytest.raises(ValueError):
        concat_examples([numpy.zeros(2), numpy.zeros(3)])
    with pytest.raises(KeyError):
        concat_examples([{"a": numpy.zeros(1)}], padding={"b": 0})


@pytest.mark.parametrize("device", [None, -1, "@numpy"])
def test_concat_examples_to_the_cpu_keeps_numpy_arrays(device):
    batch = [(numpy.arange(2), numpy.arange(3)), (numpy.arange(2), numpy.arange(3))]
    x, y = concat_examples(batch, device)
    assert isinstance(x, numpy.ndarray) and isinstance(y, numpy.ndarray)
    numpy.testing.assert_array_equal(y, [[0, 1, 2], [0, 1, 2]])
    x_keyword, _ = concat_examples(batch, device=device, padding=0)
    numpy.testing.assert_array_equal(x_keyword, x)


def test_to_device_leaves_or_sends_cpu_arrays():
    array = numpy.arange(3)
    assert dataset_module.to_device(None, array) is array
    assert dataset_module.to_device(-1, array) is array
    assert dataset_module.to_device("@numpy", array) is array
    sent = dataset_module.to_device(-1, (array, array))
    assert isinstance(sent, tuple) and sent[0] is array and sent[1] is array


def test_concat_examples_is_a_converter():
    assert isinstance(concat_examples, dataset_module.Converter)


@pytest.mark.parametrize("device", [-1, "@numpy"])
def test_converter_decorator_hands_a_device_to_the_function(device):
    seen = []

    @dataset_module.converter()
    def convert(batch, device):
        seen.append(device)
        return batch

    assert isinstance(convert, dataset_module.Converter)
    assert convert([1], device) == [1]
    assert convert(batch=[2], device=device) == [2]
    assert all(isinstance(item, backend.CpuDevice) for item in seen)
    assert len(seen) == 2


def test_converter_decorator_keeps_none_and_extra_arguments():
    seen = []

    @dataset_module.converter()
    def convert(batch, device=None, padding=None):
        seen.append((device, padding))
        return batch

    convert([1])
    convert([1], None, 5)
    convert([1], -1, padding=7)
    assert seen[0] == (None, None)
    assert seen[1] == (None, 5)
    assert isinstance(seen[2][0], backend.CpuDevice) and seen[2][1] == 7


def test_converter_base_class_is_abstract():
    with pytest.raises(NotImplementedError):
        dataset_module.Converter()([1], None)


# ------------------------------------------------------------------------------------------------
# DatasetMixin and the dataset classes
# ------------------------------------------------------------------------------------------------

class Squares(dataset_module.DatasetMixin):
    def __init__(self, size):
        self.size = size

    def __len__(self):
        return self.size

    def get_example(self, i):
        if not 0 <= i < self.size:
            raise IndexError(i)
        return int(i) ** 2


def test_dataset_mixin_indexing():
    squares = Squares(6)
    assert squares[3] == 9
    assert squares[1:4] == [1, 4, 9]
    assert squares[::-2] == [25, 9, 1]
    assert squares[-2:] == [16, 25]
    assert squares[[4, 0]] == [16, 0]
    assert squares[numpy.array([2, 5])] == [4, 25]
    assert len(squares) == 6
    with pytest.raises(IndexError):
        squares[6]


def test_dataset_mixin_needs_len_and_get_example():
    with pytest.raises(NotImplementedError):
        len(dataset_module.DatasetMixin())
    with pytest.raises(NotImplementedError):
        dataset_module.DatasetMixin()[0]


def test_tuple_dataset_zips_datasets():
    first, second = numpy.arange(5), numpy.arange(5) * 10
    tuples = datasets.TupleDataset(first, second)
    assert len(tuples) == 5
    assert tuples[2] == (2, 20)
    assert tuples[1:3] == [(1, 10), (2, 20)]
    # A list index goes to each dataset: one tuple of batches comes back.
    picked = tuples[[0, 3]]
    assert isinstance(picked, tuple)
    numpy.testing.assert_array_equal(picked[0], [0, 3])
    numpy.testing.assert_array_equal(picked[1], [0, 30])


def test_tuple_dataset_errors():
    with pytest.raises(ValueError, match="no datasets are given"):
        datasets.TupleDataset()
    with pytest.raises(ValueError, match="dataset of the index 1 has a wrong length"):
        datasets.TupleDataset([1, 2], [1], [3, 4])


def test_dict_dataset_maps_keys_to_examples():
    records = datasets.DictDataset(x=[1, 2, 3], y=[4, 5, 6])
    assert len(records) == 3
    assert records[1] == {"x": 2, "y": 5}
    assert records[0:2] == [{"x": 1, "y": 4}, {"x": 2, "y": 5}]
    with pytest.raises(ValueError, match="no datasets are given"):
        datasets.DictDataset()
    with pytest.raises(ValueError, match='dataset length conflicts at "y"'):
        datasets.DictDataset(x=[1], y=[1, 2])


def test_sub_dataset_window_with_and_without_order():
    base = list(range(10))
    window = datasets.SubDataset(base, 2, 5)
    assert len(window) == 3
    assert [window[i] for i in range(3)] == [2, 3, 4]
    assert window[-1] == 4 and window[-3] == 2
    assert window[:] == [2, 3, 4]
    order = numpy.random.RandomState(0).permutation(10)
    permuted = datasets.SubDataset(base, 4, 8, order)
    assert permuted[:] == order[4:8].tolist()
    assert permuted[-1] == order[7]
    for bad_index in (3, -4):
        with pytest.raises(IndexError):
            window[bad_index]


def test_sub_dataset_errors():
    with pytest.raises(ValueError, match="subset overruns the base dataset"):
        datasets.SubDataset([1, 2], 0, 3)
    with pytest.raises(ValueError, match="subset overruns the base dataset"):
        datasets.SubDataset([1, 2], -1, 1)
    with pytest.raises(ValueError, match="order option must have the same length"):
        datasets.SubDataset([1, 2], 0, 1, order=[0])


def test_split_dataset():
    base = list(range(7))
    first, second = datasets.split_dataset(base, 3)
    assert (first[:], second[:]) == ([0, 1, 2], [3, 4, 5, 6])
    order = [6, 5, 4, 3, 2, 1, 0]
    first, second = datasets.split_dataset(base, numpy.int64(2), order)
    assert (first[:], second[:]) == ([6, 5], [4, 3, 2, 1, 0])
    empty, whole = datasets.split_dataset(base, 0)
    assert (len(empty), whole[:]) == (0, base)
    with pytest.raises(TypeError, match="split_at must be int"):
        datasets.split_dataset(base, 2.0)
    with pytest.raises(ValueError, match="split_at must be non-negative"):
        datasets.split_dataset(base, -1)
    with pytest.raises(ValueError, match="split_at exceeds the dataset size"):
        datasets.split_dataset(base, 8)


def test_split_dataset_random_uses_a_seeded_permutation():
    base = list(range(10, 20))
    order = numpy.random.RandomState(7).permutation(10)
    first, second = datasets.split_dataset_random(base, 4, seed=7)
    assert first[:] == [base[i] for i in order[:4]]
    assert second[:] == [base[i] for i in order[4:]]
    again, _ = datasets.split_dataset_random(base, 4, seed=7)
    assert again[:] == first[:]


def test_split_dataset_n_and_its_random_form():
    base = list(range(11))
    parts = datasets.split_dataset_n(base, 3)
    assert [part[:] for part in parts] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    order = numpy.random.RandomState(3).permutation(11)
    random_parts = datasets.split_dataset_n_random(base, 3, seed=3)
    assert [part[:] for part in random_parts] == [order[i * 3:(i + 1) * 3].tolist()
                                                 for i in range(3)]


def cross_validation_reference(order, n_folds):
    """The folds, by rotating the test part of each split to the front for the next one."""
    length = len(order)
    borders = [length * i // n_folds for i in range(n_folds + 1)]
    test_sizes = [borders[i + 1] - borders[i] for i in range(n_folds)]
    current = list(order)
    splits = []
    for size in reversed(test_sizes):
        splits.append((current[:length - size], current[length - size:]))
        current = current[length - size:] + current[:length - size]
    return splits


@pytest.mark.parametrize(("length", "n_folds"), [(5, 3), (9, 3), (10, 4), (4, 4)])
def test_cross_validation_splits(length, n_folds):
    base = [f"e{i}" for i in range(length)]
    splits = datasets.get_cross_validation_datasets(base, n_folds)
    expected = cross_validation_reference([f"e{i}" for i in range(length)], n_folds)
    assert [(train[:], test[:]) for train, test in splits] == expected
    tests = sorted(sum((test[:] for _, test in splits), []))
    assert tests == sorted(base)


def test_cross_validation_splits_with_order_and_seed():
    base = list(range(8))
    order = numpy.random.RandomState(5).permutation(8)
    by_order = datasets.get_cross_validation_datasets(base, 3, order=order)
    assert [(a[:], b[:]) for a, b in by_order] == cross_validation_reference(order.tolist(), 3)
    by_seed = datasets.get_cross_validation_datasets_random(base, 3, seed=5)
    assert [(a[:], b[:]) for a, b in by_seed] == [(a[:], b[:]) for a, b in by_order]
    with pytest.warns(DeprecationWarning):
        deprecated = datasets.get_cross_validation_datasets(base, n_fold=3)
    assert len(deprecated) == 3


def test_cross_validation_with_more_folds_than_examples_is_a_value_error():
    with pytest.raises(ValueError):
        datasets.get_cross_validation_datasets([1, 2], 3)


def test_transform_dataset_applies_the_function_on_access():
    calls = []

    def double(example):
        calls.append(example)
        return example * 2

    transformed = datasets.TransformDataset([1, 2, 3], double)
    assert calls == []
    assert len(transformed) == 3
    assert transformed[1] == 4
    assert transformed[0:3] == [2, 4, 6]
    assert transformed[[2, 0]] == [6, 2]
    assert calls == [2, 1, 2, 3, 3, 1]


def test_concatenated_dataset():
    joined = datasets.ConcatenatedDataset([1, 2], [], [3, 4, 5])
    assert len(joined) == 5
    assert joined[:] == [1, 2, 3, 4, 5]
    assert joined[2] == 3
    assert joined[-2:] == [4, 5]
    for bad_index in (5, -1):
        with pytest.raises(IndexError):
            joined[bad_index]


def test_datasets_feed_an_iterator_and_concat_examples():
    iterators = importlib.import_module(chainer.__name__ + ".iterators")
    x = numpy.arange(12, dtype=numpy.float32).reshape(6, 2)
    t = numpy.arange(6, dtype=numpy.int32)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), 4, shuffle=False)
    batch_x, batch_t = concat_examples(next(iterator))
    numpy.testing.assert_array_equal(batch_x, x[:4])
    batch_x, batch_t = concat_examples(next(iterator))
    numpy.testing.assert_array_equal(batch_t, numpy.concatenate([t[4:], t[:2]]))


# ------------------------------------------------------------------------------------------------
# The dataset root and the download cache
# ------------------------------------------------------------------------------------------------

@pytest.fixture
def dataset_root(tmp_path):
    previous = dataset_module.get_dataset_root()
    root = str(tmp_path / "root")
    dataset_module.set_dataset_root(root)
    yield root
    dataset_module.set_dataset_root(previous)


def test_dataset_root_comes_from_the_environment(tmp_path):
    environment = dict(os.environ, CHAINER_DATASET_ROOT=str(tmp_path / "from_env"))
    code = (f"import {chainer.__name__}.dataset as d; print(d.get_dataset_root())")
    output = subprocess.run([sys.executable, "-c", code], env=environment, check=True,
                            capture_output=True, text=True).stdout
    assert output.strip() == str(tmp_path / "from_env")


def test_set_dataset_root_and_dataset_directory(dataset_root):
    assert dataset_module.get_dataset_root() == dataset_root
    path = dataset_module.get_dataset_directory("pfnet/chainer/mnist")
    assert path == os.path.join(dataset_root, "pfnet/chainer/mnist")
    assert os.path.isdir(path)
    assert dataset_module.get_dataset_directory("pfnet/chainer/mnist") == path
    unmade = dataset_module.get_dataset_directory("other", create_directory=False)
    assert not os.path.exists(unmade)


def test_cached_download_copies_once_under_the_url_digest(dataset_root, tmp_path, capsys):
    source = tmp_path / "source.bin"
    source.write_bytes(b"payload \x00\x01")
    url = source.as_uri()
    path = dataset_module.cached_download(url)
    expected = os.path.join(dataset_root, "_dl_cache", hashlib.md5(url.encode()).hexdigest())
    assert path == expected
    with open(path, "rb") as stream:
        assert stream.read() == b"payload \x00\x01"
    assert f"Downloading from {url}..." in capsys.readouterr().err
    source.unlink()  # a second call must not read the URL again
    assert dataset_module.cached_download(url) == expected
    assert capsys.readouterr().err == ""


def test_cache_or_load_file_creates_then_loads(dataset_root):
    os.makedirs(dataset_root, exist_ok=True)
    path = os.path.join(dataset_root, "cache.npz")
    created = []

    def creator(temporary_path):
        assert not os.path.exists(temporary_path)
        created.append(temporary_path)
        numpy.savez(temporary_path, x=numpy.arange(3))
        return "created"

    def loader(file_path):
        with numpy.load(file_path) as npz:
            return npz["x"].tolist()

    assert dataset_module.cache_or_load_file(path, creator, loader) == "created"
    assert created and created[0] != path
    assert os.path.exists(path)
    assert dataset_module.cache_or_load_file(path, creator, loader) == [0, 1, 2]
    assert len(created) == 1


# ------------------------------------------------------------------ tabular concatenation
class _Recording(chainer.dataset.TabularDataset):
    """A one-column tabular dataset of ``offset, offset + 1, ...`` that records the indices
    each get_examples call receives."""

    def __init__(self, size, offset, calls):
        self._size, self._offset, self._calls = size, offset, calls

    def __len__(self):
        return self._size

    @property
    def keys(self):
        return ("a",)

    @property
    def mode(self):
        return tuple

    def get_examples(self, indices, key_indices):
        self._calls.append((self._offset, indices))
        rows = list(range(self._size))
        picked = rows if indices is None else (
            rows[indices] if isinstance(indices, slice) else [rows[i] for i in indices])
        return [self._offset + row for row in picked],


@pytest.mark.parametrize("indices, slices", [
    (slice(13, 6, -2), [(0, slice(9, 6, -2)), (10, slice(3, None, -2))]),
    (slice(2, 14, 3), [(0, slice(2, 10, 3)), (10, slice(1, 4, 3))]),
    pytest.param(slice(None, None, -4), [(0, slice(6, None, -4)), (10, slice(4, None, -4))],
                 marks=pytest.mark.skipif(
                     chainer.__name__ == "chainer",
                     reason="Chainer 7.8.1 misaligns a descending step that starts past a "
                            "dataset's end: it returns rows [14, 10, 9, 5, 1]")),
    (slice(12, None), [(10, slice(2, 5, 1))]),
])
def test_concat_hands_each_dataset_chainers_slice(indices, slices):
    calls = []
    view = _Recording(10, 0, calls).concat(_Recording(5, 10, calls))
    column, = view.get_examples(indices, None)
    assert list(column) == list(range(15))[indices]
    assert sorted(calls, key=lambda call: call[0]) == slices
