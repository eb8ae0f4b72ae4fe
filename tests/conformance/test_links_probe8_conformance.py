"""Chainer-visible behaviour found by probing links against Chainer 7.8.1: the exception types
of Bilinear's shape checks and of Scale's and Bias's input-count checks, Convolution2D's layout
attributes, DecorrelatedBatchNormalization loading statistics saved before Chainer v7 (and
``fix_avg_mean``/``fix_avg_projection``), and hierarchical_softmax's ``TreeParser``. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
links = importlib.import_module(chainer.__name__ + ".links")


def _ones(*shape: int) -> numpy.ndarray:
    return numpy.ones(shape, dtype=numpy.float32)


@pytest.mark.parametrize("nobias, initialW, initial_bias", [
    (True, _ones(3, 3, 4), None),
    (False, _ones(3, 3, 4), (_ones(2, 4), _ones(3, 4), _ones(4))),
    (False, _ones(2, 3, 4), (_ones(3, 4), _ones(3, 4), _ones(4))),
    (False, _ones(2, 3, 4), (_ones(2, 4), _ones(4, 4), _ones(4))),
    (False, _ones(2, 3, 4), (_ones(2, 4), _ones(3, 4), _ones(5))),
])
def test_bilinear_wrongly_shaped_array_initializer_raises_assertion_error(
        nobias, initialW, initial_bias):
    with pytest.raises(AssertionError):
        links.Bilinear(2, 3, 4, nobias, initialW, initial_bias)


def test_bilinear_correctly_shaped_array_initializers_are_copied():
    W, V1, V2, b = _ones(2, 3, 4) * 2, _ones(2, 4) * 3, _ones(3, 4) * 4, _ones(4) * 5
    link = links.Bilinear(2, 3, 4, False, W, (V1, V2, b))
    for param, expected in ((link.W, W), (link.V1, V1), (link.V2, V2), (link.b, b)):
        numpy.testing.assert_array_equal(param.array, expected)


def _scale_and_bias_cases():
    x, y = _ones(3, 2, 3), _ones(2)
    return [
        (lambda: links.Scale(1, (2,)), (x, y)),
        (lambda: links.Scale(1, None), (x,)),
        (lambda: links.Bias(1, (2,)), (x, y)),
        (lambda: links.Bias(1, None), (x,)),
    ]


@pytest.mark.parametrize("make, inputs", _scale_and_bias_cases())
def test_scale_and_bias_wrong_input_count_in_debug_mode_raise_assertion_error(make, inputs):
    link = make()
    with chainer.using_config("debug", True):
        with pytest.raises(AssertionError):
            link(*inputs)


@pytest.mark.parametrize("make, inputs", _scale_and_bias_cases())
def test_scale_and_bias_wrong_input_count_raise_value_error(make, inputs):
    link = make()
    with chainer.using_config("debug", False):
        with pytest.raises(ValueError):
            link(*inputs)


@pytest.mark.parametrize("args", [(3, 2, 3), (None, 2, 3), (2, 3)])
def test_convolution_2d_has_channel_first_layout_attributes(args):
    link = links.Convolution2D(*args)
    assert link.cudnn_fast is False
    assert link.x_layout is None
    y = link(_ones(1, 3, 4, 4))
    assert y.shape == (1, 2, 2, 2)


def _save_statistics(path, avg_mean, avg_projection):
    numpy.savez(path, avg_mean=avg_mean, avg_projection=avg_projection, N=numpy.asarray(0))


def test_decorrelated_batch_normalization_loads_pre_v7_statistics_into_every_group(tmp_path):
    rng = numpy.random.RandomState(0)
    mean = rng.rand(2).astype(numpy.float32)
    projection = rng.rand(2, 2).astype(numpy.float32)
    path = str(tmp_path / "old.npz")
    _save_statistics(path, mean, projection)
    link = links.DecorrelatedBatchNormalization(4, groups=2)
    with pytest.warns(UserWarning, match="old DecorrelatedBatchNormalization"):
        chainer.serializers.load_npz(path, link)
    assert link.avg_mean.shape == (2, 2) and link.avg_projection.shape == (2, 2, 2)
    for group in range(2):
        numpy.testing.assert_array_equal(link.avg_mean[group], mean)
        numpy.testing.assert_array_equal(link.avg_projection[group], projection)


def test_decorrelated_batch_normalization_loads_pre_v7_statistics_of_one_group(tmp_path):
    path = str(tmp_path / "old.npz")
    mean = numpy.arange(3, dtype=numpy.float32)
    _save_statistics(path, mean, numpy.eye(3, dtype=numpy.float32) * 2)
    link = links.DecorrelatedBatchNormalization(3, groups=1)
    chainer.serializers.load_npz(path, link)
    numpy.testing.assert_array_equal(link.avg_mean, mean[None])
    numpy.testing.assert_array_equal(link.avg_projection, numpy.eye(3)[None] * 2)


def test_decorrelated_batch_normalization_round_trips_current_statistics(tmp_path):
    source = links.DecorrelatedBatchNormalization(4, groups=2)
    source(numpy.random.RandomState(1).rand(5, 4, 3).astype(numpy.float32))
    path = str(tmp_path / "new.npz")
    chainer.serializers.save_npz(path, source)
    target = links.DecorrelatedBatchNormalization(4, groups=2)
    chainer.serializers.load_npz(path, target)
    numpy.testing.assert_array_equal(target.avg_mean, source.avg_mean)
    numpy.testing.assert_array_equal(target.avg_projection, source.avg_projection)


def test_decorrelated_batch_normalization_rejects_statistics_of_other_ranks(tmp_path):
    path = str(tmp_path / "bad.npz")
    _save_statistics(path, numpy.zeros((1, 2, 2), numpy.float32),
                     numpy.zeros((2, 2, 2), numpy.float32))
    with pytest.raises(ValueError):
        chainer.serializers.load_npz(path, links.DecorrelatedBatchNormalization(4, groups=2))


def test_fix_avg_mean_and_projection_broadcast_pre_v7_shapes():
    dbn = importlib.import_module(
        chainer.__name__ + ".links.normalization.decorrelated_batch_normalization")
    mean = numpy.arange(3, dtype=numpy.float32)
    projection = numpy.arange(9, dtype=numpy.float32).reshape(3, 3)
    current_mean = numpy.zeros((2, 3), numpy.float32)
    assert dbn.fix_avg_mean(current_mean, 2) is current_mean
    with pytest.warns(UserWarning, match="old DecorrelatedBatchNormalization"):
        fixed_mean = dbn.fix_avg_mean(mean, 2)
    numpy.testing.assert_array_equal(fixed_mean, numpy.stack([mean, mean]))
    fixed_projection = dbn.fix_avg_projection(projection, 1)
    numpy.testing.assert_array_equal(fixed_projection, projection[None])
    with pytest.raises(ValueError):
        dbn.fix_avg_projection(numpy.zeros(3, numpy.float32), 2)


def _reference_paths(node, path=(), code=(), counter=None, out=None):
    """Preorder walk: every internal node gets the next id; left is +1, right -1."""
    counter = [0] if counter is None else counter
    out = {} if out is None else out
    if not isinstance(node, tuple):
        out[node] = (list(path), list(code))
        return out
    node_id = counter[0]
    counter[0] += 1
    _reference_paths(node[0], path + (node_id,), code + (1.0,), counter, out)
    _reference_paths(node[1], path + (node_id,), code + (-1.0,), counter, out)
    return out


@pytest.mark.parametrize("tree", [((0, (1, 2)), (3, 4)), (((0, 1), 2), ((3, 4), (5, 6))), (0, 1)])
def test_tree_parser_records_paths_and_codes_of_every_word(tree):
    hierarchical_softmax = importlib.import_module(
        chainer.__name__ + ".links.loss.hierarchical_softmax")
    parser = hierarchical_softmax.TreeParser(numpy.float32)
    parser.parse(tree)
    expected = _reference_paths(tree)
    assert parser.size() == len(
        {node for path, _ in expected.values() for node in path})
    paths, codes = parser.get_paths(), parser.get_codes()
    assert sorted(paths) == sorted(expected) == sorted(codes)
    for word, (path, code) in expected.items():
        assert paths[word].dtype == numpy.int32 and codes[word].dtype == numpy.float32
        numpy.testing.assert_array_equal(paths[word], path)
        numpy.testing.assert_array_equal(codes[word], code)


def test_tree_parser_rejects_a_node_without_two_children():
    hierarchical_softmax = importlib.import_module(
        chainer.__name__ + ".links.loss.hierarchical_softmax")
    with pytest.raises(ValueError):
        hierarchical_softmax.TreeParser(numpy.float32).parse(((0, 1, 2), 3))


@pytest.mark.parametrize("tree", [((0, 1), ((2, 3), 4)), ((0, (1, 2)), 3)])
def test_binary_hierarchical_softmax_function_matches_the_link(tree):
    hierarchical_softmax = importlib.import_module(
        chainer.__name__ + ".links.loss.hierarchical_softmax")
    rng = numpy.random.RandomState(2)
    link = links.BinaryHierarchicalSoftmax(3, tree)
    link.cleargrads()
    x = rng.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    t = numpy.array([0, 2, 1, 3], numpy.int32)
    x_expected = chainer.Variable(x)
    expected = link(x_expected, t)
    expected.backward()

    func = hierarchical_softmax.BinaryHierarchicalSoftmaxFunction(tree, numpy.float32)
    assert func.parser_size == link.W.shape[0]
    x_var = chainer.Variable(x)
    W = chainer.Variable(link.W.array.copy())  # noqa: N806
    loss = func(x_var, t, W)
    loss.backward()
    assert loss.shape == () and loss.dtype == numpy.float32
    numpy.testing.assert_allclose(loss.array, expected.array, rtol=1e-5)
    numpy.testing.assert_allclose(W.grad, link.W.grad, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(x_var.grad, x_expected.grad, rtol=1e-5, atol=1e-6)


def test_binary_hierarchical_softmax_function_tables_follow_the_tree_parser():
    hierarchical_softmax = importlib.import_module(
        chainer.__name__ + ".links.loss.hierarchical_softmax")
    tree = (((0, 1), 2), ((3, 4), (5, 6)))
    parser = hierarchical_softmax.TreeParser(numpy.float32)
    parser.parse(tree)
    func = hierarchical_softmax.BinaryHierarchicalSoftmaxFunction(tree, numpy.float32)
    for word in range(7):
        begin, end = func.begins[word], func.begins[word + 1]
        numpy.testing.assert_array_equal(func.paths[begin:end], parser.get_paths()[word])
        numpy.testing.assert_array_equal(func.codes[begin:end], parser.get_codes()[word])
