"""det and batch_det: values, gradients of two orders (Jacobi's formula), type errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

import chainer_compat
from chainer_compat.functions.math.det import batch_det, det
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
LOOSE = {"atol": 2e-2, "rtol": 2e-2}


def _well_conditioned(xp, shape, dtype):
    values = numpy.random.uniform(-0.5, 0.5, shape) + 1.5 * numpy.eye(shape[-1])
    return xp.asarray(values.astype(dtype))


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_det_values_and_gradients(n, dtype, xp, check_function):
    a = _well_conditioned(xp, (n, n), dtype)
    check_function(det, (a,), numpy.linalg.det,
                   forward_tolerance=LOOSE if dtype == numpy.float16 else None)


@pytest.mark.parametrize("shape", [(2, 3, 3), (4, 2, 2)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_batch_det_values_and_gradients(shape, dtype, xp, check_function):
    a = _well_conditioned(xp, shape, dtype)
    check_function(batch_det, (a,), numpy.linalg.det,
                   forward_tolerance=LOOSE if dtype == numpy.float16 else None)


def test_label_is_det():
    assert batch_det(numpy.ones((1, 2, 2))).creator.label == "det"


def test_gradient_is_determinant_times_inverse_transpose():
    a = chainer_compat.Variable(numpy.array([[2.0, 1.0], [0.5, 3.0]]))
    det(a).backward()
    expected = numpy.linalg.det(a.array) * numpy.linalg.inv(a.array).T
    numpy.testing.assert_allclose(a.grad, expected, rtol=1e-12)


@pytest.mark.parametrize("func, a, expect", [
    (det, numpy.zeros((2, 3)), r"x\.shape\[-1\] == x\.shape\[-2\]"),
    (det, numpy.zeros((2, 2), numpy.int32), r"x\.dtype\.kind == f"),
    (batch_det, numpy.zeros((2, 2)), r"x\.ndim == 3"),
    (batch_det, numpy.zeros((2, 2, 3)), r"x\.shape\[-1\] == x\.shape\[-2\]")])
def test_type_check(func, a, expect):
    with pytest.raises(type_check.InvalidType, match=expect):
        func(a)


@pytest.mark.parametrize("function, shape, labels", [
    # Chainer 7.8.1's: gy and the determinant each broadcast over the transposed inverse.
    (batch_det, (2, 3, 3), ["Transpose", "BatchInv", "GetItem", "BroadcastTo", "GetItem",
                            "BroadcastTo", "_ * _", "_ * _"]),
    (det, (3, 3), ["Reshape", "Transpose", "BatchInv", "GetItem", "BroadcastTo", "GetItem",
                   "BroadcastTo", "_ * _", "_ * _", "Reshape"]),
])
def test_a_hook_sees_chainers_gradient_nodes(function, shape, labels):
    rng = numpy.random.default_rng(23)
    a = (rng.standard_normal(shape) + 3 * numpy.eye(3)).astype(numpy.float32)
    gy = rng.standard_normal(shape[:-2]).astype(numpy.float32)
    plain, hooked, seen = gradients_under_a_hook(function, (a,), gy)
    assert seen == labels
    numpy.testing.assert_array_equal(plain[0], hooked[0])
    a64 = a.astype(numpy.float64)
    expected = (numpy.asarray(gy)[..., None, None] * numpy.linalg.det(a64)[..., None, None]
                * numpy.swapaxes(numpy.linalg.inv(a64), -1, -2))
    numpy.testing.assert_allclose(plain[0], expected, rtol=1e-4, atol=1e-5)
