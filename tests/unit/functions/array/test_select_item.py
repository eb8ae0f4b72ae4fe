"""select_item: values, gradients into zeros, integer labels, shape checks."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

import chainer_compat
from chainer_compat import Variable, using_config
from chainer_compat.functions.array.select_item import select_item
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("label_dtype", [numpy.int32, numpy.int64])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(label_dtype, dtype, xp, uniform, check_function):
    x = uniform((4, 3), dtype)
    t = xp.asarray(numpy.array([2, 0, 1, 2], label_dtype))
    check_function(select_item, (x, t), lambda x, t: x[numpy.arange(4), t])


def test_label_gets_no_gradient():
    x = Variable(numpy.ones((2, 3), numpy.float32))
    t = Variable(numpy.array([0, 2], numpy.int32))
    y = select_item(x, t)
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    assert t.grad is None
    numpy.testing.assert_array_equal(x.grad, [[1, 0, 0], [0, 0, 1]])


def test_float_labels_are_rejected():
    with pytest.raises(type_check.InvalidType, match=r"SelectItem \(Forward\)[\s\S]*t\.dtype"):
        select_item(numpy.ones((2, 3)), numpy.zeros(2))


def test_batch_size_mismatch_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"x\.shape\[0\] == t\.shape\[0\]"):
        select_item(numpy.ones((2, 3)), numpy.zeros(3, numpy.int32))


def test_labels_out_of_range_are_rejected_in_debug_mode():
    with using_config("debug", True), pytest.raises(ValueError, match="0 <= t < x.shape"):
        select_item(numpy.ones((2, 3)), numpy.array([0, 3], numpy.int32))


def test_a_hook_sees_chainers_gradient_node():
    x = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    t = numpy.array([1, 3, 0], numpy.int32)
    gy = numpy.array([1.5, -2.0, 4.0], numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(lambda x: select_item(x, t), (x,), gy)
    assert labels == ["Assign"]  # Chainer 7.8.1's gradient node
    expected = numpy.zeros((3, 4), numpy.float32)
    expected[[0, 1, 2], t] = gy
    numpy.testing.assert_array_equal(plain[0], expected)
    numpy.testing.assert_array_equal(hooked[0], expected)
    v = Variable(x)
    gx, = chainer_compat.grad([select_item(v, t)], [v], [Variable(gy)],
                              enable_double_backprop=True)
    assert gx.creator.label == "Assign"
