"""deformable_convolution_2d_sampler is Chainer's composition: the same functions applied in
the same order (which hooks and computational graphs show, and which fixes its rounding).
Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


class _Labels(chainer.FunctionHook):
    name = "labels"

    def __init__(self):
        self.labels = []

    def forward_preprocess(self, function, in_data):
        self.labels.append(function.label)


@pytest.mark.parametrize("as_variables", [True, False])
@pytest.mark.parametrize("bias", [True, False])
def test_forward_applies_chainers_functions_in_order(bias, as_variables):
    rng = numpy.random.RandomState(0)
    x = rng.standard_normal((2, 3, 5, 6)).astype(numpy.float32)
    offset = rng.standard_normal((2, 18, 5, 6)).astype(numpy.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(numpy.float32)
    b = rng.standard_normal(4).astype(numpy.float32) if bias else None
    if as_variables:  # as the link passes them: the grid's arithmetic is then nodes too
        x, offset, w = chainer.Variable(x), chainer.Variable(offset), chainer.Variable(w)
        b = None if b is None else chainer.Variable(b)
    hook = _Labels()
    with hook:
        y = F.deformable_convolution_2d_sampler(x, offset, w, b, stride=1, pad=1)
    # Horizontal positions over the padded width 6 + 2 - 1, vertical over 5 + 2 - 1.
    grid = ["GetItem", "_ + _", "_ + _", "GetItem", "_ + _", "_ + _",
            "_ * 0.14285714285714285", "_ + (-0.5)", "_ * 2",
            "_ * 0.16666666666666666", "_ + (-0.5)", "_ * 2"] if as_variables else []
    # An array W is regrouped by array methods, a Variable one by nodes.
    weights = ["Transpose", "Reshape"] if as_variables else []
    product = (["Concat", "Reshape", "Pad", "SpatialTransformerSampler", "Transpose", "Reshape"]
               + weights + ["MatMul", "Reshape", "Transpose"])
    added_bias = (["GetItem", "BroadcastTo", "_ + _"] if as_variables
                  else ["BroadcastTo", "_ + _"]) if bias else []
    assert hook.labels == grid + product + added_bias
    assert y.shape == (2, 4, 5, 6)
