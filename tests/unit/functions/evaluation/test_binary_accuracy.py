"""binary_accuracy: values against counting, the ignored label -1, type errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.evaluation.binary_accuracy import binary_accuracy
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(8,), (4, 3)])
def test_matches_counting(xp, dtype, shape):
    rng = numpy.random.default_rng(0)
    y = rng.standard_normal(shape).astype(dtype)
    t = rng.integers(-1, 2, shape).astype(numpy.int32)
    kept = t != -1
    expected = ((y >= 0) == t)[kept].sum() / max(kept.sum(), 1)
    result = binary_accuracy(xp.asarray(y), xp.asarray(t))
    assert result.dtype == dtype and result.shape == ()
    numpy.testing.assert_allclose(_host(result.array), expected, rtol=1e-3)


def test_documented_examples():
    y = numpy.array([[-2.0, 0.0], [3.0, -5.0]])
    assert float(binary_accuracy(y, numpy.array([[0, 1], [1, 0]], numpy.int32)).array) == 1.0
    assert float(binary_accuracy(y, numpy.array([[0, 0], [1, 1]], numpy.int32)).array) == 0.5
    assert float(binary_accuracy(y, numpy.array([[0, -1], [1, -1]], numpy.int32)).array) == 1.0


def test_every_label_ignored_gives_zero():
    result = binary_accuracy(numpy.ones(3, "f"), numpy.full(3, -1, numpy.int32))
    assert float(result.array) == 0.0


def test_shape_mismatch_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"BinaryAccuracy[\s\S]*t\.shape == x\.shape"):
        binary_accuracy(numpy.zeros((2, 3), "f"), numpy.zeros(6, numpy.int32))
