"""More loss functions and their links as Chainer 7.8.1 users see them: crf1d/argmax_crf1d/CRF1d,
negative_sampling/NegativeSampling/WalkerAlias, decov and cross_covariance (values against NumPy
references, shapes, dtypes, quirks, errors). Set CHAINER_CONFORMANCE_TARGET=chainer to run this
file on Chainer itself.
Also black_out/BlackOut, connectionist_temporal_classification, the discriminative loss and
BinaryHierarchicalSoftmax.
"""

from __future__ import annotations

import heapq
import importlib
import itertools
import os

import numpy
import pytest

TARGET = os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat")
chainer = importlib.import_module(TARGET)
F = importlib.import_module(f"{TARGET}.functions")


def _module(path):
    return importlib.import_module(f"{TARGET}.{path}")


crf1d_module = _module("functions.loss.crf1d")
negative_sampling_module = _module("functions.loss.negative_sampling")
decov = _module("functions.loss.decov").decov
black_out = _module("functions.loss.black_out").black_out
ctc = _module("functions.loss.ctc").connectionist_temporal_classification
BlackOut = _module("links.loss.black_out").BlackOut
discriminative = _module("functions.loss.discriminative_loss")
BinaryHierarchicalSoftmax = _module("links.loss.hierarchical_softmax").BinaryHierarchicalSoftmax
cross_covariance = _module("functions.loss.cross_covariance").cross_covariance
CRF1d = _module("links.loss.crf1d").CRF1d
NegativeSampling = _module("links.loss.negative_sampling").NegativeSampling
WalkerAlias = _module("utils.walker_alias").WalkerAlias
InvalidType = _module("utils.type_check").InvalidType

K = 3


def _path_score(cost, emissions, path):
    return (sum(emissions[t, y] for t, y in enumerate(path))
            + sum(cost[a, b] for a, b in zip(path[:-1], path[1:])))


def _all_paths(length):
    return list(itertools.product(range(K), repeat=length))


def _crf_problem(lengths=(3, 2, 2, 1), seed=0):
    rng = numpy.random.RandomState(seed)
    cost = rng.normal(size=(K, K)).astype(numpy.float32)
    sequences = [rng.normal(size=(n, K)).astype(numpy.float32) for n in lengths]
    labels = [rng.randint(0, K, n).astype(numpy.int32) for n in lengths]
    return cost, sequences, labels


def _time_major(sequences):
    steps = max(len(s) for s in sequences)
    return [numpy.stack([s[t] for s in sequences if len(s) > t]) for t in range(steps)]


@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_crf1d_negative_log_likelihood_by_enumeration(reduce):
    cost, sequences, labels = _crf_problem()
    loss = crf1d_module.crf1d(cost, _time_major(sequences), _time_major(labels), reduce=reduce)
    expected = []
    for emissions, y in zip(sequences, labels):
        scores = [_path_score(cost, emissions, p) for p in _all_paths(len(emissions))]
        expected.append(numpy.logaddexp.reduce(scores) - _path_score(cost, emissions, y))
    expected = numpy.mean(expected) if reduce == "mean" else numpy.array(expected)
    assert loss.dtype == numpy.float32
    assert loss.shape == numpy.shape(expected)
    numpy.testing.assert_allclose(loss.array, expected, rtol=1e-5)


def test_crf1d_invalid_reduce():
    cost, sequences, labels = _crf_problem()
    with pytest.raises(ValueError):
        crf1d_module.crf1d(cost, _time_major(sequences), _time_major(labels), reduce="sum")


def test_argmax_crf1d_by_enumeration():
    cost, sequences, _ = _crf_problem(seed=1)
    score, path = crf1d_module.argmax_crf1d(cost, _time_major(sequences))
    assert isinstance(score, chainer.Variable)
    assert [p.shape for p in path] == [(4,), (3,), (1,)]
    for b, emissions in enumerate(sequences):
        best = max(_all_paths(len(emissions)), key=lambda p: _path_score(cost, emissions, p))
        assert tuple(int(path[t][b]) for t in range(len(emissions))) == best
        numpy.testing.assert_allclose(score.array[b], _path_score(cost, emissions, best),
                                      rtol=1e-5)


def test_crf1d_link_defaults_and_transposed_calls():
    link = CRF1d(K)
    assert link.cost.shape == (K, K)
    numpy.testing.assert_array_equal(link.cost.array, 0)
    cost, sequences, labels = _crf_problem(lengths=(1, 3, 2), seed=2)
    link = CRF1d(K, initial_cost=cost)
    losses = link(sequences, labels, reduce="no", transpose=True)
    # Losses come out longest first: sequences 1, 2, 0.
    expected = []
    for b in (1, 2, 0):
        emissions = sequences[b]
        scores = [_path_score(cost, emissions, p) for p in _all_paths(len(emissions))]
        expected.append(numpy.logaddexp.reduce(scores)
                        - _path_score(cost, emissions, labels[b]))
    numpy.testing.assert_allclose(losses.array, expected, rtol=1e-5)
    score, paths = link.argmax(sequences, transpose=True)
    assert [p.shape for p in paths] == [(1,), (3,), (2,)]  # the caller's order
    best_scores = []
    for emissions, path in zip(sequences, paths):
        best = max(_all_paths(len(emissions)), key=lambda p: _path_score(cost, emissions, p))
        assert tuple(int(label) for label in path) == best
        best_scores.append(_path_score(cost, emissions, best))
    # Scores stay in the longest-first order.
    numpy.testing.assert_allclose(score.array, [best_scores[i] for i in (1, 2, 0)], rtol=1e-5)


SAMPLES = numpy.array([[0, 2, 3], [4, 4, 1], [0, 0, 2]], numpy.int32)


def test_negative_sampling_with_a_fixed_sampler():
    rng = numpy.random.RandomState(0)
    x = rng.normal(size=(3, 4)).astype(numpy.float32)
    W = rng.normal(size=(6, 4)).astype(numpy.float32)  # noqa: N806
    t = numpy.array([1, -1, 5], numpy.int32)
    requested = []

    def sampler(shape):
        requested.append(shape)
        return SAMPLES.copy()

    loss, samples = negative_sampling_module.negative_sampling(
        x, t, W, sampler, 2, reduce="no", return_samples=True)
    assert requested == [(3, 3)]
    numpy.testing.assert_array_equal(samples[:, 0], t)
    numpy.testing.assert_array_equal(samples[:, 1:], SAMPLES[:, 1:])
    expected = []
    for i, label in enumerate(t):
        if label == -1:
            expected.append(0.0)
            continue
        scores = W[[label, *SAMPLES[i, 1:]]].astype(numpy.float64) @ x[i]
        expected.append(numpy.logaddexp(0, -scores[0]) + numpy.logaddexp(0, scores[1:]).sum())
    assert loss.shape == (3,)
    assert loss.dtype == numpy.float32
    numpy.testing.assert_allclose(loss.array, expected, rtol=1e-5)
    total = negative_sampling_module.negative_sampling(x, t, W, lambda s: SAMPLES.copy(), 2)
    assert total.shape == ()
    numpy.testing.assert_allclose(total.array, sum(expected), rtol=1e-5)
    with pytest.raises(ValueError):
        negative_sampling_module.negative_sampling(x, t, W, sampler, 2, reduce="mean")
    with pytest.raises(InvalidType):
        negative_sampling_module.negative_sampling(x, t.astype(numpy.int64), W, sampler, 2)


def test_negative_sampling_link():
    link = NegativeSampling(3, [1, 2, 3, 4], 2)
    assert link.W.shape == (4, 3)
    assert link.W.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.W.array, 0)
    assert isinstance(link.sampler, WalkerAlias)
    loss = link(numpy.ones((2, 3), numpy.float32), numpy.array([0, 3], numpy.int32))
    numpy.testing.assert_allclose(loss.array, 6 * numpy.log(2), rtol=1e-6)


def test_walker_alias_frequencies_and_types():
    sampler = WalkerAlias([1.0, 0.0, 3.0])
    numpy.random.seed(0)
    samples = sampler.sample((3, 40000))
    assert samples.shape == (3, 40000)
    assert samples.dtype == numpy.int32
    frequencies = numpy.bincount(samples.ravel(), minlength=3) / samples.size
    numpy.testing.assert_allclose(frequencies, [0.25, 0, 0.75], atol=5e-3)
    assert sampler.threshold.dtype == numpy.float32
    assert sampler.values.dtype == numpy.int32
    assert not sampler.use_gpu


def _covariance(y, z):
    y = y.astype(numpy.float64)
    z = z.astype(numpy.float64)
    return (y - y.mean(0)).T @ (z - z.mean(0)) / len(y)


def test_decov_and_cross_covariance():
    rng = numpy.random.RandomState(0)
    h = rng.normal(size=(6, 3)).astype(numpy.float32)
    z = rng.normal(size=(6, 2)).astype(numpy.float32)
    covariance = _covariance(h, h)
    numpy.fill_diagonal(covariance, 0)
    numpy.testing.assert_allclose(decov(h).array, 0.5 * (covariance ** 2).sum(), rtol=1e-5)
    numpy.testing.assert_allclose(decov(h, reduce="no").array, covariance, rtol=1e-5,
                                  atol=1e-7)
    cross = _covariance(h, z)
    numpy.testing.assert_allclose(cross_covariance(h, z).array, 0.5 * (cross ** 2).sum(),
                                  rtol=1e-5)
    assert cross_covariance(h, z, reduce="no").shape == (3, 2)
    assert decov(h).dtype == numpy.float32
    with pytest.raises(ValueError):
        decov(h, reduce="mean")
    with pytest.raises(ValueError):
        cross_covariance(h, z, reduce="mean")
    with pytest.raises(InvalidType):
        decov(h[None])
    with pytest.raises(InvalidType):
        cross_covariance(h, z[:5])


def test_black_out_against_reference():
    rng = numpy.random.RandomState(0)
    x = rng.normal(size=(3, 4)).astype(numpy.float32)
    W = rng.normal(size=(6, 4)).astype(numpy.float32)  # noqa: N806
    t = numpy.array([1, 2, 5], numpy.int32)
    samples = numpy.array([[0, 2], [4, 1], [0, 3]], numpy.int32)
    expected = []
    for i in range(3):
        positive = float(W[t[i]] @ x[i])
        negatives = W[samples[i]].astype(numpy.float64) @ x[i]
        log_z = numpy.logaddexp.reduce([positive, *negatives])
        expected.append(-(positive - log_z + numpy.log1p(-numpy.exp(negatives - log_z)).sum()))
    losses = black_out(x, t, W, samples, reduce="no")
    assert losses.shape == (3,)
    numpy.testing.assert_allclose(losses.array, expected, rtol=1e-5)
    numpy.testing.assert_allclose(black_out(x, t, W, samples).array, numpy.mean(expected),
                                  rtol=1e-5)


def test_black_out_link():
    link = BlackOut(3, [1, 2, 3, 4], 2)
    assert link.W.shape == (4, 3)
    assert numpy.isnan(link.W.array).all()
    assert isinstance(link.sampler, WalkerAlias)
    link.W.array[...] = 0
    link.sample_data = numpy.array([[0, 2], [3, 1]], numpy.int32)
    loss = link(numpy.ones((2, 3), numpy.float32), numpy.array([1, 0], numpy.int32))
    numpy.testing.assert_allclose(loss.array, numpy.log(3) - 2 * numpy.log(2 / 3), rtol=1e-6)


def _collapse(alignment, blank):
    merged = [s for i, s in enumerate(alignment) if i == 0 or s != alignment[i - 1]]
    return tuple(s for s in merged if s != blank)


@pytest.mark.parametrize("blank", [0, 2])
def test_ctc_by_alignment_enumeration(blank):
    rng = numpy.random.RandomState(blank)
    frames = rng.normal(size=(4, 2, 3)).astype(numpy.float32)
    labels = numpy.array([[1, 1], [1, 0]], numpy.int32) if blank == 2 else \
        numpy.array([[1, 2], [2, 2]], numpy.int32)
    input_length = numpy.array([4, 3], numpy.int32)
    label_length = numpy.array([2, 1], numpy.int32)
    probs = numpy.exp(frames.astype(numpy.float64))
    probs /= probs.sum(axis=2, keepdims=True)
    expected = []
    for b in range(2):
        target = tuple(int(v) for v in labels[b, :label_length[b]])
        total = sum(numpy.prod([probs[i, b, s] for i, s in enumerate(alignment)])
                    for alignment in itertools.product(range(3), repeat=int(input_length[b]))
                    if _collapse(alignment, blank) == target)
        expected.append(-numpy.log(total))
    losses = ctc(list(frames), labels, blank, input_length, label_length, reduce="no")
    assert losses.shape == (2,)
    assert losses.dtype == numpy.float32
    numpy.testing.assert_allclose(losses.array, expected, rtol=1e-5)
    mean = ctc(list(frames), labels, blank, input_length, label_length)
    numpy.testing.assert_allclose(mean.array, numpy.mean(expected), rtol=1e-5)


def test_ctc_errors():
    frames = numpy.zeros((2, 1, 3), numpy.float32)
    labels = numpy.ones((1, 1), numpy.int32)
    with pytest.raises(TypeError):
        ctc(frames, labels, 0)
    with pytest.raises(TypeError):
        ctc(list(frames), labels, 0.0)
    with pytest.raises(ValueError):
        ctc(list(frames), labels, 0, reduce="sum")


@pytest.mark.parametrize("n_batch", [1, 3])  # Chainer broadcasts correctly only for N in (1, K)
def test_discriminative_loss_terms(n_batch):
    n_cluster = 3
    rng = numpy.random.RandomState(n_batch)
    embeddings = rng.normal(size=(n_batch, n_cluster, 3, 4)).astype(numpy.float32)
    labels = rng.randint(0, n_cluster + 1, (n_batch, 3, 4)).astype(numpy.int32)
    variance, distance, regularization = \
        discriminative.discriminative_margin_based_clustering_loss(
            embeddings, labels, 0.5, 1.5, n_cluster, norm=1, alpha=1.0, beta=2.0, gamma=0.5)
    means = numpy.zeros((n_cluster, n_batch, n_cluster))
    for k in range(n_cluster):
        for n in range(n_batch):
            member = labels[n] == k + 1
            if member.any():
                means[k, n] = embeddings[n][:, member].mean(axis=1)
    expected_variance = 0.0
    for k in range(n_cluster):
        gaps = [numpy.abs(means[k, n] - embeddings[n, :, h, w]).sum()
                for n in range(n_batch) for h, w in zip(*numpy.nonzero(labels[n] == k + 1))]
        expected_variance += sum(max(g - 0.5, 0) ** 2 for g in gaps) / max(len(gaps), 1)
    expected_variance /= n_cluster
    pairs = [(a, b) for a in range(n_cluster) for b in range(a + 1, n_cluster)]
    expected_distance = sum(max(3.0 - numpy.abs(means[a, n] - means[b, n]).sum(), 0) ** 2
                            for a, b in pairs for n in range(n_batch))
    expected_distance /= len(pairs) * n_batch
    expected_regularization = numpy.abs(means).sum() / (n_cluster * n_batch)
    numpy.testing.assert_allclose(variance.array, expected_variance, rtol=1e-5)
    numpy.testing.assert_allclose(distance.array, 2 * expected_distance, rtol=1e-5)
    numpy.testing.assert_allclose(regularization.array, 0.5 * expected_regularization,
                                  rtol=1e-5)
    with pytest.raises(ValueError):
        discriminative.DiscriminativeMarginBasedClusteringLoss(norm=3)
    with pytest.raises(ValueError):
        discriminative.DiscriminativeMarginBasedClusteringLoss(max_embedding_dim=0)


def _reference_huffman(word_counts):
    # Least count first; ties by the words' order, a merge taking the earlier order.
    queue = [(count, order, word) for order, (word, count) in enumerate(word_counts.items())]
    heapq.heapify(queue)
    while len(queue) > 1:
        first_count, first_order, first = heapq.heappop(queue)
        second_count, second_order, second = heapq.heappop(queue)
        heapq.heappush(queue, (first_count + second_count, min(first_order, second_order),
                               (first, second)))
    return queue[0][2]


@pytest.mark.parametrize("word_counts", [
    {0: 5, 1: 2, 2: 2, 3: 7, 4: 1, 6: 2}, {"a": 1}, {i: 1 for i in range(6)},
    {3: 10, 1: 1, 2: 1}])
def test_huffman_tree_structure(word_counts):
    tree = BinaryHierarchicalSoftmax.create_huffman_tree(word_counts)
    assert tree == _reference_huffman(word_counts)


def _leaf_log_probability(tree, W, x, word):  # noqa: N803
    node_ids = itertools.count()

    def walk(node):
        if not isinstance(node, tuple):
            return 0.0 if node == word else None
        node_id = next(node_ids)  # preorder, left subtree first
        go_left = 1 / (1 + numpy.exp(-float(W[node_id] @ x)))
        left, right = walk(node[0]), walk(node[1])
        if left is not None:
            return numpy.log(go_left) + left
        if right is not None:
            return numpy.log(1 - go_left) + right
        return None

    return walk(tree)


def test_binary_hierarchical_softmax_loss():
    tree = ((0, (3, 1)), (2, (4, 6)))
    link = BinaryHierarchicalSoftmax(3, tree)
    assert link.W.shape == (5, 3)
    assert link.W.dtype == numpy.float32
    assert (numpy.abs(link.W.array) <= 1).all()
    link.W.array[...] = numpy.random.RandomState(0).normal(size=(5, 3))
    x = numpy.random.RandomState(1).normal(size=(4, 3)).astype(numpy.float32)
    t = numpy.array([3, 6, 0, 5], numpy.int32)  # 5 is not in the tree: it costs nothing
    expected = -sum(_leaf_log_probability(tree, link.W.array, x[i], t[i]) or 0.0
                    for i in range(4))
    loss = link(x, t)
    assert loss.shape == ()
    numpy.testing.assert_allclose(loss.array, expected, rtol=1e-5)
    with pytest.raises(ValueError):
        BinaryHierarchicalSoftmax.create_huffman_tree({})
    with pytest.raises(ValueError):
        BinaryHierarchicalSoftmax(3, (0, 1, 2))


def test_crf1d_takes_the_sequence_as_one_time_major_array():
    # xs of shape (T, B, K) is as good as a list of T (B, K) arrays.
    rng = numpy.random.RandomState(0)
    cost = rng.randn(3, 3).astype(numpy.float32)
    xs = rng.randn(4, 2, 3).astype(numpy.float32)
    ys = rng.randint(0, 3, (4, 2)).astype(numpy.int32)
    from_array = crf1d_module.crf1d(cost, xs, ys)
    from_list = crf1d_module.crf1d(cost, list(xs), list(ys))
    numpy.testing.assert_allclose(from_array.array, from_list.array, rtol=1e-6)
    _, path = crf1d_module.argmax_crf1d(cost, xs)
    _, path_from_list = crf1d_module.argmax_crf1d(cost, list(xs))
    numpy.testing.assert_array_equal(numpy.asarray(path), numpy.asarray(path_from_list))


def test_walker_alias_builds_chainers_table():
    # Worked by hand from the construction (ascending masses 0.4, 0.8, 1.2, 1.6 fill the
    # columns; 1.2 tops up column 0, 1.6 columns 1 and 2): the layout that makes a seeded draw
    # give Chainer's samples, which NegativeSampling and BlackOut depend on.
    walker = _module("utils.walker_alias").WalkerAlias([1.0, 2.0, 3.0, 4.0])
    numpy.testing.assert_allclose(walker.threshold, [0.4, 0.8, 0.6, 1.0], rtol=1e-6)
    assert walker.threshold.dtype == numpy.float32
    assert walker.values.tolist() == [0, 2, 1, 3, 2, 3, 3, 0]
    numpy.random.seed(5)
    draws = walker.sample((1000,))
    numpy.random.seed(5)
    points = numpy.random.uniform(0, 1, (1000,)) * 4
    columns = points.astype(numpy.int32)
    expected = walker.values[columns * 2 + (walker.threshold[columns] < points - columns)]
    numpy.testing.assert_array_equal(draws, expected)


def test_black_out_is_chainers_composition_bit_for_bit():
    # Scores as batched matrix products and log(1 - exp(.)), in Chainer's order.
    rng = numpy.random.RandomState(0)
    x_data = rng.standard_normal((5, 8)).astype(numpy.float32)
    w_data = rng.uniform(-1, 1, (12, 8)).astype(numpy.float32)
    t = rng.randint(0, 12, 5).astype(numpy.int32)
    samples = rng.randint(0, 12, (5, 20)).astype(numpy.int32)

    def composed(x, w):
        negative = F.matmul(F.embed_id(samples, w), x[:, :, None])
        negative = F.reshape(negative, negative.shape[:-1])
        positive = F.matmul(F.expand_dims(F.embed_id(t, w), 1), x[:, :, None])
        positive = F.reshape(positive, positive.shape[:-1])
        log_z = F.logsumexp(F.concat([positive, negative]), axis=1)
        log_z_b, negative_b = F.broadcast(F.reshape(log_z, (5, 1)), negative)
        terms = F.log(1 - F.exp(negative_b - log_z_b))
        return -(F.reshape(positive, (5,)) - log_z + F.sum(terms, axis=1))

    results = []
    for function in (lambda x, w: F.black_out(x, t, w, samples, reduce="no"), composed):
        x, w = chainer.Variable(x_data.copy()), chainer.Variable(w_data.copy())
        loss = function(x, w)
        F.sum(loss).backward()
        results.append((loss.array, x.grad, w.grad))
    for ours, reference in zip(*results):
        numpy.testing.assert_array_equal(ours, reference)
