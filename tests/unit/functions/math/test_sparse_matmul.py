"""sparse_matmul: every transpose combination against dense products, batches with padding,
gradients of every order for the dense operand and the entries."""

from __future__ import annotations

import itertools

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.math.sparse_matmul import sparse_matmul
from chainer_compat.utils import type_check
from chainer_compat.utils.sparse import CooMatrix, to_coo


def _sparse(rng, shape):
    return rng.standard_normal(shape) * (rng.random(shape) > 0.5)


def _with_data(data, template):
    matrix = CooMatrix(data.array, template.row, template.col, template.shape)
    matrix.data = data  # keep the Variable gradient_check differentiates
    return matrix


@pytest.mark.parametrize("transa,transb", list(itertools.product([False, True], repeat=2)))
def test_products_match_dense(transa, transb):
    rng = numpy.random.default_rng(0)
    sparse, dense = _sparse(rng, (2, 3, 4)), rng.standard_normal((2, 4, 5))
    stored_sparse = sparse.transpose(0, 2, 1).copy() if transa else sparse
    stored_dense = dense.transpose(0, 2, 1).copy() if transb else dense
    product = sparse_matmul(to_coo(stored_sparse), stored_dense, transa, transb)
    numpy.testing.assert_allclose(product.array, sparse @ dense)
    left = dense.transpose(0, 2, 1).copy()  # (2, 5, 4) @ (2, 4, 3)
    right = sparse.transpose(0, 2, 1).copy()
    stored_left = left.transpose(0, 2, 1).copy() if transa else left
    stored_right = right.transpose(0, 2, 1).copy() if transb else right
    product = sparse_matmul(stored_left, to_coo(stored_right), transa, transb)
    numpy.testing.assert_allclose(product.array, left @ right)


@pytest.mark.parametrize("transa,transb", [(False, False), (True, True)])
def test_gradients_of_first_and_second_order(transa, transb):
    rng = numpy.random.default_rng(1)
    template = to_coo(_sparse(rng, (2, 4, 3) if transa else (2, 3, 4)), ldnz=8)
    dense = rng.standard_normal((2, 5, 4) if transb else (2, 4, 5))

    def function(data, dense):
        return sparse_matmul(_with_data(data, template), dense, transa, transb)

    inputs = (template.data.array.copy(), dense)
    gy = rng.standard_normal((2, 3, 5))
    gradient_check.check_backward(function, inputs, gy)
    gradient_check.check_double_backward(
        function, inputs, gy, tuple(rng.standard_normal(a.shape) for a in inputs))


@pytest.mark.parametrize("sparse_dtype, dense_dtype",
                         [(numpy.float32, numpy.float64), (numpy.float64, numpy.float32),
                          (numpy.float16, numpy.float32)])
@pytest.mark.parametrize("sparse_first", [True, False])
def test_mixed_dtypes_give_each_input_a_gradient_of_its_own_dtype(sparse_dtype, dense_dtype,
                                                                   sparse_first):
    rng = numpy.random.default_rng(2)
    template = to_coo(_sparse(rng, (3, 4) if sparse_first else (4, 3)).astype(sparse_dtype))
    dense = rng.standard_normal((4, 5) if sparse_first else (5, 4)).astype(dense_dtype)

    def function(data, dense):
        sparse = _with_data(data, template)
        return sparse_matmul(sparse, dense) if sparse_first else sparse_matmul(dense, sparse)

    inputs = (template.data.array.copy(), dense)
    wide = numpy.result_type(sparse_dtype, dense_dtype)
    gy = rng.standard_normal((3, 5) if sparse_first else (5, 3)).astype(wide)
    options = {"atol": 5e-2, "rtol": 5e-2, "dtype": numpy.float64}
    gradient_check.check_backward(function, inputs, gy, **options)
    gradient_check.check_double_backward(
        function, inputs, gy, tuple(rng.standard_normal(a.shape).astype(a.dtype)
                                    for a in inputs), **options)


def test_padding_entries_get_no_gradient():
    matrix = to_coo(numpy.eye(3), ldnz=5, requires_grad=True)
    product = sparse_matmul(matrix, numpy.ones((3, 2)))
    product.grad = numpy.ones((3, 2))
    product.backward()
    numpy.testing.assert_array_equal(matrix.data.grad, [2, 2, 2, 0, 0])


def test_errors():
    with pytest.raises(ValueError, match="not supported"):
        sparse_matmul(numpy.ones((2, 2)), numpy.ones((2, 2)))
    with pytest.raises(type_check.InvalidType):
        sparse_matmul(to_coo(numpy.eye(3)), numpy.ones((4, 2)))
