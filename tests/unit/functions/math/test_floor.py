"""floor, ceil and sign: values, dtypes, and results outside the graph."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.math.ceil import ceil
from chainer_compat.functions.math.floor import floor
from chainer_compat.functions.math.sign import sign

CASES = {"floor": (floor, numpy.floor), "ceil": (ceil, numpy.ceil), "sign": (sign, numpy.sign)}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_values_and_dtype_match_numpy(name, dtype, shape, xp):
    func, reference = CASES[name]
    host = (numpy.random.uniform(-3, 3, shape) * 2).round() / 2  # halves, zeros included
    y = func(xp.asarray(host.astype(dtype)))
    assert y.dtype == dtype
    assert y.shape == shape
    result = y.array.get() if hasattr(y.array, "get") else y.array
    numpy.testing.assert_array_equal(result, reference(host.astype(dtype)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_result_starts_a_new_graph(name):
    func = CASES[name][0]
    x = Variable(numpy.array([-1.5, 0.0, 2.5], numpy.float32))
    y = func(x)
    assert y.creator is None
    assert not y.requires_grad
    z = x * y
    z.grad = numpy.ones(3, numpy.float32)
    z.backward()
    # y is a constant: the gradient of x * y with respect to x is y itself.
    numpy.testing.assert_array_equal(x.grad, y.array)


def test_sign_and_floor_accept_integers():
    numpy.testing.assert_array_equal(sign(numpy.array([-3, 0, 4])).array, [-1, 0, 1])
    assert floor(numpy.array([1, 2], numpy.int32)).dtype == numpy.int32
