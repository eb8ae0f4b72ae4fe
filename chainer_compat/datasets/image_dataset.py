"""Datasets of image files read on access: ``ImageDataset`` and ``LabeledImageDataset`` from
paths on disk, ``ZippedImageDataset``, ``MultiZippedImageDataset`` and
``LabeledZippedImageDataset`` from zip archives. Images come back as ``(C, H, W)`` arrays.

Layer 8: imports configuration and chainer_compat.dataset.dataset_mixin; Pillow only on use.
"""

from __future__ import annotations

import bisect
import io
import os
import threading
import zipfile
from collections.abc import Sequence
from types import ModuleType
from typing import IO, Any

import numpy

from chainer_compat import configuration
from chainer_compat.dataset.dataset_mixin import DatasetMixin

__all__ = [
    "ImageDataset",
    "LabeledImageDataset",
    "LabeledZippedImageDataset",
    "MultiZippedImageDataset",
    "ZippedImageDataset",
]


def _pillow_image() -> ModuleType:
    """Returns ``PIL.Image``, imported on first use so Pillow stays an optional dependency.

    Raises:
        ImportError: If Pillow cannot be imported.
    """
    try:
        from PIL import Image
    except ImportError as error:
        raise ImportError(
            "Pillow must be installed to read image datasets, but importing PIL failed: "
            f"{error}. Install it with `pip install pillow` (or the `image` extra of "
            "chainer_compat).") from error
    return Image


def _read_image(source: str | IO[bytes], dtype: numpy.dtype) -> numpy.ndarray:
    """Reads one image file as a ``(C, H, W)`` array of ``dtype``; greyscale gets ``C == 1``."""
    image_module = _pillow_image()
    with image_module.open(source) as image:
        pixels = numpy.asarray(image, dtype=dtype)
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    return pixels.transpose(2, 0, 1)


def _read_label_file(path: str) -> list[tuple[str, int]]:
    """Reads ``path label`` lines (the Caffe list format) into ``(path, int)`` pairs.

    Raises:
        ValueError: If a line does not hold exactly two whitespace-separated fields.
    """
    pairs = []
    with open(path) as label_file:
        for line_number, line in enumerate(label_file):
            fields = line.strip().split()
            if len(fields) != 2:
                # compat: Chainer's wording (0-based line number) first.
                raise ValueError(
                    f"invalid format at line {line_number} in file {path}: each line must be "
                    f"'<path> <integer label>', got {line.rstrip()!r}")
            pairs.append((fields[0], int(fields[1])))
    return pairs


class ImageDataset(DatasetMixin):
    """A dataset of images read from files on each access, as ``(C, H, W)`` arrays.

    ``C`` is the number of channels of the file (1 for greyscale, 3 for RGB, 4 for RGBA);
    convert the files to one format beforehand if a model needs a fixed shape. Requires
    Pillow.

    Args:
        paths: The image paths, or the path of a text file listing one image path per line.
            Each image path is relative to ``root``.
        root: The directory the image paths are relative to.
        dtype: The dtype of the arrays; ``chainer.config.dtype`` when None.

    Raises:
        ImportError: If Pillow is not installed.
    """

    def __init__(
        self, paths: str | Sequence[str], root: str = ".", dtype: Any = None,
    ) -> None:
        _pillow_image()
        if isinstance(paths, str):
            with open(paths) as paths_file:
                paths = [path.strip() for path in paths_file]
        self._paths = paths
        self._root = root
        self._dtype = configuration.get_dtype(dtype)

    def __len__(self) -> int:
        return len(self._paths)

    def get_example(self, i: int) -> numpy.ndarray:
        """Reads the ``i``-th image as a ``(C, H, W)`` array."""
        return _read_image(os.path.join(self._root, self._paths[i]), self._dtype)


class LabeledImageDataset(DatasetMixin):
    """A dataset of ``(image, label)`` pairs, the image read from its file on each access.

    The image is a ``(C, H, W)`` array as in :class:`ImageDataset`; the label is a 0-d array
    of ``label_dtype``. Requires Pillow.

    Args:
        pairs: A list of ``(path, int label)`` pairs, or the path of a text file with one
            ``path label`` pair per line, separated by whitespace (Caffe's format). Each
            image path is relative to ``root``.
        root: The directory the image paths are relative to.
        dtype: The dtype of the images; ``chainer.config.dtype`` when None.
        label_dtype: The dtype of the labels.

    Raises:
        ImportError: If Pillow is not installed.
        ValueError: If a line of the pairs file is not ``path label``.
    """

    def __init__(
        self,
        pairs: str | Sequence[tuple[str, int]],
        root: str = ".",
        dtype: Any = None,
        label_dtype: Any = numpy.int32,
    ) -> None:
        _pillow_image()
        if isinstance(pairs, str):
            pairs = _read_label_file(pairs)
        self._pairs = pairs
        self._root = root
        self._dtype = configuration.get_dtype(dtype)
        self._label_dtype = label_dtype

    def __len__(self) -> int:
        return len(self._pairs)

    def get_example(self, i: int) -> tuple[numpy.ndarray, numpy.ndarray]:
        """Reads the ``i``-th image and returns it with its label."""
        path, label = self._pairs[i]
        image = _read_image(os.path.join(self._root, path), self._dtype)
        return image, numpy.array(label, dtype=self._label_dtype)


class ZippedImageDataset(DatasetMixin):
    """A dataset of the image files in a zip archive, as ``(C, H, W)`` arrays.

    Every file of the archive (directories aside) is an example, in the archive's order.
    Reading one zip file instead of many small files is faster on networked file systems.
    The dataset can be pickled (to send it to other processes); the archive is reopened on
    first access in a new process.

    Args:
        zipfilename: The path of the zip archive.
        dtype: The dtype of the arrays; ``chainer.config.dtype`` when None.

    Compat:
        Chainer's class needs Pillow only when an image is read; so does this one, but it
        raises ``ImportError`` there (Chainer fails with ``NameError``).
    """

    def __init__(self, zipfilename: str, dtype: Any = None) -> None:
        self._zipfilename = zipfilename
        self._zipfile: zipfile.ZipFile | None = zipfile.ZipFile(zipfilename)
        self._zipfile_pid = os.getpid()
        self._dtype = configuration.get_dtype(dtype)
        self._paths = [name for name in self._zipfile.namelist() if not name.endswith("/")]
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._paths)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        # An open ZipFile and a lock cannot be pickled; the archive reopens on first read.
        state["_zipfile"] = None
        state["_lock"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def get_example(self, i_or_filename: int | str) -> numpy.ndarray:
        """Reads an image as a ``(C, H, W)`` array.

        Args:
            i_or_filename: The index of the image, or its name inside the archive.

        Raises:
            IndexError: If an index is out of range.
            KeyError: If a name is not in the archive.
        """
        name = i_or_filename if isinstance(i_or_filename, str) else self._paths[i_or_filename]
        with self._lock:
            # A ZipFile shared with a forked parent would race on its file offset.
            if self._zipfile is None or self._zipfile_pid != os.getpid():
                self._zipfile_pid = os.getpid()
                self._zipfile = zipfile.ZipFile(self._zipfilename)
            data = self._zipfile.read(name)
        # Pillow may seek, which a member stream of a zip file does not support.
        return _read_image(io.BytesIO(data), self._dtype)


class MultiZippedImageDataset(DatasetMixin):
    """The images of several zip archives, one after another, as one dataset.

    Args:
        zipfilenames: The paths of the zip archives; each holds only image files.
        dtype: The dtype of the arrays; ``chainer.config.dtype`` when None.
    """

    def __init__(self, zipfilenames: Sequence[str], dtype: Any = None) -> None:
        self._datasets = [ZippedImageDataset(name, dtype) for name in zipfilenames]
        # _offsets[k] is the index of the first image of archive k; the last is the total.
        self._offsets = [0]
        for dataset in self._datasets:
            self._offsets.append(self._offsets[-1] + len(dataset))

    def __len__(self) -> int:
        return self._offsets[-1]

    def get_example(self, i: int) -> numpy.ndarray:
        """Reads the ``i``-th image of the archives taken in order.

        Raises:
            IndexError: If ``i`` is out of range.
        """
        length = self._offsets[-1]
        position = i + length if i < 0 else i
        if not 0 <= position < length:
            raise IndexError(
                f"index must be in [-{length}, {length}) for this MultiZippedImageDataset, "
                f"got {i}")
        archive = bisect.bisect(self._offsets, position) - 1
        return self._datasets[archive].get_example(position - self._offsets[archive])


class LabeledZippedImageDataset(DatasetMixin):
    """A dataset of ``(image, label)`` pairs whose images are files in a zip archive.

    The image is a ``(C, H, W)`` array and the label a 0-d array of ``label_dtype``, as in
    :class:`LabeledImageDataset`. Requires Pillow.

    Args:
        zipfilename: The path of the zip archive.
        labelfilename: The path of a text file whose ``i``-th line is ``name label``: the
            name of the ``i``-th image inside the archive and its integer label.
        dtype: The dtype of the images; ``chainer.config.dtype`` when None.
        label_dtype: The dtype of the labels.

    Raises:
        ImportError: If Pillow is not installed.
        ValueError: If a line of the label file is not ``name label``.
    """

    def __init__(
        self,
        zipfilename: str,
        labelfilename: str,
        dtype: Any = None,
        label_dtype: Any = numpy.int32,
    ) -> None:
        _pillow_image()
        self._pairs = _read_label_file(labelfilename)
        self._label_dtype = label_dtype
        self._zipfile = ZippedImageDataset(zipfilename, dtype=dtype)

    def __len__(self) -> int:
        return len(self._pairs)

    def get_example(self, i: int) -> tuple[numpy.ndarray, numpy.ndarray]:
        """Reads the ``i``-th listed image and returns it with its label."""
        name, label = self._pairs[i]
        return self._zipfile.get_example(name), numpy.array(label, dtype=self._label_dtype)
