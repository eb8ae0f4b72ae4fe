"""Unit tests of the file-backed datasets (TextDataset, PickleDataset, the image datasets): our
messages, Pillow as an optional import, fork safety, NumPy integer and negative indices, and
pickle files exchanged with Chainer itself when its venv is present."""

from __future__ import annotations

import gc
import multiprocessing
import os
import pathlib
import subprocess
import sys
import warnings
import zipfile

import numpy
import pytest

from chainer_compat.datasets import image_dataset, pickle_dataset, text_dataset

CHAINER_PYTHON = pathlib.Path("/tmp/chvenv/bin/python")


@pytest.fixture
def text():
    """Builds TextDatasets like the constructor and closes them after the test."""
    made = []

    def build(*args, **kwargs):
        made.append(text_dataset.TextDataset(*args, **kwargs))
        return made[-1]

    yield build
    for dataset in made:
        dataset.close()


def write_lines(path: pathlib.Path, lines: list[str]) -> str:
    path.write_text("".join(lines))
    return str(path)


# ------------------------------------------------------------------------------------------------
# TextDataset
# ------------------------------------------------------------------------------------------------

def test_text_dataset_messages_say_what_is_wrong(tmp_path, text):
    path = write_lines(tmp_path / "a.txt", ["1\n", "2\n"])
    short = write_lines(tmp_path / "b.txt", ["1\n"])
    with pytest.raises(ValueError, match="at least one text file must be specified"):
        text_dataset.TextDataset([])
    with pytest.raises(ValueError, match="2 files, got 1 encodings"):
        text_dataset.TextDataset([path, path], encoding=["utf-8"])
    with pytest.raises(ValueError, match="number of lines in files does not match"):
        text_dataset.TextDataset([path, short])
    with pytest.raises(IndexError, match=r"in \[0, 2\) for this TextDataset, got -1"):
        text(path)[-1]


def test_text_dataset_numpy_integer_and_array_indices(tmp_path, text):
    lines = [f"line {i}\n" for i in range(5)]
    dataset = text(write_lines(tmp_path / "a.txt", lines))
    assert dataset[numpy.int64(3)] == lines[3]
    assert dataset[numpy.array([4, 0])] == [lines[4], lines[0]]


def test_text_dataset_filter_that_keeps_nothing_is_empty(tmp_path, text):
    dataset = text(
        write_lines(tmp_path / "a.txt", ["a\n", "b\n"]), filter_func=lambda line: False)
    assert len(dataset) == 0
    with pytest.raises(IndexError):
        dataset[0]


def test_text_dataset_of_an_empty_file_is_empty(tmp_path, text):
    assert len(text(write_lines(tmp_path / "a.txt", []))) == 0


def test_text_dataset_close_closes_every_file(tmp_path):
    path = write_lines(tmp_path / "a.txt", ["a\n"])
    dataset = text_dataset.TextDataset([path, path])
    dataset.close()
    with pytest.raises(ValueError):
        dataset[0]


# ------------------------------------------------------------------------------------------------
# PickleDataset
# ------------------------------------------------------------------------------------------------

def test_pickle_dataset_message_names_the_stream_type():
    class Unseekable:
        def seekable(self):
            return False

    with pytest.raises(ValueError, match="reader must support random access.*got Unseekable"):
        pickle_dataset.PickleDataset(Unseekable())


def test_pickle_dataset_holds_numpy_arrays(tmp_path):
    path = str(tmp_path / "arrays.pkl")
    arrays = [numpy.arange(i + 1, dtype=numpy.float32) for i in range(3)]
    with pickle_dataset.open_pickle_dataset_writer(path) as writer:
        for array in arrays:
            writer.write(array)
    with pickle_dataset.open_pickle_dataset(path) as dataset:
        for i, array in enumerate(arrays):
            numpy.testing.assert_array_equal(dataset[numpy.int32(i)], array)
            assert dataset[i].dtype == numpy.float32


def _read_last_in_child(dataset, queue):
    queue.put(dataset[len(dataset) - 1])


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method")
def test_pickle_dataset_child_process_gets_its_own_file_offset(tmp_path):
    path = str(tmp_path / "data.pkl")
    with pickle_dataset.open_pickle_dataset_writer(path) as writer:
        # Records larger than the read buffer, so a seek in the child reaches the descriptor.
        for i in range(20):
            writer.write(bytes([i]) * 20000)
    with pickle_dataset.open_pickle_dataset(path) as dataset:
        dataset[0]
        descriptor = dataset._reader.fileno()
        offset_before = os.lseek(descriptor, 0, os.SEEK_CUR)
        context = multiprocessing.get_context("fork")
        queue = context.Queue()
        child = context.Process(target=_read_last_in_child, args=(dataset, queue))
        child.start()
        assert queue.get(timeout=20) == bytes([19]) * 20000
        child.join(timeout=20)
        assert child.exitcode == 0
        # Without the reopen in the child, its seek to the last record would move this offset.
        assert os.lseek(descriptor, 0, os.SEEK_CUR) == offset_before


@pytest.mark.skipif(not CHAINER_PYTHON.exists(), reason="Chainer's venv is not at /tmp/chvenv")
def test_pickle_dataset_files_move_between_chainer_and_chainer_compat(tmp_path):
    ours = str(tmp_path / "ours.pkl")
    theirs = str(tmp_path / "theirs.pkl")
    examples = [(1, 2.5, "text"), {"nested": [1, (2, 3)]}, None]
    with pickle_dataset.open_pickle_dataset_writer(ours) as writer:
        for example in examples:
            writer.write(example)
    script = (
        "import sys, warnings\n"
        "warnings.simplefilter('ignore')\n"
        "from chainer.datasets import pickle_dataset as p\n"
        "with p.open_pickle_dataset(sys.argv[1]) as d:\n"
        "    print(repr([d[i] for i in range(len(d))]))\n"
        "with p.open_pickle_dataset_writer(sys.argv[2]) as w:\n"
        "    for x in eval(sys.argv[3]):\n"
        "        w.write(x)\n")
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run(
        [str(CHAINER_PYTHON), "-c", script, ours, theirs, repr(examples)],
        capture_output=True, text=True, timeout=120, env=environment, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == repr(examples)
    with pickle_dataset.open_pickle_dataset(theirs) as dataset:
        assert [dataset[i] for i in range(len(dataset))] == examples


# ------------------------------------------------------------------------------------------------
# Image datasets
# ------------------------------------------------------------------------------------------------

def test_image_datasets_without_pillow_raise_import_error_saying_how_to_install(
        tmp_path, monkeypatch):
    # A None entry in sys.modules makes `import PIL` fail, as if Pillow were not installed.
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    with pytest.raises(ImportError, match="pip install pillow"):
        image_dataset.ImageDataset(["a.png"])
    with pytest.raises(ImportError, match="pip install pillow"):
        image_dataset.LabeledImageDataset([("a.png", 0)])
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as writer:
        writer.writestr("a.png", b"not read")
    # compat: as in Chainer, a ZippedImageDataset needs Pillow only when it reads an image.
    dataset = image_dataset.ZippedImageDataset(str(archive))
    with pytest.raises(ImportError, match="pip install pillow"):
        dataset[0]


def test_importing_image_dataset_does_not_import_pillow():
    code = ("import sys; import chainer_compat.datasets.image_dataset; "
            "print('PIL' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60, check=True)
    assert result.stdout.strip() == "False"


def make_zip(path, arrays):
    Image = pytest.importorskip("PIL.Image")
    with zipfile.ZipFile(path, "w") as archive:
        for name, pixels in arrays.items():
            image_path = path.parent / name
            Image.fromarray(pixels).save(image_path)
            archive.write(image_path, arcname=name)
    return str(path)


def test_zipped_and_multi_zipped_image_indices(tmp_path):
    rng = numpy.random.default_rng(1)
    first = {f"{i}.png": rng.integers(0, 256, (2, 3), dtype=numpy.uint8) for i in range(2)}
    second = {f"{i}.png": rng.integers(0, 256, (2, 3), dtype=numpy.uint8) for i in range(2, 5)}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    zipped = image_dataset.ZippedImageDataset(make_zip(tmp_path / "a" / "a.zip", first))
    # NumPy integers are indices, not member names (Chainer looked them up as names).
    numpy.testing.assert_array_equal(zipped[numpy.int64(1)][0], first["1.png"])
    multi = image_dataset.MultiZippedImageDataset(
        [zipped._zipfilename, make_zip(tmp_path / "b" / "b.zip", second)])
    everything = list(first.values()) + list(second.values())
    numpy.testing.assert_array_equal(multi[-1][0], everything[-1])
    numpy.testing.assert_array_equal(multi[2][0], everything[2])
    with pytest.raises(IndexError, match=r"in \[-5, 5\).*got 5"):
        multi[5]
    with pytest.raises(IndexError):
        multi[-6]


def test_label_file_message_names_the_file_and_line(tmp_path):
    pytest.importorskip("PIL.Image")
    labels = tmp_path / "labels.txt"
    labels.write_text("a.png 1\nb.png 2 extra\n")
    with pytest.raises(ValueError, match=r"invalid format at line 1 in file .*labels\.txt"):
        image_dataset.LabeledImageDataset(str(labels))
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as writer:
        writer.writestr("a.png", b"")
    with pytest.raises(ValueError, match="'b.png 2 extra'"):
        image_dataset.LabeledZippedImageDataset(str(archive), str(labels))


@pytest.mark.parametrize("second_lines", [["1\n"], None])
def test_text_dataset_that_fails_to_build_closes_its_files(tmp_path, second_lines):
    first = write_lines(tmp_path / "a.txt", ["1\n", "2\n"])
    # None: the second file is missing, so opening it fails after the first one is open.
    second = (write_lines(tmp_path / "b.txt", second_lines) if second_lines is not None
              else str(tmp_path / "missing.txt"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        with pytest.raises((ValueError, FileNotFoundError)):
            text_dataset.TextDataset([first, second])
        gc.collect()
    assert not [warning for warning in caught if warning.category is ResourceWarning]
