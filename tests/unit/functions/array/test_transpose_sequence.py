"""transpose_sequence: values, gradients of two orders (also when outputs are unused), checks."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat.functions.array.transpose_sequence import transpose_sequence
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def transpose_reference(*xs):
    return tuple(numpy.stack([x[t] for x in xs if len(x) > t]) for t in range(len(xs[0])))


@pytest.mark.parametrize("lengths, tail", [((3, 2, 2), ()), ((3, 3, 1, 0), (2,)), ((2,), (2, 3))])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients(lengths, tail, dtype, uniform, check_function):
    xs = tuple(uniform((n,) + tail, dtype) for n in lengths)
    check_function(lambda *xs: transpose_sequence(xs), xs, transpose_reference)


def test_outputs_without_gradient_count_as_zeros():
    xs = [chainer_compat.Variable(numpy.arange(6.0).reshape(3, 2)),
          chainer_compat.Variable(numpy.arange(2.0).reshape(1, 2))]
    ys = transpose_sequence(xs)
    ys[1].grad = numpy.ones((1, 2))
    ys[1].backward()
    numpy.testing.assert_array_equal(xs[0].grad, [[0, 0], [1, 1], [0, 0]])
    numpy.testing.assert_array_equal(xs[1].grad, [[0, 0]])


def test_empty_input_gives_empty_tuple():
    assert transpose_sequence([]) == ()


@pytest.mark.parametrize("xs", [[numpy.zeros(1), numpy.zeros(2)],
                                [numpy.zeros((2, 1)), numpy.zeros((2, 2))]])
def test_type_check(xs):
    with pytest.raises(type_check.InvalidType, match=r"TransposeSequence \(Forward\)"):
        transpose_sequence(xs)
