"""backward() from an integer output without a gradient (F.argmax's, say) does nothing: such an
output carries no gradient. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


@pytest.mark.parametrize("reduce", [
    lambda x: F.argmax(x, axis=1),
    lambda x: F.argmin(x, axis=0),
    lambda x: F.argmax(x),
])
def test_backward_from_an_index_output_leaves_every_gradient_unset(reduce):
    x = chainer.Variable(numpy.random.RandomState(0).rand(3, 4).astype(numpy.float32))
    y = reduce(x)
    assert y.dtype.kind == "i"
    y.backward()
    assert x.grad is None
    assert y.grad is None or y.size == 1
