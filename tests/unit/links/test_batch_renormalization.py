"""BatchRenormalization link: persistents through save/load, fine-tuning, missing gamma."""

from __future__ import annotations

import numpy

import chainer_compat
from chainer_compat import serializers
from chainer_compat.links.normalization.batch_renormalization import BatchRenormalization


def test_statistics_update_and_round_trip(tmp_path):
    link = BatchRenormalization(3, rmax=3.0, dmax=1.0, decay=0.5)
    x = numpy.random.default_rng(0).standard_normal((6, 3)).astype(numpy.float32) + 2
    with chainer_compat.using_config("train", True):
        link(x)
    numpy.testing.assert_allclose(link.avg_mean, 0.5 * x.mean(axis=0), rtol=1e-5)
    numpy.testing.assert_allclose(link.avg_var, 0.5 + 0.5 * x.var(axis=0, ddof=1), rtol=1e-5)
    path = tmp_path / "brn.npz"
    serializers.save_npz(str(path), link)
    loaded = BatchRenormalization(3)
    serializers.load_npz(str(path), loaded)
    numpy.testing.assert_array_equal(loaded.avg_mean, link.avg_mean)
    numpy.testing.assert_array_equal(loaded.avg_var, link.avg_var)


def test_finetune_counts_batches_and_averages():
    link = BatchRenormalization(2, rmax=10.0, dmax=10.0)
    rng = numpy.random.default_rng(1)
    batches = [rng.standard_normal((4, 2)).astype(numpy.float32) for _ in range(3)]
    with chainer_compat.using_config("train", True):
        for batch in batches:
            link(batch, finetune=True)
    assert link.N == 3
    numpy.testing.assert_allclose(
        link.avg_mean, numpy.mean([b.mean(axis=0) for b in batches], axis=0), rtol=1e-5)


def test_without_gamma_and_beta_uses_ones_and_zeros():
    link = BatchRenormalization(2, use_gamma=False, use_beta=False)
    assert link.gamma is None and link.beta is None
    x = numpy.random.default_rng(2).standard_normal((5, 2)).astype(numpy.float32)
    with chainer_compat.using_config("train", False):
        y = link(x)
    numpy.testing.assert_allclose(y.array, x / numpy.sqrt(1 + 2e-5), rtol=1e-6)
