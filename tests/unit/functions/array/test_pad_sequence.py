"""pad_sequence: values, padding value and length, gradients of two orders, type errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import LabelRecorder

import chainer_compat
from chainer_compat.functions.array.pad_sequence import pad_sequence
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def pad_reference(xs, length, padding):
    length = max(len(x) for x in xs) if length is None else length
    y = numpy.full((len(xs), length) + xs[0].shape[1:], padding, xs[0].dtype)
    for row, x in zip(y, xs):
        row[:len(x)] = x
    return y


@pytest.mark.parametrize("lengths, tail", [((3, 1, 2), ()), ((2, 0, 2), (3,)), ((1,), (2, 2))])
@pytest.mark.parametrize("length, padding", [(None, 0), (4, -1.5)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients(lengths, tail, length, padding, dtype, uniform, check_function):
    xs = tuple(uniform((n,) + tail, dtype) for n in lengths)
    check_function(lambda *xs: pad_sequence(xs, length, padding), xs,
                   lambda *xs: pad_reference(xs, length, padding))


def test_integer_sequences_are_padded_too(xp):
    xs = [xp.arange(3), xp.arange(1)]
    y = pad_sequence(xs, padding=7)
    assert y.dtype == xs[0].dtype
    numpy.testing.assert_array_equal(y.array.tolist(), [[0, 1, 2], [0, 7, 7]])


@pytest.mark.parametrize("xs, length", [
    ([], None),
    ([numpy.zeros(2), numpy.zeros(3, numpy.float32)], None),
    ([numpy.zeros((2, 1)), numpy.zeros((2, 2))], None),
    ([numpy.zeros(())], None),
    ([numpy.zeros(3), numpy.zeros(1)], 2)])
def test_type_check(xs, length):
    with pytest.raises(type_check.InvalidType, match=r"PadSequence \(Forward\)"):
        pad_sequence(xs, length)


def test_a_hook_sees_chainers_gradient_nodes():
    xs = [chainer_compat.Variable(numpy.arange(n * 2, dtype=numpy.float32).reshape(n, 2))
          for n in (3, 1, 2)]
    y = pad_sequence(xs, padding=-1)
    gy = numpy.arange(18, dtype=numpy.float32).reshape(3, 3, 2)
    y.grad = gy
    with LabelRecorder() as recorder:
        y.backward()
    # Chainer 7.8.1's sequence: the rows split apart, then each cut to its input's length.
    assert recorder.labels == ["SplitAxis", "GetItem", "GetItem", "GetItem"]
    for i, x in enumerate(xs):
        numpy.testing.assert_array_equal(x.grad, gy[i, :len(x)])
