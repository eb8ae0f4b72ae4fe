"""matmul rounds as Chainer's CPU code does where NumPy 1.26 skipped BLAS: a broadcast, step
sliced or float16 operand is multiplied by the plain loop out[m, p] += a[m, n] * b[n, p], over n
in order. The gradients of F.sum(F.matmul(a, b)) and F.inv meet such a (broadcast) operand.
Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os
import warnings

import numpy
import pytest
from numpy_sum_reference import plain_loop_matmul

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def _arrays(rng, *shapes, dtype=numpy.float32):
    return [rng.standard_normal(shape).astype(dtype) for shape in shapes]


@pytest.mark.parametrize("shape_a, shape_b", [((16, 24), (24, 20)), ((3, 6, 20), (20, 24))])
def test_sum_of_matmul_gradients_add_the_broadcast_gradient_in_order(shape_a, shape_b):
    a, b = _arrays(numpy.random.RandomState(0), shape_a, shape_b)
    va, vb = chainer.Variable(a), chainer.Variable(b)
    F.sum(F.matmul(va, vb)).backward()
    ones = numpy.ones(numpy.matmul(a, b).shape, numpy.float32)
    expected_ga = plain_loop_matmul(ones, numpy.swapaxes(b, -1, -2))
    expected_gb = plain_loop_matmul(numpy.swapaxes(a, -1, -2), ones)
    if a.ndim == 3:
        # The stack's gradients are then added over the batch (sum_to), one after another.
        expected_gb = expected_gb.sum(axis=0)
    numpy.testing.assert_array_equal(va.grad, expected_ga)
    numpy.testing.assert_array_equal(vb.grad, expected_gb)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_inv_gradient_multiplies_the_broadcast_gradient_in_order(dtype):
    rng = numpy.random.RandomState(1)
    x = (rng.standard_normal((24, 24)) + 6 * numpy.eye(24)).astype(dtype)
    vx = chainer.Variable(x)
    y = F.inv(vx)
    F.sum(y).backward()
    inverse_t = y.array.T
    # -x^-T @ gy runs the loop (gy is broadcast); its product with x^-T is blasable.
    left = plain_loop_matmul(-inverse_t, numpy.ones_like(x))
    numpy.testing.assert_array_equal(vx.grad, numpy.matmul(left, inverse_t))


@pytest.mark.parametrize("slicing", ["broadcast", "columns", "reversed"])
def test_matmul_of_a_strided_operand_runs_the_loop(slicing):
    # A step over rows alone keeps a matrix blasable (a longer leading dimension); these not.
    rng = numpy.random.RandomState(2)
    wide, b = _arrays(rng, (20, 60), (30, 9))
    a = {"broadcast": numpy.broadcast_to(wide[0, :30], (7, 30)), "columns": wide[:7, ::2],
         "reversed": wide[::-1, 10:40]}[slicing]
    y = F.matmul(a, b)
    numpy.testing.assert_array_equal(y.array, plain_loop_matmul(a, b))


def test_reversed_vector_times_matrix_runs_the_loop():
    # A positive step keeps a vector blasable (gemv); a negative one does not.
    rng = numpy.random.RandomState(3)
    vector, b = _arrays(rng, (24,), (24, 10))
    y = F.matmul(vector[::-1], b)
    numpy.testing.assert_array_equal(y.array, plain_loop_matmul(vector[None, ::-1], b)[0])


def test_float16_products_are_summed_in_float32_in_order():
    rng = numpy.random.RandomState(4)
    a, b = _arrays(rng, (6, 40), (40, 7), dtype=numpy.float16)
    y = F.matmul(a, b)
    numpy.testing.assert_array_equal(y.array, plain_loop_matmul(a, b))


def test_batch_matmul_gradient_of_a_sum_runs_the_loop():
    rng = numpy.random.RandomState(5)
    a, b = _arrays(rng, (3, 8, 20), (3, 20, 24))
    va, vb = chainer.Variable(a), chainer.Variable(b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        F.sum(F.batch_matmul(va, vb)).backward()
    ones = numpy.ones((3, 8, 24), numpy.float32)
    numpy.testing.assert_array_equal(va.grad, plain_loop_matmul(ones, b.transpose(0, 2, 1)))
    numpy.testing.assert_array_equal(vb.grad, plain_loop_matmul(a.transpose(0, 2, 1), ones))
