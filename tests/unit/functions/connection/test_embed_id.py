"""embed_id: lookup values, ignore_label, scatter-add gradient, type errors, debug checks."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.connection.embed_id import embed_id
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("ignore_label", [None, 1])
def test_forward_picks_rows(xp, dtype, ignore_label):
    rng = numpy.random.default_rng(0)
    w = rng.standard_normal((4, 3)).astype(dtype)
    x = numpy.array([[0, 2], [1, 3], [1, 1]], numpy.int32)
    y = embed_id(xp.asarray(x), xp.asarray(w), ignore_label=ignore_label)
    expected = numpy.stack([numpy.stack([w[i] for i in row]) for row in x])
    if ignore_label is not None:
        expected[x == ignore_label] = 0
    assert y.shape == (3, 2, 3) and y.dtype == dtype
    numpy.testing.assert_array_equal(_host(y.array), expected)


@pytest.mark.parametrize("ignore_label", [None, 2])
def test_gradient_sums_rows_of_repeated_ids(xp, ignore_label):
    rng = numpy.random.default_rng(1)
    x = numpy.array([0, 2, 0, 3, 2], numpy.int32)
    w = chainer_compat.Variable(xp.asarray(rng.standard_normal((4, 3))))
    gy = rng.standard_normal((5, 3))
    y = embed_id(xp.asarray(x), w, ignore_label=ignore_label)
    y.grad = xp.asarray(gy)
    y.backward()
    expected = numpy.zeros((4, 3))
    for row, index in zip(gy, x):
        if index != ignore_label:
            expected[index] += row
    numpy.testing.assert_allclose(_host(w.grad), expected)


@pytest.mark.parametrize("ignore_label", [None, 0])
def test_backward_and_double_backward_match_numerical(xp, ignore_label):
    rng = numpy.random.default_rng(2)
    x = xp.asarray(numpy.array([[0, 1], [3, 0]], numpy.int32))
    w = xp.asarray(rng.standard_normal((4, 2)))
    gy = xp.asarray(rng.standard_normal((2, 2, 2)))
    ggw = xp.asarray(rng.standard_normal((4, 2)))

    def f(weight):
        return embed_id(x, weight, ignore_label=ignore_label)

    gradient_check.check_backward(f, w, gy)
    gradient_check.check_double_backward(f, w, gy, ggw)


def test_float_ids_raise_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"EmbedIDFunction[\s\S]*x\.dtype\.kind"):
        embed_id(numpy.zeros(2, "f"), numpy.zeros((3, 2), "f"))


def test_vector_weight_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"W\.ndim == 2"):
        embed_id(numpy.zeros(2, numpy.int32), numpy.zeros(3, "f"))


def test_debug_mode_rejects_out_of_range_ids():
    with chainer_compat.using_config("debug", True):
        with pytest.raises(ValueError, match=r"embed_id must satisfy 0 <= x < len\(W\) \(3\)"):
            embed_id(numpy.array([0, 3], numpy.int32), numpy.zeros((3, 2), "f"))
        # The ignored id is allowed even when it is out of range.
        y = embed_id(numpy.array([0, -1], numpy.int32), numpy.ones((3, 2), "f"),
                     ignore_label=-1)
    numpy.testing.assert_array_equal(y.array, [[1, 1], [0, 0]])
