"""Tests for chainer_compat.links.connection.parameter: the Parameter link that holds one array
and returns it."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import serializers
from chainer_compat.links.connection.parameter import Parameter


def test_holds_the_array_without_copy_and_keeps_its_dtype():
    array = numpy.arange(6, dtype=numpy.float64).reshape(2, 3)
    link = Parameter(array)
    assert [name for name, _ in link.namedparams()] == ["/W"]
    assert link.W.array is array and link.W.dtype == numpy.float64
    assert link.W.grad.shape == (2, 3)


@pytest.mark.parametrize("volatile", ["off", "on", True])
def test_call_returns_w_and_backprops_into_it(volatile):
    link = Parameter(numpy.arange(3, dtype=numpy.float32))
    link.cleargrads()
    out = link(volatile=volatile) if volatile != "off" else link()
    numpy.testing.assert_array_equal(out.array, link.W.array)
    assert out is not link.W and out.creator is not None
    out.grad = numpy.full(3, 2.0, numpy.float32)
    out.backward()
    numpy.testing.assert_array_equal(link.W.grad, numpy.full(3, 2.0))


def test_npz_round_trip(tmp_path):
    source = Parameter(numpy.arange(4, dtype=numpy.float32))
    path = tmp_path / "parameter.npz"
    serializers.save_npz(str(path), source)
    with numpy.load(path) as saved:
        assert saved.files == ["W"]
    target = Parameter(numpy.zeros(4, numpy.float32))
    serializers.load_npz(str(path), target)
    numpy.testing.assert_array_equal(target.W.array, source.W.array)


def test_copy_copy_detaches_array():
    link = Parameter(numpy.zeros(2, numpy.float32))
    copied = link.copy("copy")
    copied.W.array[...] = 1
    assert (link.W.array == 0).all()


@pytest.mark.gpu
def test_cupy_array_puts_link_on_its_device(cupy):
    array = cupy.arange(3, dtype=cupy.float32)
    link = Parameter(array)
    assert link.W.array is array
    assert isinstance(link.W.grad, cupy.ndarray)
    assert link.device.xp is cupy
