"""The labels of the constant operators, as computational graphs and debug hooks print them: the
constant is shown as written (``x * 2`` is ``_ * 2``, not ``_ * 2.0``). Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))


@pytest.mark.parametrize(("build", "label"), [
    (lambda x: x * 2, "_ * 2"),
    (lambda x: 2 * x, "_ * 2"),
    (lambda x: x * 2.0, "_ * 2.0"),
    (lambda x: x * numpy.float32(2), "_ * 2.0"),
    (lambda x: x * numpy.int64(3), "_ * 3"),
    (lambda x: x + 1, "_ + 1"),
    (lambda x: 1 + x, "_ + 1"),
    (lambda x: x - 3, "_ + (-3)"),
    (lambda x: x - 0.5, "_ + (-0.5)"),
    (lambda x: x - (-2), "_ + 2"),
    (lambda x: 1 - x, "1 - _"),
    (lambda x: -4 - x, "(-4) - _"),
    (lambda x: x / 2, "_ * 0.5"),
    (lambda x: 3 / x, "3 / _"),
    (lambda x: x ** 2, "_ ** 2"),
    (lambda x: 2 ** x, "2 ** _"),
    (lambda x: x * -2, "_ * (-2)"),
])
def test_constant_operator_labels(build, label):
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    assert build(x).creator.label == label


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_the_label_does_not_change_the_arithmetic(dtype):
    # The constant is still applied in the input's dtype.
    x = chainer.Variable(numpy.full(3, 1.5, dtype))
    for y in (x * 3, x + 1, x - 3, 1 - x, x ** 2, 2 ** x, 3 / x):
        assert y.dtype == dtype
    y = x * 3
    y.grad = numpy.ones(3, dtype)
    y.backward()
    assert x.grad.dtype == dtype
    numpy.testing.assert_array_equal(x.grad, numpy.full(3, 3, dtype))
