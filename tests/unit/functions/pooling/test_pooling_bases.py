"""The pooling base classes Pooling2D and _PoolingND: the window attributes every pooling node
gets from them, their argument checks, and that no cuDNN path is claimed."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.pooling.average_pooling_2d import AveragePooling2D
from chainer_compat.functions.pooling.average_pooling_nd import AveragePoolingND
from chainer_compat.functions.pooling.max_pooling_2d import MaxPooling2D
from chainer_compat.functions.pooling.max_pooling_nd import MaxPoolingND
from chainer_compat.functions.pooling.pooling_2d import Pooling2D
from chainer_compat.functions.pooling.pooling_nd import _PoolingND
from chainer_compat.functions.pooling.unpooling_2d import Unpooling2D
from chainer_compat.functions.pooling.unpooling_nd import UnpoolingND
from chainer_compat.functions.pooling.upsampling_2d import Upsampling2D
from chainer_compat.utils import type_check


@pytest.mark.parametrize("make", [
    lambda: MaxPooling2D((3, 2), (2, 1), (1, 0), return_indices=True),
    lambda: AveragePooling2D((3, 2), (2, 1), (1, 0)),
    lambda: Unpooling2D((3, 2), (2, 1), (1, 0)),
    lambda: Upsampling2D(numpy.zeros((1, 1, 2, 2), numpy.int32), (3, 2), (2, 1), (1, 0)),
], ids=["max", "average", "unpooling", "upsampling"])
def test_2d_nodes_expose_the_window_as_chainers_attributes(make):
    node = make()
    assert isinstance(node, Pooling2D)
    assert (node.kh, node.kw, node.sy, node.sx, node.ph, node.pw) == (3, 2, 2, 1, 1, 0)


def test_2d_base_takes_the_stride_from_ksize_and_keeps_its_flags():
    node = Pooling2D(3, cover_all=False, return_indices=True)
    assert (node.sy, node.sx, node.ph, node.pw) == (3, 3, 0, 0)
    assert node.cover_all is False and node.return_indices is True


@pytest.mark.parametrize("make", [
    lambda: MaxPoolingND(3, (3, 2, 1), (2, 1, 1), (1, 0, 0)),
    lambda: AveragePoolingND(3, (3, 2, 1), (2, 1, 1), (1, 0, 0)),
    lambda: UnpoolingND(3, (3, 2, 1), (2, 1, 1), (1, 0, 0)),
], ids=["max", "average", "unpooling"])
def test_nd_nodes_expose_the_window_as_chainers_attributes(make):
    node = make()
    assert isinstance(node, _PoolingND)
    assert (node.ndim, node.ksize, node.stride, node.pad) == (3, (3, 2, 1), (2, 1, 1), (1, 0, 0))
    assert node.is_cudnn_used is False


@pytest.mark.parametrize("make", [
    lambda: Pooling2D(0),
    lambda: Pooling2D(2, pad=-1),
    lambda: _PoolingND(2, (2, 2, 2)),
    lambda: _PoolingND(0, 2),
], ids=["zero-ksize", "negative-pad", "ksize-length", "no-spatial-axis"])
def test_bases_reject_bad_windows_with_value_error(make):
    with pytest.raises(ValueError):
        make()


def test_nd_base_type_check_wants_one_non_empty_float_array_of_its_ndim():
    class Identity(_PoolingND):
        def forward(self, inputs):
            return inputs[0].copy(),

    Identity(2, 2).apply((numpy.ones((1, 1, 2, 2), numpy.float32),))
    for bad in (numpy.ones((1, 1, 2), numpy.float32), numpy.ones((1, 1, 2, 2), numpy.int32),
                numpy.ones((0, 1, 2, 2), numpy.float32)):
        with pytest.raises(type_check.InvalidType):
            Identity(2, 2).apply((bad,))
