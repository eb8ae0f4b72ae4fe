"""Tests for chainer_compat.links.connection.embed_id: EmbedID's table, lookups, ignore_label
and gradients."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check, initializers, serializers
from chainer_compat.links.connection.embed_id import EmbedID
from chainer_compat.utils import type_check


def test_table_shape_dtype_and_default_initializer():
    numpy.random.seed(3)
    link = EmbedID(5, 2)
    numpy.random.seed(3)
    expected = numpy.random.normal(0.0, 1.0, (5, 2)).astype(numpy.float32)
    assert [name for name, _ in link.namedparams()] == ["/W"]
    assert link.W.dtype == numpy.float32 and link.ignore_label is None
    numpy.testing.assert_allclose(link.W.array, expected, rtol=1e-6)
    assert isinstance(link.W.initializer, initializers.Normal)


def test_config_dtype_sets_table_dtype():
    with chainer.using_config("dtype", numpy.float16):
        assert EmbedID(3, 2).W.dtype == numpy.float16


def test_lookup_matches_numpy_and_ignore_label_gives_zeros():
    link = EmbedID(4, 3, ignore_label=-1)
    ids = numpy.array([[0, 3], [-1, 2]], numpy.int32)
    y = link(ids)
    expected = link.W.array[numpy.where(ids == -1, 0, ids)]
    expected[ids == -1] = 0
    assert y.shape == (2, 2, 3)
    numpy.testing.assert_array_equal(y.array, expected)


def test_initialW_array_is_used():
    table = numpy.arange(6, dtype=numpy.float32).reshape(3, 2)
    numpy.testing.assert_array_equal(EmbedID(3, 2, initialW=table).W.array, table)


def test_from_params_copies_table_and_keeps_ignore_label():
    table = numpy.random.rand(3, 2).astype(numpy.float32)
    link = EmbedID.from_params(chainer.Variable(table), ignore_label=0)
    numpy.testing.assert_array_equal(link.W.array, table)
    assert link.ignore_label == 0 and link.W.array is not table


def test_float_ids_raise_invalid_type():
    with pytest.raises(type_check.InvalidType):
        EmbedID(3, 2)(numpy.array([0.0, 1.0], numpy.float32))


def test_out_of_range_id_raises_index_error():
    with pytest.raises(IndexError):
        EmbedID(3, 2)(numpy.array([0, 5], numpy.int32))


@pytest.mark.parametrize("ignore_label", [None, 1])
def test_backward_matches_numerical_gradient(ignore_label):
    with chainer.using_config("dtype", numpy.float64):
        link = EmbedID(4, 3, ignore_label=ignore_label)
    ids = numpy.array([0, 1, 3, 1], numpy.int32)
    gy = numpy.random.uniform(-1, 1, (4, 3))
    gradient_check.check_backward(link, ids, gy, link.W, dtype=numpy.float64)


def test_ignored_id_gets_no_gradient():
    link = EmbedID(3, 2, ignore_label=1)
    link.cleargrads()
    y = link(numpy.array([1, 2], numpy.int32))
    y.grad = numpy.ones_like(y.array)
    y.backward()
    numpy.testing.assert_array_equal(link.W.grad[1], numpy.zeros(2))
    numpy.testing.assert_array_equal(link.W.grad[2], numpy.ones(2))


def test_npz_round_trip(tmp_path):
    source = EmbedID(3, 2)
    path = tmp_path / "embed.npz"
    serializers.save_npz(str(path), source)
    with numpy.load(path) as saved:
        assert saved.files == ["W"]
    target = EmbedID(3, 2)
    serializers.load_npz(str(path), target)
    numpy.testing.assert_array_equal(target.W.array, source.W.array)


def test_copy_init_redraws_table():
    link = EmbedID(4, 3)
    fresh = link.copy("init")
    assert fresh.W.shape == (4, 3)
    assert not numpy.array_equal(fresh.W.array, link.W.array)
    assert link.copy().W.array is link.W.array
