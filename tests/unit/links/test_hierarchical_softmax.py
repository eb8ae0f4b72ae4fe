"""BinaryHierarchicalSoftmax: a normalized distribution over the leaves, a loop reference,
gradients in float64, Huffman trees, errors; BinaryHierarchicalSoftmaxFunction against the same
reference and numerical gradients."""

from __future__ import annotations

import heapq

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check
from chainer_compat.backends.cuda import to_cpu
from chainer_compat.links.loss.hierarchical_softmax import (
    BinaryHierarchicalSoftmax,
    BinaryHierarchicalSoftmaxFunction,
)
from chainer_compat.utils import type_check

TREE = ((0, (3, 1)), (2, 4))  # internal nodes in preorder: root 0, (0,(3,1)) 1, (3,1) 2, (2,4) 3


def _leaf_log_probability(tree, W, x, word):  # noqa: N803
    """Walks the tree recursively: log of the product of branch probabilities to ``word``."""
    counter = [0]

    def walk(node):
        if not isinstance(node, tuple):
            return 0.0 if node == word else None
        node_id = counter[0]
        counter[0] += 1
        go_left = 1 / (1 + numpy.exp(-W[node_id] @ x))
        left = walk(node[0])
        right = walk(node[1])
        if left is not None:
            return numpy.log(go_left) + left
        if right is not None:
            return numpy.log(1 - go_left) + right
        return None

    return walk(tree)


def _link(in_size=3, tree=TREE):
    with chainer.using_config("dtype", numpy.float64):
        link = BinaryHierarchicalSoftmax(in_size, tree)
    link.W.array[...] = numpy.random.RandomState(0).normal(size=link.W.shape)
    return link


def test_w_has_one_row_per_internal_node_and_uniform_init():
    link = BinaryHierarchicalSoftmax(6, TREE)
    assert link.W.shape == (4, 6)
    assert link.W.dtype == numpy.float32
    assert (numpy.abs(link.W.array) <= 1).all()


def test_loss_matches_the_recursive_reference():
    link = _link()
    x = numpy.random.RandomState(1).normal(size=(3, 3))
    t = numpy.array([3, 0, 4], numpy.int32)
    expected = -sum(_leaf_log_probability(TREE, link.W.array, x[i], t[i]) for i in range(3))
    numpy.testing.assert_allclose(link(x, t).array, expected, rtol=1e-12)


def test_leaf_probabilities_sum_to_one():
    link = _link()
    x = numpy.random.RandomState(2).normal(size=(1, 3))
    total = sum(numpy.exp(-link(x, numpy.array([word], numpy.int32)).array)
                for word in range(5))
    numpy.testing.assert_allclose(total, 1.0, rtol=1e-12)


def test_ids_missing_from_the_tree_cost_nothing():
    link = _link(tree=(0, (3, 5)))
    x = numpy.ones((1, 3))
    assert float(link(x, numpy.array([4], numpy.int32)).array) == 0


def test_gradients_match_numerical_ones():
    link = _link()
    t = numpy.array([3, 2, 1, 1], numpy.int32)
    x = numpy.random.RandomState(3).normal(size=(4, 3))
    gradient_check.check_backward(lambda x: link(x, t), x, numpy.array(1.5), params=(link.W,),
                                  dtype=numpy.float64)
    gradient_check.check_double_backward(
        lambda x: link(x, t), x, numpy.array(1.5), numpy.random.RandomState(4).normal(size=x.shape),
        params=(link.W,), params_grad_grad=(numpy.random.RandomState(5).normal(size=(4, 3)),),
        dtype=numpy.float64, atol=1e-3, rtol=1e-3)


def _huffman_cost(counts):
    heap = list(counts)
    heapq.heapify(heap)
    cost = 0
    while len(heap) > 1:
        merged = heapq.heappop(heap) + heapq.heappop(heap)
        cost += merged
        heapq.heappush(heap, merged)
    return cost


def _depths(tree, depth=0):
    if not isinstance(tree, tuple):
        return {tree: depth}
    return {**_depths(tree[0], depth + 1), **_depths(tree[1], depth + 1)}


@pytest.mark.parametrize("counts", [{0: 5, 1: 1, 2: 1, 3: 3}, {i: i + 1 for i in range(9)},
                                    {"a": 2, "b": 2, "c": 2}])
def test_huffman_tree_has_minimal_weighted_depth(counts):
    tree = BinaryHierarchicalSoftmax.create_huffman_tree(counts)
    depths = _depths(tree)
    assert set(depths) == set(counts)
    assert sum(counts[w] * d for w, d in depths.items()) == _huffman_cost(counts.values())


def test_errors():
    with pytest.raises(ValueError, match="word_counts must not be empty"):
        BinaryHierarchicalSoftmax.create_huffman_tree({})
    with pytest.raises(ValueError, match="All internal nodes must have two child nodes"):
        BinaryHierarchicalSoftmax(3, (0, 1, 2))
    link = BinaryHierarchicalSoftmax(3, TREE)
    with pytest.raises(type_check.InvalidType):
        link(numpy.ones((2, 3), numpy.float32), numpy.zeros(2, numpy.int64))
    with pytest.raises(type_check.InvalidType):
        link(numpy.ones((2, 4), numpy.float32), numpy.zeros(2, numpy.int32))
    with pytest.raises(type_check.InvalidType):
        link(numpy.ones((2, 3), numpy.float64), numpy.zeros(2, numpy.int32))


def test_the_path_tables_move_with_the_link():
    # Visited by device_resident_accept, so forward never copies them to the device per call.
    from chainer_compat.device_resident import DeviceResidentsVisitor

    class Recorder(DeviceResidentsVisitor):
        def __init__(self):
            self.arrays = []

        def visit_device_resident(self, device_resident):
            pass

        def visit_array(self, arr):
            self.arrays.append(arr)
            return arr

        def visit_variable(self, param):
            pass

    tree = BinaryHierarchicalSoftmax.create_huffman_tree({0: 3, 1: 2, 2: 1})
    link = BinaryHierarchicalSoftmax(4, tree)
    recorder = Recorder()
    link.device_resident_accept(recorder)
    assert any(array is link._nodes for array in recorder.arrays)
    assert any(array is link._signs for array in recorder.arrays)


def test_function_loss_matches_the_recursive_reference():
    link = _link()
    x = numpy.random.RandomState(6).normal(size=(3, 3))
    t = numpy.array([4, 1, 2], numpy.int32)
    func = BinaryHierarchicalSoftmaxFunction(TREE, numpy.float64)
    expected = -sum(_leaf_log_probability(TREE, link.W.array, x[i], t[i]) for i in range(3))
    numpy.testing.assert_allclose(func(x, t, link.W.array).array, expected, rtol=1e-12)


def test_function_gradients_match_numerical_ones():
    W = numpy.random.RandomState(7).normal(size=(4, 3))  # noqa: N806
    x = numpy.random.RandomState(8).normal(size=(5, 3))
    t = numpy.array([3, 2, 0, 4, 3], numpy.int32)

    def loss(x, W):  # noqa: N803
        return BinaryHierarchicalSoftmaxFunction(TREE, numpy.float64)(x, t, W)

    gradient_check.check_backward(loss, (x, W), numpy.array(0.7), dtype=numpy.float64)


def test_function_words_missing_from_the_tree_cost_nothing_and_get_no_gradient():
    func = BinaryHierarchicalSoftmaxFunction((0, (3, 5)), numpy.float32)
    assert func.begins[1] == func.begins[2] == func.begins[3]
    x = chainer.Variable(numpy.ones((1, 3), numpy.float32))
    loss = func(x, numpy.array([4], numpy.int32), numpy.ones((2, 3), numpy.float32))
    loss.backward()
    assert float(loss.array) == 0
    numpy.testing.assert_array_equal(x.grad, numpy.zeros((1, 3), numpy.float32))


def test_function_rejects_w_of_another_tree():
    func = BinaryHierarchicalSoftmaxFunction(TREE, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        func(numpy.ones((2, 3), numpy.float32), numpy.zeros(2, numpy.int32),
             numpy.ones((5, 3), numpy.float32))


# The bits of Chainer's CPU order are pinned, on both libraries, in
# tests/conformance/test_hsm_negative_sampling_bits_conformance.py.


class _Labels(chainer.FunctionHook):
    name = "labels"

    def __init__(self):
        self.forward, self.backward = [], []

    def forward_preprocess(self, function, in_data):
        self.forward.append(function.label)

    def backward_preprocess(self, function, in_data, out_grad):
        self.backward.append(function.label)


def test_hooks_see_chainers_old_style_function_and_no_gradient_node():
    link = _link()
    x = chainer.Variable(numpy.random.RandomState(6).normal(size=(4, 3)))
    t = numpy.array([3, 2, 1, 1], numpy.int32)
    link.cleargrads()  # else W's initial grad is summed with the new one by an _ + _ node
    hook = _Labels()
    with hook:
        loss = link(x, t)
        loss.backward()
    # Chainer's link applies the old-style Function, whose backward computes on arrays.
    assert hook.forward == ["BinaryHierarchicalSoftmaxFunction"]
    assert hook.backward == ["BinaryHierarchicalSoftmaxFunction"]
    array_grad = x.grad.copy()
    x.cleargrad()
    link.cleargrads()
    loss = link(x, t)
    loss.backward(enable_double_backprop=True)  # through the differentiable gradient node
    assert x.grad_var.creator is not None
    numpy.testing.assert_array_equal(x.grad, array_grad)


def test_cupy_loss_and_gradients_match_numpys(cupy):
    results = []
    for device in ("@numpy", "@cupy:0"):
        link = _link()
        link.to_device(device)
        x = chainer.Variable(link.xp.asarray(numpy.random.RandomState(7).normal(size=(4, 3))))
        loss = link(x, link.xp.asarray([3, 2, 1, 1], numpy.int32))
        loss.backward()
        results.append([to_cpu(array) for array in (loss.array, x.grad, link.W.grad)])
    for on_cpu, on_gpu in zip(*results, strict=True):
        numpy.testing.assert_allclose(on_gpu, on_cpu, rtol=1e-10, atol=1e-12)


def test_wider_codes_differentiate_twice_as_the_wide_loss_does():
    # float64 codes on float32 inputs: the loss is float64 (as Chainer's), and its second
    # order, taken in float64 and handed back in each input's dtype, is that of an all-float64
    # link on the same values to float32 precision.
    rng = numpy.random.RandomState(2)
    x64 = rng.uniform(-1, 1, (4, 3))
    t = numpy.array([0, 4, 2, 0], numpy.int32)
    results = []
    for input_dtype in (numpy.float32, numpy.float64):
        with chainer.using_config("dtype", input_dtype):
            link = BinaryHierarchicalSoftmax(3, TREE, dtype=numpy.float64)
        link.W.array[...] = numpy.random.RandomState(3).normal(size=link.W.shape)
        x = chainer.Variable(x64.astype(input_dtype))
        loss = link(x, t)
        assert loss.dtype == numpy.float64
        gloss = chainer.Variable(numpy.array(0.7))  # the loss's dtype, float64 either way
        gx, gW = chainer.grad([loss], [x, link.W], grad_outputs=[gloss],  # noqa: N806
                              enable_double_backprop=True)
        assert gx.dtype == gW.dtype == input_dtype
        total = chainer.functions.sum(gx * gx) + chainer.functions.sum(gW * gW)
        ggx, ggW, ggloss = chainer.grad([total], [x, link.W, gloss])  # noqa: N806
        assert ggx.dtype == ggW.dtype == input_dtype and ggloss.dtype == numpy.float64
        results.append([loss.array, gx.array, gW.array, ggx.array, ggW.array, ggloss.array])
    for narrow, wide in zip(*results):
        numpy.testing.assert_allclose(narrow, wide, rtol=1e-5, atol=1e-6)
