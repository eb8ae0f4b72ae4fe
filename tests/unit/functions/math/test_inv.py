"""inv and batch_inv: values, gradients of two orders, float16 via float32, singular input and
type errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat.functions.math.inv import batch_inv, inv
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
# Inverses amplify rounding; float16 keeps about three digits.
LOOSE = {"atol": 2e-2, "rtol": 2e-2}


def _well_conditioned(xp, shape, dtype):
    values = numpy.random.uniform(-0.5, 0.5, shape) + 2.0 * numpy.eye(shape[-1])
    return xp.asarray(values.astype(dtype))


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_inv_values_and_gradients(n, dtype, xp, check_function):
    a = _well_conditioned(xp, (n, n), dtype)
    check_function(inv, (a,), numpy.linalg.inv,
                   forward_tolerance=LOOSE if dtype == numpy.float16 else None)


@pytest.mark.parametrize("shape", [(2, 3, 3), (1, 1, 1), (0, 2, 2)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_batch_inv_values_and_gradients(shape, dtype, xp, check_function):
    a = _well_conditioned(xp, shape, dtype)
    check_function(batch_inv, (a,), numpy.linalg.inv, backward=a.size > 0,
                   forward_tolerance=LOOSE if dtype == numpy.float16 else None)


@pytest.mark.parametrize("func, a", [(inv, numpy.ones((2, 2))),
                                     (batch_inv, numpy.stack([numpy.eye(2), numpy.ones((2, 2))]))])
def test_singular_matrices_raise_value_error(func, a):
    with pytest.raises(ValueError, match="Input has singular matrices"):
        func(a)


@pytest.mark.parametrize("func, a, expect", [
    (inv, numpy.zeros((2, 3)), r"a\.shape\[-1\] == a\.shape\[-2\]"),
    (inv, numpy.zeros((2, 2, 2)), r"a\.ndim == 2"),
    (inv, numpy.zeros((2, 2), numpy.int32), r"a\.dtype\.kind == f"),
    (batch_inv, numpy.zeros((2, 2)), r"a\.ndim == 3"),
    (batch_inv, numpy.zeros((2, 2, 3)), r"a\.shape\[-1\] == a\.shape\[-2\]")])
def test_type_check(func, a, expect):
    with pytest.raises(type_check.InvalidType, match=expect):
        func(a)


@pytest.mark.parametrize("function, shape, labels", [
    # Chainer 7.8.1's: Inv transposes its output as a node, BatchInv inside its products.
    (inv, (3, 3), ["Transpose", "__neg__", "MatMul", "MatMul"]),
    (batch_inv, (2, 3, 3), ["__neg__", "MatMul", "MatMul"]),
])
def test_a_hook_sees_chainers_gradient_nodes(function, shape, labels):
    rng = numpy.random.default_rng(22)
    a = (rng.standard_normal(shape) + 3 * numpy.eye(shape[-1])).astype(numpy.float32)
    gy = rng.standard_normal(shape).astype(numpy.float32)
    plain, hooked, seen = gradients_under_a_hook(function, (a,), gy)
    assert seen == labels
    numpy.testing.assert_array_equal(plain[0], hooked[0])
    inverse_t = numpy.swapaxes(numpy.linalg.inv(a.astype(numpy.float64)), -1, -2)
    numpy.testing.assert_allclose(plain[0], -inverse_t @ gy @ inverse_t, rtol=1e-4, atol=1e-5)
