"""cholesky: values against NumPy, the factor reproduces the input, gradients of two orders
through a symmetric parametrisation, a non-positive-definite input and type errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.array.transpose import transpose
from chainer_compat.functions.math.cholesky import Cholesky, cholesky
from chainer_compat.functions.math.matmul import matmul
from chainer_compat.utils import type_check
from chainer_compat.variable import Variable


def _positive_definite(xp, n, dtype):
    root = numpy.random.uniform(-1, 1, (n, n))
    values = root @ root.T + n * numpy.eye(n)
    return xp.asarray(values.astype(dtype))


def _symmetric_cholesky(a):
    # The numerical gradient perturbs every entry, but the factor reads only the lower
    # triangle: symmetrizing first makes both sides see the same function of all entries.
    return cholesky(0.5 * (a + transpose(a)))


@pytest.mark.parametrize("n", [1, 2, 4])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_cholesky_matches_numpy(n, dtype, xp):
    a = _positive_definite(xp, n, dtype)
    y = cholesky(a)
    assert y.dtype == dtype
    assert type(y.array) is type(a)
    expected = numpy.linalg.cholesky(numpy.asarray(a.tolist(), numpy.float64))
    numpy.testing.assert_allclose(numpy.asarray(y.array.tolist()), expected, rtol=1e-5,
                                  atol=1e-5)


def test_factor_is_lower_triangular_and_reproduces_input():
    a = _positive_definite(numpy, 5, numpy.float64)
    y = cholesky(Variable(a))
    assert numpy.array_equal(numpy.tril(y.array), y.array)
    numpy.testing.assert_allclose(matmul(y, y, transb=True).array, a, rtol=1e-12, atol=1e-12)
    assert y.creator.label == "cholesky"


@pytest.mark.parametrize("n", [1, 3])
def test_cholesky_gradients_of_two_orders(n, xp, check_gradients):
    a = _positive_definite(xp, n, numpy.float64)
    y = _symmetric_cholesky(a)
    check_gradients(_symmetric_cholesky, (a,), y, double=True, eps=1e-4)


def test_gradient_of_input_is_symmetric():
    a = Variable(_positive_definite(numpy, 4, numpy.float64))
    y = cholesky(a)
    y.grad = numpy.random.uniform(-1, 1, y.shape)
    y.backward()
    numpy.testing.assert_allclose(a.grad, a.grad.T, rtol=1e-12, atol=1e-12)


def test_not_positive_definite_raises_linalg_error():
    with pytest.raises(numpy.linalg.LinAlgError):
        cholesky(-numpy.eye(3))


@pytest.mark.parametrize("a, expect", [
    (numpy.zeros((2, 2, 2)), r"a\.ndim == 2"),
    (numpy.eye(2, dtype=numpy.int32), r"a\.dtype\.kind == f"),
])
def test_type_check(a, expect):
    with pytest.raises(type_check.InvalidType, match=expect):
        cholesky(a)


def test_class_is_a_function_node():
    from chainer_compat.function_node import FunctionNode

    assert issubclass(Cholesky, FunctionNode)
