"""discriminative_margin_based_clustering_loss against a loop reference, gradients, errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import functions, gradient_check
from chainer_compat.functions.loss.discriminative_loss import (
    DiscriminativeMarginBasedClusteringLoss,
    discriminative_margin_based_clustering_loss,
)

K = 3


def _norm(x, order, axis=None):
    return numpy.abs(x).sum(axis=axis) if order == 1 else numpy.sqrt((x * x).sum(axis=axis))


def _reference(embeddings, labels, delta_v, delta_d, order):
    n_batch = len(embeddings)
    means = numpy.zeros((K, n_batch, K))
    for k in range(K):
        for n in range(n_batch):
            member = labels[n] == k + 1
            if member.any():
                means[k, n] = embeddings[n][:, member].mean(axis=1)
    variance = 0.0
    for k in range(K):
        total, count = 0.0, 0
        for n in range(n_batch):
            for h, w in zip(*numpy.nonzero(labels[n] == k + 1)):
                gap = _norm(means[k, n] - embeddings[n, :, h, w], order)
                total += max(gap - delta_v, 0) ** 2
                count += 1
        variance += total / max(count, 1)
    variance /= K
    distance, pairs = 0.0, 0
    for a in range(K):
        for b in range(a + 1, K):
            for n in range(n_batch):
                gap = _norm(means[a, n] - means[b, n], order)
                distance += max(2 * delta_d - gap, 0) ** 2
            pairs += 1
    distance /= pairs * n_batch
    regularization = sum(_norm(means[k], order) for k in range(K)) / (K * n_batch)
    return variance, distance, regularization


def _problem(n_batch=2, seed=0):
    rng = numpy.random.RandomState(seed)
    embeddings = rng.normal(size=(n_batch, K, 4, 5))
    labels = rng.randint(0, K + 1, (n_batch, 4, 5)).astype(numpy.int32)
    return embeddings, labels


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("n_batch", [1, 2])
def test_terms_match_the_loop_reference(order, n_batch):
    embeddings, labels = _problem(n_batch)
    terms = discriminative_margin_based_clustering_loss(
        embeddings, labels, 0.5, 1.5, K, norm=order, alpha=2.0, beta=3.0, gamma=0.5)
    expected = _reference(embeddings, labels, 0.5, 1.5, order)
    for term, value, weight in zip(terms, expected, (2.0, 3.0, 0.5)):
        numpy.testing.assert_allclose(term.array, weight * value, rtol=1e-10)


def test_gradients_match_numerical_ones():
    embeddings, labels = _problem(seed=1)

    def loss(embeddings):
        variance, distance, regularization = discriminative_margin_based_clustering_loss(
            embeddings, labels, 0.5, 1.5, K, gamma=0.1)
        return functions.stack([variance, distance, regularization])

    gradient_check.check_backward(loss, embeddings, numpy.random.RandomState(2).normal(size=3),
                                  dtype=numpy.float64, atol=1e-4, rtol=1e-3)


def test_single_cluster_has_no_distance_term():
    embeddings, labels = _problem()
    _, distance, _ = DiscriminativeMarginBasedClusteringLoss(max_embedding_dim=1)(
        embeddings[:, :1], numpy.minimum(labels, 1))
    assert distance == 0


def test_errors():
    with pytest.raises(ValueError, match="^Max number of embeddings has to be positive!"):
        DiscriminativeMarginBasedClusteringLoss(max_embedding_dim=0)
    with pytest.raises(ValueError, match="^For discriminative loss, norm can only be 1 or 2. "
                                         "Obtained the value : 3"):
        DiscriminativeMarginBasedClusteringLoss(norm=3)
    embeddings, labels = _problem()
    with pytest.raises(AssertionError, match="embeddings.shape\\[1\\] must equal"):
        discriminative_margin_based_clustering_loss(embeddings, labels, 0.5, 1.5, K + 1)
