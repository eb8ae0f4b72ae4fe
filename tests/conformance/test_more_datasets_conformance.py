"""Chainer-visible behaviour of TextDataset, the pickle dataset and its file format, the image
datasets ((C, H, W) arrays, labels, zip archives) and chainer.dataset.tabular (modes, keys,
slices, concat, join, transforms, fetch and convert). Each case was checked against Chainer
7.8.1; set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os
import pickle
import zipfile

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
text_dataset = importlib.import_module(chainer.__name__ + ".datasets.text_dataset")
pickle_dataset = importlib.import_module(chainer.__name__ + ".datasets.pickle_dataset")
image_dataset = importlib.import_module(chainer.__name__ + ".datasets.image_dataset")
tabular = importlib.import_module(chainer.__name__ + ".dataset.tabular")
TabularDataset = importlib.import_module(
    chainer.__name__ + ".dataset.tabular.tabular_dataset").TabularDataset
TextDataset = text_dataset.TextDataset


@pytest.fixture
def text():
    """Builds TextDatasets like the constructor and closes them after the test."""
    made = []

    def build(*args, **kwargs):
        made.append(TextDataset(*args, **kwargs))
        return made[-1]

    yield build
    for dataset in made:
        dataset.close()


def write_text(path, text, encoding="utf-8"):
    with open(path, "w", encoding=encoding, newline="") as file:
        file.write(text)
    return str(path)


# ------------------------------------------------------------------------------------------------
# TextDataset
# ------------------------------------------------------------------------------------------------

def test_text_dataset_gives_each_line_with_its_newline(tmp_path, text):
    lines = ["alpha\n", "beta\n", "gamma"]
    dataset = text(write_text(tmp_path / "a.txt", "".join(lines)))
    assert len(dataset) == len(lines)
    assert [dataset[i] for i in range(len(lines))] == lines
    assert dataset[2] == lines[2] and dataset[0] == lines[0]
    assert dataset[1:] == lines[1:]


def test_text_dataset_zips_several_files_line_by_line(tmp_path, text):
    first = ["1\n", "2\n", "3\n"]
    second = ["one\n", "two\n", "three\n"]
    dataset = text([write_text(tmp_path / "a.txt", "".join(first)),
                    write_text(tmp_path / "b.txt", "".join(second))])
    assert len(dataset) == 3
    assert [dataset[i] for i in range(3)] == list(zip(first, second))


def test_text_dataset_of_a_list_of_one_path_gives_strings(tmp_path, text):
    dataset = text([write_text(tmp_path / "a.txt", "x\ny\n")])
    assert dataset[1] == "y\n"


def test_text_dataset_filter_func_receives_one_line_per_file(tmp_path, text):
    first = [f"{i}\n" for i in range(6)]
    second = [f"w{i}\n" for i in range(6)]
    calls = []

    def keep_even(a, b):
        calls.append((a, b))
        return int(a) % 2 == 0

    dataset = text([write_text(tmp_path / "a.txt", "".join(first)),
                    write_text(tmp_path / "b.txt", "".join(second))],
                   filter_func=keep_even)
    assert calls == list(zip(first, second))
    expected = [pair for pair in zip(first, second) if int(pair[0]) % 2 == 0]
    assert len(dataset) == len(expected)
    assert [dataset[i] for i in range(len(dataset))] == expected


def test_text_dataset_decodes_with_the_encoding_of_each_file(tmp_path, text):
    words = ["café\n", "naïve\n"]
    latin = write_text(tmp_path / "latin.txt", "".join(words), encoding="latin-1")
    utf16 = write_text(tmp_path / "utf16.txt", "".join(words), encoding="utf-16")
    dataset = text([latin, utf16], encoding=["latin-1", "utf-16"])
    assert [dataset[i] for i in range(2)] == list(zip(words, words))
    single = text(utf16, encoding="utf-16")
    assert single[1] == words[1]


def test_text_dataset_newline_controls_translation(tmp_path, text):
    path = write_text(tmp_path / "crlf.txt", "a\r\nb\r\n")
    assert text(path)[0] == "a\n"
    assert text(path, newline="")[1] == "b\r\n"


def test_text_dataset_errors_replaces_undecodable_bytes(tmp_path, text):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"ok\n\xff\n")
    dataset = text(str(path), encoding="utf-8", errors="replace")
    assert dataset[1] == "\ufffd\n"


@pytest.mark.parametrize("index", [-1, 3, 10])
def test_text_dataset_index_out_of_range_raises_index_error(tmp_path, index, text):
    dataset = text(write_text(tmp_path / "a.txt", "a\nb\nc\n"))
    with pytest.raises(IndexError):
        dataset[index]


def test_text_dataset_rejects_files_of_different_lengths(tmp_path, text):
    with pytest.raises(ValueError):
        text([write_text(tmp_path / "a.txt", "1\n2\n"),
              write_text(tmp_path / "b.txt", "1\n")])


def test_text_dataset_rejects_no_paths_and_option_lists_of_the_wrong_length(tmp_path, text):
    with pytest.raises(ValueError):
        text([])
    path = write_text(tmp_path / "a.txt", "1\n")
    with pytest.raises(ValueError):
        text([path, path], encoding=["utf-8"])


def test_text_dataset_survives_pickling_with_its_filtered_index(tmp_path, text):
    lines = ["x\n", "y\n", "z\n"]
    # The filter is applied once, while building the index, so a lambda does not block pickling.
    dataset = text(write_text(tmp_path / "a.txt", "".join(lines)),
                   filter_func=lambda line: line != "y\n")
    restored = pickle.loads(pickle.dumps(dataset))
    assert [restored[i] for i in range(len(restored))] == ["x\n", "z\n"]
    restored.close()


# ------------------------------------------------------------------------------------------------
# PickleDataset and its file format
# ------------------------------------------------------------------------------------------------

EXAMPLES = [(1, 2.0, "hello"), {"key": [1, 2]}, None, "last"]


def test_pickle_dataset_reads_what_the_writer_wrote(tmp_path):
    path = str(tmp_path / "data.pkl")
    with pickle_dataset.open_pickle_dataset_writer(path) as writer:
        for example in EXAMPLES:
            writer.write(example)
        writer.flush()
    with pickle_dataset.open_pickle_dataset(path) as dataset:
        assert len(dataset) == len(EXAMPLES)
        assert [dataset[i] for i in range(len(EXAMPLES))] == EXAMPLES
        assert dataset[-1] == EXAMPLES[-1]
        assert dataset[1:3] == EXAMPLES[1:3]


def test_pickle_dataset_file_is_consecutive_pickle_records(tmp_path):
    # The format is plain pickle.dump calls, so files move between Chainer and other code.
    path = str(tmp_path / "data.pkl")
    with pickle_dataset.open_pickle_dataset_writer(path) as writer:
        for example in EXAMPLES:
            writer.write(example)
    loaded = []
    with open(path, "rb") as file:
        while True:
            try:
                loaded.append(pickle.load(file))
            except EOFError:
                break
    assert loaded == EXAMPLES
    other = str(tmp_path / "by_hand.pkl")
    with open(other, "wb") as file:
        for example in EXAMPLES:
            pickle.dump(example, file, protocol=2)
    with pickle_dataset.open_pickle_dataset(other) as dataset:
        assert [dataset[i] for i in range(len(dataset))] == EXAMPLES


def test_pickle_dataset_writer_uses_the_protocol_given(tmp_path):
    path = str(tmp_path / "data.pkl")
    with pickle_dataset.open_pickle_dataset_writer(path, protocol=2) as writer:
        writer.write(7)
    with open(path, "rb") as file:
        assert file.read(2) == b"\x80\x02"


def test_pickle_dataset_on_an_in_memory_stream():
    import io
    stream = io.BytesIO()
    writer = pickle_dataset.PickleDatasetWriter(stream)
    for example in EXAMPLES:
        writer.write(example)
    dataset = pickle_dataset.PickleDataset(stream)
    assert [dataset[i] for i in range(len(dataset))] == EXAMPLES
    with pytest.raises(IndexError):
        dataset[len(EXAMPLES)]


def test_pickle_dataset_rejects_a_stream_without_random_access():
    class Unseekable:
        def seekable(self):
            return False

    with pytest.raises(ValueError):
        pickle_dataset.PickleDataset(Unseekable())


def test_pickle_dataset_survives_pickling(tmp_path):
    path = str(tmp_path / "data.pkl")
    with pickle_dataset.open_pickle_dataset_writer(path) as writer:
        for example in EXAMPLES:
            writer.write(example)
    with pickle_dataset.open_pickle_dataset(path) as dataset:
        copy = pickle.loads(pickle.dumps(dataset))
        assert [copy[i] for i in range(len(copy))] == EXAMPLES
        copy.close()


def test_pickle_dataset_close_closes_the_file(tmp_path):
    path = str(tmp_path / "data.pkl")
    with pickle_dataset.open_pickle_dataset_writer(path) as writer:
        writer.write(1)
    dataset = pickle_dataset.open_pickle_dataset(path)
    dataset.close()
    with pytest.raises(ValueError):
        dataset[0]


# ------------------------------------------------------------------------------------------------
# Image datasets
# ------------------------------------------------------------------------------------------------

def make_images(directory):
    """Writes an RGB and a greyscale PNG; returns their names and pixel arrays (H, W[, C])."""
    Image = pytest.importorskip("PIL.Image")
    rng = numpy.random.default_rng(0)
    rgb = rng.integers(0, 256, size=(4, 5, 3), dtype=numpy.uint8)
    grey = rng.integers(0, 256, size=(4, 5), dtype=numpy.uint8)
    Image.fromarray(rgb).save(directory / "rgb.png")
    Image.fromarray(grey).save(directory / "grey.png")
    return {"rgb.png": rgb, "grey.png": grey}


def as_chw(pixels, dtype):
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    return pixels.transpose(2, 0, 1).astype(dtype)


def test_image_dataset_gives_float32_chw_arrays(tmp_path):
    images = make_images(tmp_path)
    dataset = image_dataset.ImageDataset(list(images), root=str(tmp_path))
    assert len(dataset) == 2
    for i, pixels in enumerate(images.values()):
        example = dataset[i]
        assert example.dtype == numpy.float32
        numpy.testing.assert_array_equal(example, as_chw(pixels, numpy.float32))
    assert dataset[1].shape == (1, 4, 5)


def test_image_dataset_reads_paths_from_a_file_and_honours_dtype(tmp_path):
    images = make_images(tmp_path)
    listing = write_text(tmp_path / "list.txt", "".join(f"{name}\n" for name in images))
    dataset = image_dataset.ImageDataset(listing, root=str(tmp_path), dtype=numpy.uint8)
    numpy.testing.assert_array_equal(dataset[0], as_chw(images["rgb.png"], numpy.uint8))
    assert dataset[0].dtype == numpy.uint8


def test_image_dataset_default_dtype_follows_config(tmp_path):
    images = make_images(tmp_path)
    with chainer.using_config("dtype", numpy.float16):
        dataset = image_dataset.ImageDataset(list(images), root=str(tmp_path))
    assert dataset[0].dtype == numpy.float16


def test_labeled_image_dataset_gives_image_and_0d_label(tmp_path):
    images = make_images(tmp_path)
    dataset = image_dataset.LabeledImageDataset(
        [("rgb.png", 3), ("grey.png", 7)], root=str(tmp_path))
    image, label = dataset[1]
    numpy.testing.assert_array_equal(image, as_chw(images["grey.png"], numpy.float32))
    assert label.shape == () and label.dtype == numpy.int32 and int(label) == 7


def test_labeled_image_dataset_reads_pairs_from_a_file(tmp_path):
    images = make_images(tmp_path)
    pairs = write_text(tmp_path / "pairs.txt", "rgb.png 3\ngrey.png   5\n")
    dataset = image_dataset.LabeledImageDataset(
        pairs, root=str(tmp_path), label_dtype=numpy.int64)
    image, label = dataset[0]
    numpy.testing.assert_array_equal(image, as_chw(images["rgb.png"], numpy.float32))
    assert label.dtype == numpy.int64 and int(label) == 3


def test_labeled_image_dataset_rejects_a_bad_line(tmp_path):
    make_images(tmp_path)
    pairs = write_text(tmp_path / "pairs.txt", "rgb.png 3\ngrey.png\n")
    with pytest.raises(ValueError):
        image_dataset.LabeledImageDataset(pairs, root=str(tmp_path))


def make_zip(path, images, directory, names):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("folder/", "")
        for name in names:
            archive.write(directory / name, arcname=f"folder/{name}")
    return str(path)


def test_zipped_image_dataset_lists_files_not_folders(tmp_path):
    images = make_images(tmp_path)
    path = make_zip(tmp_path / "images.zip", images, tmp_path, ["grey.png", "rgb.png"])
    dataset = image_dataset.ZippedImageDataset(path)
    assert len(dataset) == 2
    numpy.testing.assert_array_equal(dataset[0], as_chw(images["grey.png"], numpy.float32))
    numpy.testing.assert_array_equal(
        dataset.get_example("folder/rgb.png"), as_chw(images["rgb.png"], numpy.float32))
    copy = pickle.loads(pickle.dumps(dataset))
    numpy.testing.assert_array_equal(copy[1], dataset[1])


def test_multi_zipped_image_dataset_chains_the_archives(tmp_path):
    images = make_images(tmp_path)
    first = make_zip(tmp_path / "a.zip", images, tmp_path, ["rgb.png"])
    second = make_zip(tmp_path / "b.zip", images, tmp_path, ["grey.png", "rgb.png"])
    dataset = image_dataset.MultiZippedImageDataset([first, second], dtype=numpy.float64)
    assert len(dataset) == 3
    order = ["rgb.png", "grey.png", "rgb.png"]
    for i, name in enumerate(order):
        numpy.testing.assert_array_equal(dataset[i], as_chw(images[name], numpy.float64))
    assert dataset[1].dtype == numpy.float64


def test_labeled_zipped_image_dataset_looks_images_up_by_name(tmp_path):
    images = make_images(tmp_path)
    path = make_zip(tmp_path / "a.zip", images, tmp_path, ["rgb.png", "grey.png"])
    labels = write_text(tmp_path / "labels.txt", "folder/grey.png 1\nfolder/rgb.png 0\n")
    dataset = image_dataset.LabeledZippedImageDataset(path, labels)
    assert len(dataset) == 2
    image, label = dataset[0]
    numpy.testing.assert_array_equal(image, as_chw(images["grey.png"], numpy.float32))
    assert label.dtype == numpy.int32 and int(label) == 1


# ------------------------------------------------------------------------------------------------
# Tabular datasets
# ------------------------------------------------------------------------------------------------

class Table(TabularDataset):
    """Rows i of columns a, b, c hold 3 * i, 3 * i + 1, 3 * i + 2 (as arrays)."""

    def __init__(self, length=4, mode=tuple):
        self._length = length
        self._mode = mode

    def __len__(self):
        return self._length

    @property
    def keys(self):
        return ("a", "b", "c")

    @property
    def mode(self):
        return self._mode

    def get_examples(self, indices, key_indices):
        data = numpy.arange(3 * self._length).reshape(self._length, 3)
        if indices is not None:
            data = data[indices]
        if key_indices is not None:
            data = data[:, list(key_indices)]
        return tuple(data.T)


def test_tabular_subclass_rows_in_tuple_and_dict_modes():
    table = Table()
    assert len(table) == 4 and table.keys == ("a", "b", "c")
    assert table[1] == (3, 4, 5)
    assert table.asdict()[2] == {"a": 6, "b": 7, "c": 8}
    assert table.astuple().mode is tuple and table.asdict().mode is dict
    assert list(table) == [(3 * i, 3 * i + 1, 3 * i + 2) for i in range(4)]
    assert table[1:3] == [(3, 4, 5), (6, 7, 8)]


def test_tabular_slice_selects_rows_and_keys_in_the_order_given():
    view = Table().slice[[3, 2], ("c", 0)]
    assert len(view) == 2 and view.keys == ("c", "a")
    assert view[1] == (8, 6)
    assert view.asdict()[0] == {"c": 11, "a": 9}


def test_tabular_slice_with_one_key_has_mode_none():
    view = Table().slice[:, "b"]
    assert view.mode is None and view.keys == ("b",)
    numpy.testing.assert_array_equal(view.fetch(), numpy.arange(4) * 3 + 1)
    assert view[2] == 7
    by_position = Table().slice[:, -1]
    assert by_position.keys == ("c",)


def test_tabular_slice_with_a_tuple_of_keys_keeps_or_sets_a_mode():
    assert Table(mode=dict).slice[:, ("a",)].mode is dict
    only = tabular.from_data([1, 2, 3])
    assert only.mode is None and only.slice[:, (0,)].mode is tuple


def test_tabular_slice_accepts_bools_negative_indices_and_slices():
    table = Table()
    assert table.slice[[True, False, False, True]].fetch()[0].tolist() == [0, 9]
    assert table.slice[[-1, 0]][0] == (9, 10, 11)
    assert table.slice[::-2][0] == (9, 10, 11)
    assert len(table.slice[::-2]) == 2


def test_tabular_nested_slices_compose():
    rows = list(range(10))
    dataset = tabular.from_data(rows)
    cases = [(slice(1, 9), slice(None, None, -2)), (slice(None, None, -1), slice(2, 7, 3)),
             (slice(8, 1, -2), slice(None, None, -1)), (slice(2, None), [3, 0, -1]),
             ([9, 4, 7, 1], slice(1, None)), ([9, 4, 7, 1], [2, 0])]
    for outer, inner in cases:
        expected_outer = rows[outer] if isinstance(outer, slice) else [rows[i] for i in outer]
        expected = (expected_outer[inner] if isinstance(inner, slice)
                    else [expected_outer[i] for i in inner])
        assert list(dataset.slice[outer].slice[inner].fetch()) == expected, (outer, inner)


def test_tabular_slice_errors():
    table = Table()
    with pytest.raises(KeyError):
        table.slice[:, "z"]
    with pytest.raises(IndexError):
        table.slice[:, 3]
    with pytest.raises(IndexError):
        table.slice[[4]]
    with pytest.raises(ValueError):
        table.slice[[True, False]]


def test_from_data_forms_and_fetch_types():
    array = numpy.arange(3)
    single = tabular.from_data(array)
    assert single.mode is None and single.fetch() is array
    named = tabular.from_data(("a", [0, 1, 2]))
    assert named.keys == ("a",) and named.fetch() == [0, 1, 2]
    pair = tabular.from_data((("a", array), ("b", [3, 4, 5])))
    assert pair.keys == ("a", "b") and pair.mode is tuple and pair[2] == (2, 5)
    columns = pair.fetch()
    assert isinstance(columns, tuple) and columns[0] is array and columns[1] == [3, 4, 5]
    mapping = tabular.from_data({"a": [0, 1], "b": numpy.arange(2)})
    assert mapping.mode is dict and mapping[1] == {"a": 1, "b": 1}
    assert sorted(mapping.fetch()) == ["a", "b"]
    unnamed = tabular.from_data(([0, 1], [2, 3]))
    assert unnamed[1] == (1, 3) and len(unnamed.keys) == 2


def test_from_data_callables_need_keys_and_size():
    squares = tabular.from_data(("sq", lambda i: i * i), size=5)
    assert squares[4] == 16 and len(squares) == 5 and squares.mode is None
    two = tabular.from_data((("x", "y"), lambda i: (i, -i)), size=3)
    assert two.keys == ("x", "y") and two[2] == (2, -2) and two.mode is tuple
    mixed = tabular.from_data((("v", [5, 6, 7]), ("w", lambda i: 10 * i)))
    assert mixed[2] == (7, 20)
    keyed = tabular.from_data({("p", "q"): lambda i: {"p": i, "q": 2 * i}, "r": [0, 1]})
    assert keyed[1] == {"p": 1, "q": 2, "r": 1}
    with pytest.raises(ValueError):
        tabular.from_data(("sq", lambda i: i))
    with pytest.raises(ValueError):
        tabular.from_data(([0, 1], lambda i: i))


def test_concat_stacks_rows_and_fetches_lists():
    first = tabular.from_data((("a", numpy.arange(3)), ("b", [0, 10, 20])))
    second = tabular.from_data((("a", numpy.arange(3, 5)), ("b", [30, 40])))
    both = first.concat(second)
    assert len(both) == 5 and both.keys == ("a", "b") and both.mode is tuple
    assert both[3] == (3, 30)
    a, b = both.fetch()
    assert list(a) == [0, 1, 2, 3, 4] and b == [0, 10, 20, 30, 40]
    assert both.slice[[4, 0, 3]].fetch()[1] == [40, 0, 30]
    within = both.slice[1:3].fetch()
    assert isinstance(within[0], numpy.ndarray) and within[1] == [10, 20]


def test_concat_slices_match_list_slicing():
    parts = [list(range(0, 3)), list(range(3, 3)), list(range(3, 7)), list(range(7, 9))]
    dataset = tabular.from_data(("v", parts[0])).concat(
        *[tabular.from_data(("v", part)) for part in parts[1:]])
    rows = list(range(9))
    for start in (None, 0, 2, 5, -3):
        for stop in (None, 1, 4, 8, -1):
            # Chainer 7.8.1 misplaces rows for steps below -1 that cross datasets; the unit
            # tests pin those against list slicing for chainer_compat.
            for step in (None, 1, 2, -1):
                window = slice(start, stop, step)
                assert list(dataset.slice[window].fetch()) == rows[window], window


def test_concat_requires_the_same_keys():
    with pytest.raises(ValueError):
        tabular.from_data(("a", [1])).concat(tabular.from_data(("b", [1])))


def test_join_puts_columns_side_by_side():
    left = tabular.from_data(("a", [1, 2, 3]))
    right = tabular.from_data({"b": [4, 5, 6], "c": [7, 8, 9]})
    joined = left.join(right)
    assert joined.keys == ("a", "b", "c") and joined.mode is dict
    assert joined[0] == {"a": 1, "b": 4, "c": 7}
    assert joined.slice[:, ("c", "a", "c")].fetch() == {"c": [7, 8, 9], "a": [1, 2, 3]}
    assert joined.slice[[2], ("c", "a", "c")].astuple()[0] == (9, 3, 9)
    assert left.join(tabular.from_data(("z", [0, 0, 0]))).mode is tuple


def test_join_requires_equal_lengths_and_distinct_keys():
    with pytest.raises(ValueError):
        tabular.from_data(("a", [1, 2])).join(tabular.from_data(("b", [1])))
    with pytest.raises(ValueError):
        tabular.from_data(("a", [1])).join(tabular.from_data(("a", [2])))


def test_transform_sets_mode_from_the_returned_type():
    base = tabular.from_data((("x", [1, 2, 3]), ("y", [4, 5, 6])))
    summed = base.transform("s", lambda x, y: x + y)
    assert summed.keys == ("s",) and summed.mode is None and summed.fetch() == [5, 7, 9]
    swapped = base.transform(("p", "q"), lambda x, y: (y, x))
    assert swapped.mode is tuple and swapped[0] == (4, 1)
    named = base.asdict().transform(("p", "q"), lambda x, y: {"q": x, "p": y})
    assert named.mode is dict and named[2] == {"p": 6, "q": 3}
    assert named.slice[:, "q"].fetch() == [1, 2, 3]


def test_transform_must_keep_its_return_type():
    base = tabular.from_data(("x", [0, 1]))
    fickle = base.transform(("a",), lambda x: (x,) if x == 0 else x)
    with pytest.raises(ValueError):
        fickle.fetch()


def test_transform_batch_gets_whole_columns():
    base = tabular.from_data((("x", numpy.arange(4)), ("y", numpy.arange(4) * 10)))
    calls = []

    def add(x, y):
        calls.append(len(x))
        return x + y

    total = base.transform_batch("t", add)
    numpy.testing.assert_array_equal(total.fetch(), numpy.arange(4) * 11)
    assert calls[-1] == 4
    numpy.testing.assert_array_equal(total.slice[1:3].fetch(), [11, 22])
    shrink = base.transform_batch(("x",), lambda x, y: (x[:1],))
    with pytest.raises(ValueError):
        shrink.fetch()


def test_convert_turns_columns_into_arrays_and_with_converter_overrides_it():
    dataset = tabular.from_data((("a", [1, 2]), ("b", numpy.arange(2.0))))
    a, b = dataset.convert(dataset.fetch())
    assert isinstance(a, numpy.ndarray) and a.tolist() == [1, 2]
    assert b.dtype == numpy.float64
    as_dict = dataset.asdict()
    converted = as_dict.convert(as_dict.fetch())
    assert set(converted) == {"a", "b"} and isinstance(converted["a"], numpy.ndarray)
    custom = dataset.with_converter(lambda a, b: (sum(a), b.sum()))
    assert custom.convert(custom.fetch()) == (3, 1.0)
    keyword = dataset.asdict().with_converter(lambda b, a: a)
    assert keyword.convert(keyword.fetch()) == [1, 2]
    assert dataset.concat(dataset).slice[:, "a"].with_converter(len).convert([1, 2, 3]) == 3


def test_delegate_dataset_forwards_to_its_dataset():
    class Squares(tabular.DelegateDataset):
        def __init__(self):
            super().__init__(tabular.from_data((("x", [0, 1, 2]), ("y", lambda i: i * i))))

    dataset = Squares()
    assert len(dataset) == 3 and dataset.keys == ("x", "y") and dataset[2] == (2, 4)
    assert isinstance(dataset, TabularDataset)


def test_tabular_module_members():
    for name in ("DelegateDataset", "from_data", "_asmode", "_concat", "_join", "_slice",
                 "_transform", "_with_converter"):
        assert hasattr(tabular, name), name
    assert callable(tabular.from_data)
