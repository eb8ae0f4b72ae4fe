"""A VariableNode takes attributes of the caller's own, and ``node._variable`` is a weak
reference to its Variable, as tensorboard-chainer uses them. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import copy
import gc
import importlib
import os

import numpy

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def test_a_node_takes_attributes_of_ones_own():
    x = chainer.Variable(numpy.zeros((2, 2), numpy.float32))
    x.node.name_scope = "encoder"
    assert x.node.name_scope == "encoder"
    assert copy.copy(x.node).name_scope == "encoder"
    assert copy.deepcopy(x.node).name_scope == "encoder"


def test_node_variable_is_a_weak_reference_to_the_variable():
    x = chainer.Variable(numpy.ones(3, numpy.float32))
    y = F.relu(x)
    node = y.node
    assert node._variable() is y
    assert x.node._variable() is x
    del y
    gc.collect()
    assert node._variable() is None
