"""BinaryHierarchicalSoftmax and negative_sampling on the CPU give exactly the bits of a plain
per-example loop in Chainer 7.8.1's arithmetic order (loss in each reduce mode, gx and gW, in
float16/32/64). Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

TARGET = os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat")
chainer = importlib.import_module(TARGET)
links = importlib.import_module(f"{TARGET}.links")
negative_sampling = importlib.import_module(f"{TARGET}.functions").negative_sampling

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _assert_same_bits(actual_arrays, expected_arrays):
    for actual, wanted in zip(actual_arrays, expected_arrays, strict=True):
        assert actual.dtype == wanted.dtype
        numpy.testing.assert_array_equal(actual, wanted)


def _tree_paths(tree):
    paths, counter = {}, [0]

    def walk(node, nodes, signs):
        if not isinstance(node, tuple):
            paths[node] = (nodes, signs)
            return
        node_id = counter[0]
        counter[0] += 1
        walk(node[0], nodes + [node_id], signs + [1.0])
        walk(node[1], nodes + [node_id], signs + [-1.0])

    walk(tree, [], [])
    return paths


def _hierarchical_reference(tree, x, t, W, gloss, codes_dtype=None):  # noqa: N803
    paths = _tree_paths(tree)
    loss = x.dtype.type(0)  # a wider score makes it wider from the first example on
    gx, gW = numpy.zeros_like(x), numpy.zeros_like(W)  # noqa: N806
    for i, word in enumerate(t):
        nodes, signs = paths.get(int(word), ([], []))
        nodes = numpy.array(nodes, numpy.int32)
        signs = numpy.array(signs, codes_dtype or x.dtype)
        rows = W[nodes]
        scores = rows.dot(x[i]) * signs
        loss += numpy.sum(numpy.logaddexp(0.0, -scores))
        # NumPy 1 (Chainer's) took the 0-d gloss for a scalar: -gloss * signs is in the
        # signs' dtype when gloss fits it. Spelled out, so that either NumPy gives Chainer's.
        coefficient_dtype = numpy.promote_types(numpy.min_scalar_type(-gloss), signs.dtype)
        g = (numpy.asarray(-gloss).astype(coefficient_dtype) * signs.astype(coefficient_dtype)
             / (1.0 + numpy.exp(scores)))
        gx[i] = g.dot(rows)
        gW[nodes] += g[:, None] * x[i][None, :]
    return numpy.array(loss), gx, gW


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("use_function", [False, True])
def test_hierarchical_softmax_bits(dtype, use_function):
    rng = numpy.random.RandomState(0)
    # Paths of many lengths; word 3 is not in the tree and costs nothing.
    counts = {word: int(500 / (word + 1) ** 1.1) + 1 for word in range(60) if word != 3}
    tree = links.BinaryHierarchicalSoftmax.create_huffman_tree(counts)
    with chainer.using_config("dtype", dtype):
        link = links.BinaryHierarchicalSoftmax(10, tree)
    link.W.array[...] = rng.uniform(-1, 1, link.W.shape)
    W = link.W.array.copy()  # noqa: N806
    x = rng.uniform(-1, 1, (50, 10)).astype(dtype)
    t = rng.randint(0, 60, 50).astype(numpy.int32)
    gloss = numpy.array(0.7, dtype)
    x_var = chainer.Variable(x)
    if use_function:
        W_var = chainer.Variable(W.copy())  # noqa: N806
        function = links.loss.hierarchical_softmax.BinaryHierarchicalSoftmaxFunction(tree, dtype)
        loss = function(x_var, t, W_var)
    else:
        W_var = link.W  # noqa: N806
        link.cleargrads()  # a new parameter's grad holds NaN until cleared
        loss = link(x_var, t)
    loss.grad = gloss
    loss.backward()
    expected = _hierarchical_reference(tree, x, t, W, gloss)
    _assert_same_bits((loss.array, x_var.grad, W_var.grad), expected)


@pytest.mark.parametrize(("x_dtype", "codes_dtype"), [
    (numpy.float32, numpy.float64), (numpy.float16, numpy.float32),
    (numpy.float16, numpy.float64), (numpy.float32, numpy.float16)])
@pytest.mark.parametrize("use_function", [False, True])
@pytest.mark.parametrize("empty", [False, True])
def test_hierarchical_softmax_computes_in_the_wider_of_x_and_its_codes(x_dtype, codes_dtype,
                                                                       use_function, empty):
    # The link's dtype is its codes' (Chainer: BinaryHierarchicalSoftmax(..., dtype=)); each
    # score is multiplied by its code, so float64 codes make a float64 loss from float32 x
    # (an empty batch's stays in x's dtype: Chainer's running total starts there).
    rng = numpy.random.RandomState(1)
    counts = {word: int(300 / (word + 1) ** 1.1) + 1 for word in range(30)}
    tree = links.BinaryHierarchicalSoftmax.create_huffman_tree(counts)
    with chainer.using_config("dtype", x_dtype):
        link = links.BinaryHierarchicalSoftmax(6, tree, dtype=codes_dtype)
    link.W.array[...] = rng.uniform(-1, 1, link.W.shape)
    W = link.W.array.copy()  # noqa: N806
    batch = 0 if empty else 20
    x = rng.uniform(-1, 1, (batch, 6)).astype(x_dtype)
    t = rng.randint(0, 30, batch).astype(numpy.int32)
    x_var = chainer.Variable(x)
    if use_function:
        W_var = chainer.Variable(W.copy())  # noqa: N806
        function = links.loss.hierarchical_softmax.BinaryHierarchicalSoftmaxFunction(
            tree, codes_dtype)
        loss = function(x_var, t, W_var)
    else:
        W_var = link.W  # noqa: N806
        link.cleargrads()
        loss = link(x_var, t)
    wide = numpy.dtype(x_dtype) if empty else numpy.result_type(x_dtype, codes_dtype)
    assert loss.dtype == wide
    gloss = numpy.array(0.7, wide)
    loss.grad = gloss
    loss.backward()
    expected = _hierarchical_reference(tree, x, t, W, gloss, codes_dtype)
    _assert_same_bits((loss.array, x_var.grad, W_var.grad), expected)


def _negative_sampling_reference(x, t, W, samples, gy, reduce):  # noqa: N803
    kept = t != -1
    wide = numpy.float32 if x.dtype == numpy.float16 else x.dtype
    scores = numpy.einsum("ij,ikj->ik", x[kept].astype(wide), W[samples[kept]].astype(wide))
    scores[:, 0] *= -1
    losses = numpy.zeros(len(x), wide)
    losses[kept] = numpy.logaddexp(scores, 0).sum(axis=1)
    loss = numpy.array(losses.sum(), wide) if reduce == "sum" else losses
    gx, gW = numpy.zeros_like(x), numpy.zeros_like(W)  # noqa: N806
    for i in numpy.flatnonzero(kept):
        rows = W[samples[i]]
        f = rows.dot(x[i])
        f[0] *= -1
        g = (gy if reduce == "sum" else gy[i]) / (1 + numpy.exp(-f))
        g[0] *= -1
        gx[i] = g.dot(rows)
        for row, step_grad in zip(samples[i], g):
            gW[row] += step_grad * x[i]
    return loss.astype(x.dtype), gx, gW


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", ["sum", "no"])
def test_negative_sampling_bits_with_a_walker_alias_sampler(dtype, reduce):
    rng = numpy.random.RandomState(1)
    vocabulary, size, n = 30, 10, 50
    sampler = chainer.utils.WalkerAlias(numpy.arange(1, vocabulary + 1) ** 0.75)
    x = rng.uniform(-1, 1, (n, size)).astype(dtype)
    W = rng.uniform(-1, 1, (vocabulary, size)).astype(dtype)  # noqa: N806
    t = rng.randint(0, vocabulary, n).astype(numpy.int32)
    t[::6] = -1
    gy = rng.uniform(-1, 1, () if reduce == "sum" else (n,)).astype(dtype)
    x_var, W_var = chainer.Variable(x), chainer.Variable(W)  # noqa: N806
    numpy.random.seed(3)
    loss, samples = negative_sampling(x_var, t, W_var, sampler.sample, 5, reduce=reduce,
                                      return_samples=True)
    numpy.random.seed(3)
    assert samples.dtype == sampler.sample((n, 6)).dtype
    loss.grad = gy
    loss.backward()
    expected = _negative_sampling_reference(x, t, W, samples, gy, reduce)
    _assert_same_bits((loss.array, x_var.grad, W_var.grad), expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", ["sum", "no"])
def test_negative_sampling_bits_when_rows_repeat(dtype, reduce):
    rng = numpy.random.RandomState(2)
    n, size, vocabulary = 40, 7, 12  # few ids: rows repeat within and across examples
    x = rng.uniform(-1, 1, (n, size)).astype(dtype)
    W = rng.uniform(-1, 1, (vocabulary, size)).astype(dtype)  # noqa: N806
    t = rng.randint(0, vocabulary, n).astype(numpy.int32)
    t[::5] = -1
    drawn = rng.randint(0, vocabulary, (n, 6)).astype(numpy.int32)
    gy = rng.uniform(-1, 1, () if reduce == "sum" else (n,)).astype(dtype)
    x_var, W_var = chainer.Variable(x), chainer.Variable(W)  # noqa: N806
    loss, samples = negative_sampling(x_var, t, W_var, lambda shape: drawn.copy(), 5,
                                      reduce=reduce, return_samples=True)
    loss.grad = gy
    loss.backward()
    expected = _negative_sampling_reference(x, t, W, samples, gy, reduce)
    _assert_same_bits((loss.array, x_var.grad, W_var.grad), expected)


def test_walker_alias_draws_follow_the_global_seed():
    sampler = chainer.utils.WalkerAlias([1.0, 2.0, 3.0, 4.0])
    numpy.random.seed(11)
    first = sampler.sample((5, 6))
    numpy.random.seed(11)
    numpy.testing.assert_array_equal(sampler.sample((5, 6)), first)
    assert first.min() >= 0 and first.max() < 4
