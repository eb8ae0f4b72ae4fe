"""Batch normalization's backward applies one gradient node, BatchNormalizationGrad or
FixedBatchNormalizationGrad, which function hooks see and double backprop records, and whose
gradients equal those computed without hooks. Set CHAINER_CONFORMANCE_TARGET=chainer to run
this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
L = importlib.import_module(chainer.__name__ + ".links")


class _Labels(chainer.FunctionHook):
    name = "labels"

    def __init__(self):
        self.forward = []
        self.backward = []

    def forward_preprocess(self, function, in_data):
        self.forward.append(function.label)

    def backward_preprocess(self, function, in_data, out_grad):
        self.backward.append(function.label)


def _network(train):
    numpy.random.seed(0)
    link = L.BatchNormalization(3)
    x = chainer.Variable(numpy.random.RandomState(1).standard_normal((4, 3, 2, 2))
                         .astype(numpy.float32))
    with chainer.using_config("train", train):
        loss = F.sum(link(x) * link(x))
    return link, x, loss


@pytest.mark.parametrize("train, grad_label", [
    (True, "BatchNormalizationGrad"), (False, "FixedBatchNormalizationGrad")])
def test_hooks_see_one_gradient_node_per_normalization(train, grad_label):
    link, x, loss = _network(train)
    hook = _Labels()
    with hook:
        loss.backward()
    assert hook.forward.count(grad_label) == 2
    assert hook.backward.count("FixedBatchNormalization" if grad_label.startswith("Fixed")
                               else "BatchNormalization") == 2
    observed = [x.grad.copy(), link.gamma.grad.copy(), link.beta.grad.copy()]
    link, x, loss = _network(train)
    loss.backward()
    for value, reference in zip(observed, (x.grad, link.gamma.grad, link.beta.grad)):
        numpy.testing.assert_array_equal(value, reference)


@pytest.mark.parametrize("train, grad_label", [
    (True, "BatchNormalizationGrad"), (False, "FixedBatchNormalizationGrad")])
def test_double_backprop_records_the_gradient_node(train, grad_label):
    numpy.random.seed(0)
    link = L.BatchNormalization(3)
    x = chainer.Variable(numpy.random.RandomState(2).standard_normal((4, 3)).astype(
        numpy.float32))
    with chainer.using_config("train", train):
        y = link(x)
    gx, g_gamma = chainer.grad([F.sum(y * y)], [x, link.gamma], enable_double_backprop=True)
    # y * y's gradient reaches y once: the normalization's Grad node made both gradients.
    assert gx.creator.label == grad_label
    assert g_gamma.creator is gx.creator
    F.sum(gx * gx).backward()
    assert x.grad.shape == x.shape and numpy.isfinite(x.grad).all()
