"""DecorrelatedBatchNormalization link: statistics through save/load, recomputation."""

from __future__ import annotations

import numpy

import chainer_compat
from chainer_compat import serializers
from chainer_compat.links.normalization.decorrelated_batch_normalization import (
    DecorrelatedBatchNormalization,
)


def test_statistics_round_trip(tmp_path):
    link = DecorrelatedBatchNormalization(4, groups=2, decay=0.5)
    x = numpy.random.default_rng(0).standard_normal((10, 4)).astype(numpy.float32)
    with chainer_compat.using_config("train", True):
        y = link(x)
    assert y.shape == x.shape
    assert not numpy.allclose(link.avg_projection, numpy.eye(2))
    path = tmp_path / "dbn.npz"
    serializers.save_npz(str(path), link)
    loaded = DecorrelatedBatchNormalization(4, groups=2)
    serializers.load_npz(str(path), loaded)
    numpy.testing.assert_array_equal(loaded.avg_mean, link.avg_mean)
    numpy.testing.assert_array_equal(loaded.avg_projection, link.avg_projection)


def test_recomputed_forward_leaves_statistics_alone():
    link = DecorrelatedBatchNormalization(2, groups=1)
    x = numpy.random.default_rng(1).standard_normal((6, 2)).astype(numpy.float32)
    with chainer_compat.using_config("train", True), \
            chainer_compat.using_config("in_recomputing", True):
        link(x, finetune=True)
    assert link.N == 0
    numpy.testing.assert_array_equal(link.avg_mean, numpy.zeros((1, 2), numpy.float32))
