"""matmul and batch_matmul: NumPy's matmul rules, transposes, gradients, dtype and shape errors."""

from __future__ import annotations

import warnings

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat import Variable
from chainer_compat.functions.math.matmul import BatchMatMul, MatMul, batch_matmul, matmul
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]

# (a shape, b shape, transa, transb): matrices, vectors, stacks that broadcast, scalars.
CASES = [
    ((2, 3), (3, 4), False, False),
    ((3, 2), (3, 4), True, False),
    ((2, 3), (4, 3), False, True),
    ((3, 2), (4, 3), True, True),
    ((3,), (3,), False, False),
    ((3,), (3, 4), True, False),
    ((2, 3), (3,), False, True),
    ((3,), (2, 4, 3), False, True),
    ((2, 3, 4), (4,), False, False),
    ((5, 2, 3), (3, 4), False, False),
    ((2, 3), (5, 3, 4), False, False),
    ((5, 1, 3, 2), (4, 2, 3), True, True),
]


def _reference(transa, transb):
    def compute(a, b):
        if transa and a.ndim >= 2:
            a = numpy.swapaxes(a, -1, -2)
        if transb and b.ndim >= 2:
            b = numpy.swapaxes(b, -1, -2)
        return numpy.matmul(a, b)
    return compute


@pytest.mark.parametrize("a_shape, b_shape, transa, transb", CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(a_shape, b_shape, transa, transb, dtype, uniform,
                                          check_function):
    tolerance = {"atol": 1e-2, "rtol": 1e-2} if dtype == numpy.float16 else None
    check_function(lambda a, b: matmul(a, b, transa=transa, transb=transb),
                   (uniform(a_shape, dtype), uniform(b_shape, dtype)),
                   _reference(transa, transb), forward_tolerance=tolerance)


@pytest.mark.parametrize("a_shape, b_shape", [((2, 3), (3, 4)), ((3,), (3, 2)),
                                              ((2, 3), (3,)), ((2, 2, 3), (3, 4))])
@pytest.mark.parametrize("transc", [False, True])
def test_matmul_node_options_transc_and_dtype(a_shape, b_shape, transc, xp, uniform,
                                              check_function):
    expected_dtype = numpy.float32

    def reference(a, b):
        y = numpy.matmul(a, b)
        return numpy.swapaxes(y, -1, -2) if transc and a.ndim >= 2 and b.ndim >= 2 else y

    def func(a, b):
        y, = MatMul(transc=transc, dtype=expected_dtype).apply((a, b))
        return y

    check_function(func, (uniform(a_shape, numpy.float64), uniform(b_shape, numpy.float64)),
                   reference, dtype=expected_dtype, forward_tolerance={"atol": 1e-5},
                   grad_tolerance={"atol": 1e-3, "rtol": 1e-3}, check_dtype=None)


def test_mixed_dtypes_promote_and_gradients_keep_each_input_dtype():
    a = Variable(numpy.ones((2, 3), numpy.float32))
    b = Variable(numpy.ones((3, 4), numpy.float64))
    y = matmul(a, b)
    assert y.dtype == numpy.float64
    y.grad = numpy.ones((2, 4))
    y.backward()
    assert a.grad.dtype == numpy.float32
    assert b.grad.dtype == numpy.float64
    numpy.testing.assert_array_equal(a.grad, numpy.full((2, 3), 4.0))


@pytest.mark.parametrize("a_shape, b_shape, transa, transb", [
    ((2, 3), (4, 5), False, False),
    ((2, 3), (3, 4), True, False),
    ((3,), (4,), False, False),
    ((3,), (4, 3), False, False),
    ((2, 3, 4), (4,), True, False),
])
def test_contracted_lengths_must_agree(a_shape, b_shape, transa, transb):
    a = numpy.zeros(a_shape, numpy.float32)
    b = numpy.zeros(b_shape, numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"MatMul \(Forward\)[\s\S]*a\.shape"):
        matmul(a, b, transa=transa, transb=transb)


def test_batch_axes_must_broadcast_and_inputs_be_float():
    with pytest.raises(type_check.InvalidType, match="cannot broadcast"):
        matmul(numpy.zeros((2, 2, 3), numpy.float32), numpy.zeros((3, 3, 4), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"a\.dtype\.kind"):
        matmul(numpy.zeros((2, 3), numpy.int32), numpy.zeros((3, 4), numpy.float32))


@pytest.mark.parametrize("a_shape, b_shape, transa, transb", [
    ((2, 3, 4), (2, 4, 5), False, False),
    ((2, 4, 3), (2, 4, 5), True, False),
    ((2, 3, 4), (2, 5, 4), False, True),
    ((2, 3), (2, 3), True, False),
    ((2, 3), (2, 1, 4), False, False),
])
def test_batch_matmul_matches_numpy_and_warns(a_shape, b_shape, transa, transb, xp, uniform,
                                              check_function):
    def reference(a, b):
        a = a.reshape(a.shape[:2] + (-1,))
        b = b.reshape(b.shape[:2] + (-1,))
        if transa:
            a = a.swapaxes(1, 2)
        if transb:
            b = b.swapaxes(1, 2)
        return numpy.matmul(a, b)

    a = uniform(a_shape, numpy.float32)
    b = uniform(b_shape, numpy.float32)
    with pytest.warns(DeprecationWarning, match="batch_matmul is deprecated"):
        batch_matmul(a, b, transa=transa, transb=transb)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check_function(lambda a, b: batch_matmul(a, b, transa=transa, transb=transb), (a, b),
                       reference, grad_tolerance={"atol": 1e-3, "rtol": 1e-3})


def test_batch_matmul_checks_dtype_ndim_and_lengths():
    a = numpy.zeros((2, 3, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"BatchMatMul \(Forward\)"):
        BatchMatMul().apply((a.astype(numpy.float64), a.astype(numpy.float64)))
    with pytest.raises(type_check.InvalidType, match=r"a\.ndim"):
        BatchMatMul().apply((numpy.zeros((2, 3, 4, 1), numpy.float32), a))
    with pytest.raises(type_check.InvalidType, match=r"==.*b\.shape\[1\]"):
        BatchMatMul().apply((a, numpy.zeros((2, 5, 4), numpy.float32)))


@pytest.mark.parametrize("a_shape, b_shape, labels", [
    # Chainer 7.8.1's sequences: a tensordot with the matrix for the vector, a broadcast
    # outer product for the matrix.
    ((5,), (5,), ["_ * _", "_ * _"]),
    ((5,), (5, 3), ["Rollaxis", "TensorDot", "ExpandDims", "_ * _"]),
    ((4, 5), (5,), ["ExpandDims", "_ * _", "Rollaxis", "TensorDot"]),
    ((4, 5), (5, 3), ["MatMul", "MatMul"]),
])
def test_a_hook_sees_chainers_gradient_nodes(a_shape, b_shape, labels):
    rng = numpy.random.default_rng(32)
    a = rng.standard_normal(a_shape).astype(numpy.float32)
    b = rng.standard_normal(b_shape).astype(numpy.float32)
    gy = numpy.asarray(rng.standard_normal(numpy.matmul(a, b).shape), numpy.float32)
    plain, hooked, seen = gradients_under_a_hook(matmul, (a, b), gy)
    assert seen == labels
    for gradient, under_hook in zip(plain, hooked):
        numpy.testing.assert_array_equal(gradient, under_hook)
    a64, b64, gy64 = (v.astype(numpy.float64) for v in (a, b, gy))
    expected_ga = (numpy.outer(gy64, b64) if a.ndim == 2 and b.ndim == 1
                   else gy64 * b64 if a.ndim == 1 and b.ndim == 1
                   else numpy.matmul(gy64, numpy.swapaxes(b64, -1, -2)))
    numpy.testing.assert_allclose(plain[0], expected_ga, rtol=1e-5, atol=1e-5)
