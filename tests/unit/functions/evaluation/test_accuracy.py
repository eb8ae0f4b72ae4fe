"""accuracy: values against counting loops, ignore_label, shapes, dtype, type errors."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat.functions.evaluation.accuracy import accuracy
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _reference(y, t, ignore_label):
    classes = numpy.moveaxis(y, 1, -1).reshape(t.shape + (-1,))
    correct = total = 0
    for position in numpy.ndindex(*t.shape):
        if t[position] == ignore_label:
            continue
        total += 1
        correct += int(numpy.argmax(classes[position]) == t[position])
    return correct / total if total else 0.0


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("x_shape, t_shape", [((10, 3), (10,)), ((4, 3, 5), (4, 5)),
                                              ((4, 3, 1), (4,))])
@pytest.mark.parametrize("ignore_label", [None, 0])
def test_matches_counting(xp, dtype, x_shape, t_shape, ignore_label):
    rng = numpy.random.default_rng(0)
    y = rng.standard_normal(x_shape).astype(dtype)
    t = rng.integers(0, 3, t_shape).astype(numpy.int32)
    result = accuracy(xp.asarray(y), xp.asarray(t), ignore_label=ignore_label)
    assert result.dtype == dtype and result.shape == ()
    numpy.testing.assert_allclose(_host(result.array), _reference(y, t, ignore_label),
                                  rtol=1e-3)


def test_every_label_ignored_gives_zero():
    y = numpy.array([[0.1, 0.9], [0.8, 0.2]], numpy.float32)
    result = accuracy(y, numpy.array([-1, -1], numpy.int32), ignore_label=-1)
    assert float(result.array) == 0.0


def test_documented_examples():
    y = numpy.array([[0.1, 0.7, 0.2], [8.0, 1.0, 2.0], [-8.0, 1.0, 2.0], [-8.0, -1.0, -2.0]])
    assert float(accuracy(y, numpy.array([1, 0, 2, 1], numpy.int32)).array) == 1.0
    t = numpy.array([1, 0, 0, 0], numpy.int32)
    assert float(accuracy(y, t).array) == 0.5
    assert float(accuracy(y, t, ignore_label=0).array) == 1.0


def test_result_carries_no_gradient_to_the_scores():
    y = chainer_compat.Variable(numpy.array([[0.1, 0.9]], numpy.float32))
    result = accuracy(y, numpy.array([1], numpy.int32))
    result.backward()
    assert y.grad is None


def test_label_shape_mismatch_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"Accuracy[\s\S]*x\.shape\[0\]"):
        accuracy(numpy.zeros((3, 2), "f"), numpy.zeros(4, numpy.int32))


def test_extra_non_singleton_axis_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"x\.shape\[2\] == 1"):
        accuracy(numpy.zeros((3, 2, 2), "f"), numpy.zeros(3, numpy.int32))


def test_float_labels_raise_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"t\.dtype\.kind == i"):
        accuracy(numpy.zeros((3, 2), "f"), numpy.zeros(3, "f"))


def test_class_is_callable_like_an_old_style_function():
    from chainer_compat.functions.evaluation.accuracy import Accuracy

    y = numpy.array([[0.1, 0.9], [0.8, 0.2]], numpy.float32)
    result = Accuracy(ignore_label=-1)(y, numpy.array([1, 1], numpy.int32))
    assert isinstance(result, chainer_compat.Variable) and float(result.array) == 0.5
