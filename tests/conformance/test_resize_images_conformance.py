"""resize_images reads only the input pixels around each output pixel's source position, so a
NaN or an infinity stays local, and it rounds as Chainer's CPU code does: the four neighbours
weighted and summed by einsum. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself (whose resize_images uses
``numpy.float``, gone from NumPy 1.24 on: the test puts it back there).
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
if chainer.__name__ == "chainer" and not hasattr(numpy, "float"):
    numpy.float = float  # type: ignore[attr-defined]  # for Chainer 7.8.1 on NumPy 1.24+


@pytest.mark.parametrize("mode, align_corners, reached", [
    ("nearest", True, 4), ("nearest", False, 4), ("bilinear", True, 9), ("bilinear", False, 9)])
def test_a_nan_pixel_reaches_only_its_neighbourhood(mode, align_corners, reached):
    x = numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4)
    x[0, 0, 0, 0] = numpy.nan
    y = F.resize_images(x, (8, 8), mode=mode, align_corners=align_corners).array
    assert int(numpy.isnan(y).sum()) == reached


def _chainer_order(x, out_h, out_w):
    """Bilinear with aligned corners, formed and summed as Chainer's CPU code does."""
    _, _, height, width = x.shape
    row_fraction, rows = numpy.modf(numpy.linspace(0, height - 1, num=out_h))
    column_fraction, columns = numpy.modf(numpy.linspace(0, width - 1, num=out_w))
    rows, columns = rows.astype(numpy.intp), columns.astype(numpy.intp)
    row_pairs = numpy.stack([rows, numpy.minimum(rows + 1, height - 1)])[:, :, None]
    column_pairs = numpy.stack([columns, numpy.minimum(columns + 1, width - 1)])[:, None, :]
    weights = numpy.empty((2, 2, out_h, out_w), x.dtype)
    weights[0, 1] = column_fraction.astype(x.dtype)[None, :]
    weights[0, 0] = 1 - weights[0, 1]
    weights[1] = weights[0] * row_fraction.astype(x.dtype)[:, None]
    weights[0] -= weights[1]
    return row_pairs, column_pairs, weights


def test_bilinear_values_round_as_chainers():
    rng = numpy.random.RandomState(0)
    x = rng.standard_normal((2, 3, 5, 7)).astype(numpy.float32)
    rows, columns, weights = _chainer_order(x, 9, 4)
    panel = x[:, :, rows[:, None], columns[None, :]].reshape(6, 4, 36)
    expected = numpy.einsum("ijk,jk->ik", panel, weights.reshape(4, 36)).reshape(2, 3, 9, 4)
    numpy.testing.assert_array_equal(F.resize_images(x, (9, 4)).array, expected)
