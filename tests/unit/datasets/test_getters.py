"""Unit tests of the dataset getters (MNIST family, CIFAR, PTB, SVHN) on tiny files in the
original formats, served through file:// URLs patched into the modules' URL constants: what is
downloaded, what is cached, that a second call reads only the cache, and our messages."""

from __future__ import annotations

import gzip
import io
import os
import pickle
import struct
import subprocess
import sys
import tarfile

import numpy
import pytest

from chainer_compat import configuration
from chainer_compat.dataset import download
from chainer_compat.datasets import (
    cifar,
    fashion_mnist,
    kuzushiji_mnist,
    mnist,
    ptb,
    svhn,
)
from chainer_compat.datasets.tuple_dataset import TupleDataset

MNIST_MODULES = [
    pytest.param(mnist, mnist.get_mnist, "pfnet/chainer/mnist", id="mnist"),
    pytest.param(fashion_mnist, fashion_mnist.get_fashion_mnist,
                 "pfnet/chainer/fashion-mnist", id="fashion"),
    pytest.param(kuzushiji_mnist, kuzushiji_mnist.get_kuzushiji_mnist,
                 "pfnet/chainer/kuzushiji_mnist", id="kuzushiji"),
]


@pytest.fixture
def dataset_root(tmp_path, monkeypatch):
    root = tmp_path / "root"
    monkeypatch.setattr(download, "_dataset_root", str(root))
    return root


@pytest.fixture
def sources(tmp_path):
    """The folder the fake raw files are served from."""
    folder = tmp_path / "sources"
    folder.mkdir()
    return folder


def forget_downloads(dataset_root, sources):
    """Deletes the raw files and their downloaded copies: only the npz caches remain."""
    for path in sources.iterdir():
        path.unlink()
    for path in (dataset_root / "_dl_cache").iterdir():
        path.unlink()


def write_idx_pair(folder, stem, images, labels, label_count=None):
    """Writes gzipped IDX files ``<stem>-images`` and ``<stem>-labels``; returns their URLs."""
    image_path = folder / f"{stem}-images-idx3-ubyte.gz"
    label_path = folder / f"{stem}-labels-idx1-ubyte.gz"
    header = struct.pack(">iiii", 2051, len(images), 28, 28)
    image_path.write_bytes(gzip.compress(header + images.tobytes()))
    count = len(labels) if label_count is None else label_count
    label_path.write_bytes(gzip.compress(struct.pack(">ii", 2049, count) + labels.tobytes()))
    return image_path.as_uri(), label_path.as_uri()


def serve_mnist_format(module, monkeypatch, sources, train_count=4, test_count=2, seed=0):
    rng = numpy.random.default_rng(seed)
    raw = []
    for stem, count, constant in (("train", train_count, "_TRAIN_URLS"),
                                  ("t10k", test_count, "_TEST_URLS")):
        images = rng.integers(0, 256, size=(count, 784), dtype=numpy.uint8)
        labels = rng.integers(0, 10, size=count, dtype=numpy.uint8)
        monkeypatch.setattr(module, constant, write_idx_pair(sources, stem, images, labels))
        raw.append((images, labels))
    return raw


@pytest.mark.parametrize("module, get, directory", MNIST_MODULES)
def test_mnist_format_downloads_once_then_reads_only_the_cache(
        dataset_root, sources, monkeypatch, module, get, directory):
    (train_x, train_y), (test_x, test_y) = serve_mnist_format(module, monkeypatch, sources)
    train, test = get()
    assert isinstance(train, TupleDataset) and len(train) == 4 and len(test) == 2
    cache = dataset_root / directory
    assert sorted(path.name for path in cache.iterdir()) == ["test.npz", "train.npz"]
    with numpy.load(cache / "train.npz") as npz:
        assert sorted(npz.files) == ["x", "y"]
        numpy.testing.assert_array_equal(npz["x"], train_x)
        numpy.testing.assert_array_equal(npz["y"], train_y)
    forget_downloads(dataset_root, sources)
    train_images, test_images = get(withlabel=False, ndim=3, rgb_format=True)
    assert train_images.shape == (4, 3, 28, 28) and test_images.shape == (2, 3, 28, 28)
    numpy.testing.assert_allclose(test_images[:, 2].reshape(2, 784), test_x / 255., rtol=1e-6)
    again_train, again_test = get()
    numpy.testing.assert_array_equal(again_train[3][0], train[3][0])
    assert again_test[1][1] == test_y[1]


@pytest.mark.parametrize("ndim, shape", [(1, (784,)), (2, (28, 28)), (3, (1, 28, 28))])
def test_mnist_shapes_scale_and_dtypes(dataset_root, sources, monkeypatch, ndim, shape):
    (train_x, train_y), _ = serve_mnist_format(mnist, monkeypatch, sources)
    train, _ = mnist.get_mnist(ndim=ndim, scale=2.5, dtype=numpy.float64,
                               label_dtype=numpy.uint8)
    images, labels = train._datasets
    assert images.shape == (4,) + shape and images.dtype == numpy.float64
    assert labels.dtype == numpy.uint8
    numpy.testing.assert_allclose(images.reshape(4, 784), train_x * (2.5 / 255.))
    numpy.testing.assert_array_equal(labels, train_y)


def test_mnist_default_dtype_is_config_dtype(dataset_root, sources, monkeypatch):
    serve_mnist_format(mnist, monkeypatch, sources)
    with configuration.using_config("dtype", numpy.float16):
        train, test = mnist.get_mnist(withlabel=False)
    assert train.dtype == numpy.float16 and test.dtype == numpy.float16
    assert mnist.get_mnist(withlabel=False)[0].dtype == numpy.float32


def test_mnist_bad_ndim_fails_before_downloading(dataset_root, sources, monkeypatch):
    serve_mnist_format(mnist, monkeypatch, sources)
    with pytest.raises(ValueError, match=r"ndim must be one of 1, 2, 3 for the MNIST "
                                         r"dataset, got 0"):
        mnist.get_mnist(ndim=0)
    assert not (dataset_root / "_dl_cache").exists()


def test_mnist_mismatched_counts_name_both(dataset_root, sources, monkeypatch):
    images = numpy.zeros((3, 784), numpy.uint8)
    labels = numpy.zeros(3, numpy.uint8)
    monkeypatch.setattr(mnist, "_TRAIN_URLS",
                        write_idx_pair(sources, "train", images, labels, label_count=2))
    with pytest.raises(RuntimeError, match="got 3 images and 2 labels"):
        mnist.get_mnist()
    assert not (dataset_root / "pfnet/chainer/mnist/train.npz").exists()


def test_mnist_truncated_file_says_what_to_delete(dataset_root, sources, monkeypatch):
    urls = write_idx_pair(sources, "train", numpy.zeros((2, 784), numpy.uint8),
                          numpy.zeros(2, numpy.uint8))
    image_file = sources / "train-images-idx3-ubyte.gz"
    image_file.write_bytes(gzip.compress(gzip.decompress(image_file.read_bytes())[:-5]))
    monkeypatch.setattr(mnist, "_TRAIN_URLS", urls)
    with pytest.raises(RuntimeError, match=r"must hold 2 examples .* got 1563 image bytes"):
        mnist.get_mnist()


def test_labels_helpers_return_new_lists():
    fashion = fashion_mnist.get_fashion_mnist_labels()
    kuzushiji = kuzushiji_mnist.get_kuzushiji_mnist_labels()
    fashion.clear()
    kuzushiji.clear()
    assert len(fashion_mnist.get_fashion_mnist_labels()) == 10
    assert len(kuzushiji_mnist.get_kuzushiji_mnist_labels()) == 10


def write_cifar_archive(path, members):
    with tarfile.open(path, "w:gz") as archive:
        for name, content in members.items():
            data = pickle.dumps(content, protocol=2)
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path.as_uri()


def test_cifar10_joins_the_batches_of_any_size(dataset_root, sources, monkeypatch):
    rng = numpy.random.default_rng(4)
    batches = [rng.integers(0, 256, size=(number, 3072), dtype=numpy.uint8)
               for number in (1, 2, 1, 3, 1, 2)]
    labels = [list(range(len(batch))) for batch in batches]
    names = [f"data_batch_{number}" for number in range(1, 6)] + ["test_batch"]
    url = write_cifar_archive(sources / "c10.tar.gz", {
        f"cifar-10-batches-py/{name}": {"data": batch, "labels": label}
        for name, batch, label in zip(names, batches, labels)})
    monkeypatch.setitem(cifar._URLS, "cifar-10", url)
    train, test = cifar.get_cifar10(ndim=1)
    images, train_labels = train._datasets
    numpy.testing.assert_allclose(images, numpy.concatenate(batches[:5]) / 255., rtol=1e-6)
    numpy.testing.assert_array_equal(train_labels, sum(labels[:5], []))
    assert train_labels.dtype == numpy.int32 and len(test) == 2
    forget_downloads(dataset_root, sources)
    cached_test = cifar.get_cifar10(withlabel=False)[1]
    numpy.testing.assert_allclose(cached_test, batches[5].reshape(2, 3, 32, 32) / 255.,
                                  rtol=1e-6)


def test_cifar100_bad_ndim_fails_before_downloading(dataset_root):
    with pytest.raises(ValueError, match="ndim must be one of 1, 3 for the CIFAR dataset, got 2"):
        cifar.get_cifar100(ndim=2)
    assert not (dataset_root / "_dl_cache").exists()


def test_cifar100_second_call_reads_only_the_cache(dataset_root, sources, monkeypatch):
    rng = numpy.random.default_rng(5)
    train_x = rng.integers(0, 256, size=(3, 3072), dtype=numpy.uint8)
    url = write_cifar_archive(sources / "c100.tar.gz", {
        "cifar-100-python/train": {"data": train_x, "fine_labels": [99, 0, 7]},
        "cifar-100-python/test": {"data": train_x[:1], "fine_labels": [5]}})
    monkeypatch.setitem(cifar._URLS, "cifar-100", url)
    first_train, _ = cifar.get_cifar100()
    forget_downloads(dataset_root, sources)
    train, test = cifar.get_cifar100()
    numpy.testing.assert_array_equal(train._datasets[0], first_train._datasets[0])
    numpy.testing.assert_array_equal(train._datasets[1], [99, 0, 7])
    assert test[0][1] == 5


def serve_ptb(monkeypatch, sources, texts):
    for part, text in texts.items():
        path = sources / f"ptb.{part}.txt"
        path.write_text(text)
        monkeypatch.setattr(ptb, f"_{part}_url", path.as_uri())


def test_ptb_builds_the_vocabulary_from_train_and_reuses_the_cache(
        dataset_root, sources, monkeypatch):
    texts = {"train": " b a b \n c \n", "valid": " c a \n", "test": " a \n\n"}
    serve_ptb(monkeypatch, sources, texts)
    train, valid, test = ptb.get_ptb_words()
    vocabulary = ptb.get_ptb_words_vocabulary()
    assert vocabulary == {"b": 0, "a": 1, "<eos>": 2, "c": 3}
    reference = {part: [vocabulary[word] for line in text.splitlines()
                        for word in line.split() + ["<eos>"]]
                 for part, text in texts.items()}
    for ids, part in ((train, "train"), (valid, "valid"), (test, "test")):
        assert ids.dtype == numpy.int32
        numpy.testing.assert_array_equal(ids, reference[part])
    assert (dataset_root / "pfnet/chainer/ptb/vocab.txt").read_text() == "b\na\n<eos>\nc\n"
    forget_downloads(dataset_root, sources)
    assert ptb.get_ptb_words_vocabulary() == vocabulary
    numpy.testing.assert_array_equal(ptb.get_ptb_words()[2], reference["test"])


def test_ptb_unknown_word_outside_train_is_a_key_error(dataset_root, sources, monkeypatch):
    serve_ptb(monkeypatch, sources, {"train": "a\n", "valid": "z\n", "test": "a\n"})
    # compat: Chainer has no unknown-word handling; PTB's own files map rare words to <unk>.
    with pytest.raises(KeyError):
        ptb.get_ptb_words()


def write_svhn_mat(path, images, labels):
    scipy_io = pytest.importorskip("scipy.io")
    scipy_io.savemat(str(path), {"X": images, "y": labels})
    return path.as_uri()


def serve_svhn(monkeypatch, sources, count=3):
    rng = numpy.random.default_rng(6)
    raw = {}
    for part in ("TRAIN", "TEST", "EXTRA"):
        images = rng.integers(0, 256, size=(32, 32, 3, count), dtype=numpy.uint8)
        labels = numpy.array([[10], [1], [9]][:count], dtype=numpy.uint8)
        url = write_svhn_mat(sources / f"{part}.mat", images, labels)
        monkeypatch.setattr(svhn, f"_{part}_URL", url)
        raw[part] = (images, labels)
    return raw


def test_svhn_moves_channels_first_and_maps_label_10_to_0(dataset_root, sources, monkeypatch):
    raw = serve_svhn(monkeypatch, sources)
    train, test, extra = svhn.get_svhn(scale=2., label_dtype=numpy.int64, add_extra=True)
    images, labels = train._datasets
    assert images.shape == (3, 3, 32, 32) and images.dtype == numpy.float32
    numpy.testing.assert_allclose(images, raw["TRAIN"][0].transpose(3, 2, 0, 1) * (2. / 255.),
                                  rtol=1e-6)
    assert labels.dtype == numpy.int64 and labels.tolist() == [0, 1, 9]
    assert len(test) == 3 and len(extra) == 3
    cache = dataset_root / "pfnet/chainer/svhn"
    assert sorted(path.name for path in cache.iterdir()) == ["extra.npz", "test.npz",
                                                              "train.npz"]
    with numpy.load(cache / "test.npz") as npz:
        assert sorted(npz.files) == ["x", "y"]
        numpy.testing.assert_array_equal(npz["x"], raw["TEST"][0])
        numpy.testing.assert_array_equal(npz["y"], raw["TEST"][1])
    assert len(svhn.get_svhn(withlabel=False)) == 2


def test_svhn_needs_scipy_only_to_read_the_mat_files(dataset_root, sources, monkeypatch):
    serve_svhn(monkeypatch, sources)
    scipy_io = sys.modules["scipy.io"]
    monkeypatch.setitem(sys.modules, "scipy.io", None)  # makes importing scipy.io fail
    with pytest.raises(RuntimeError, match="SciPy must be installed"):
        svhn.get_svhn()
    monkeypatch.setitem(sys.modules, "scipy.io", scipy_io)
    first, _ = svhn.get_svhn(withlabel=False)
    forget_downloads(dataset_root, sources)
    monkeypatch.setitem(sys.modules, "scipy.io", None)
    cached, _ = svhn.get_svhn(withlabel=False)
    numpy.testing.assert_array_equal(cached, first)


def test_getters_use_chainer_dataset_root_from_the_environment(tmp_path, sources):
    images = numpy.arange(784, dtype=numpy.uint8).reshape(1, 784)
    urls = write_idx_pair(sources, "train", images, numpy.array([7], numpy.uint8))
    code = (
        "from chainer_compat.datasets import mnist\n"
        f"mnist._TRAIN_URLS = mnist._TEST_URLS = {urls!r}\n"
        "train, test = mnist.get_mnist()\n"
        "print(train[0][1], test[0][1])\n")
    environment = dict(os.environ, CHAINER_DATASET_ROOT=str(tmp_path / "env_root"))
    output = subprocess.run([sys.executable, "-c", code], env=environment, check=True,
                            capture_output=True, text=True).stdout
    assert output.split() == ["7", "7"]
    assert (tmp_path / "env_root/pfnet/chainer/mnist/train.npz").exists()
