"""matmul and batch_matmul: NumPy's matmul rules, transposes, gradients, dtype and shape errors."""

from __future__ import annotations

import warnings

import numpy
import pytest
from gradient_paths import gradients_under_a_hook
from numpy_sum_reference import plain_loop_matmul

from chainer_compat import Variable, functions, grad
from chainer_compat.functions.math.matmul import BatchMatMul, MatMul, batch_matmul, matmul
from chainer_compat.utils import type_check
from chainer_compat.utils._matmul_order import matmul_in_numpy1_order, numpy1_uses_loop

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


def test_batch_matmul_second_order_gradients_of_only_one_first_order_gradient():
    # Chainer 7.8.1 fails here (BatchMatMulGrad.backward reads the missing ggb); a's gradient
    # needs ggb, so it is None, and b's and gy's come from gga alone.
    rng = numpy.random.default_rng(3)
    a, b = (Variable(rng.standard_normal(shape).astype(numpy.float32))
            for shape in ((2, 3, 4), (2, 4, 5)))
    gy = Variable(rng.standard_normal((2, 3, 5)).astype(numpy.float32))
    weight = rng.standard_normal((2, 3, 4)).astype(numpy.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        y = batch_matmul(a, b)
    ga, _ = grad([y], [a, b], grad_outputs=[gy], enable_double_backprop=True)
    g_a, g_b, g_gy = grad([ga], [a, b, gy], grad_outputs=[Variable(weight)])
    assert g_a is None
    numpy.testing.assert_allclose(g_b.array, numpy.matmul(weight.swapaxes(1, 2), gy.array),
                                  rtol=1e-5, atol=1e-5)
    numpy.testing.assert_allclose(g_gy.array, numpy.matmul(weight, b.array),
                                  rtol=1e-5, atol=1e-5)


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


# NumPy 1.26's plain matmul loop, against which Chainer's CPU products are pinned (NOTE [NumPy 1
# matmul dispatch] in chainer_compat/utils/_matmul_order.py).


def _layout(rng, shape, dtype, layout):
    """A float array of ``shape`` laid out as named (the matrix axes are the last two)."""
    rows, columns = shape[-2:]
    make = lambda *s: rng.standard_normal(s).astype(dtype)  # noqa: E731
    if layout == "c":
        return make(*shape)
    if layout == "fortran":
        return numpy.asfortranarray(make(*shape))
    if layout == "transposed":
        return numpy.swapaxes(make(*shape[:-2], columns, rows), -1, -2)
    if layout == "row_step":
        return make(*shape[:-2], 2 * rows, columns)[..., ::2, :]
    if layout == "column_step":
        return make(*shape[:-2], rows, 2 * columns)[..., ::2]
    if layout == "broadcast_rows":
        return numpy.broadcast_to(make(*shape[:-2], 1, columns), shape)
    if layout == "broadcast_stack":
        return numpy.broadcast_to(make(rows, columns), (3,) + shape[-2:])
    if layout == "reversed":
        return make(*shape)[..., ::-1, :]
    raise ValueError(layout)


BLASABLE = ["c", "fortran", "transposed", "row_step"]
LOOPING = ["column_step", "broadcast_rows", "reversed"]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("layout_a", BLASABLE + LOOPING + ["broadcast_stack"])
@pytest.mark.parametrize("layout_b", BLASABLE + LOOPING)
def test_numpy_product_rounds_as_numpy1(dtype, layout_a, layout_b):
    rng = numpy.random.default_rng(7)
    a = _layout(rng, (6, 20), dtype, layout_a)
    b = _layout(rng, (20, 5), dtype, layout_b)
    y = matmul(a, b).array
    if dtype == numpy.float16 or layout_a in LOOPING or layout_b in LOOPING:
        numpy.testing.assert_array_equal(y, plain_loop_matmul(a, b))
    else:
        # Where NumPy 1.26 called BLAS, the very same call (no copy, same routine).
        numpy.testing.assert_array_equal(y, numpy.matmul(a, b))


@pytest.mark.parametrize("a_shape, b_shape, layout_a, layout_b, loops", [
    ((6, 20), (20, 5), "c", "c", False),
    ((6, 20), (20, 5), "fortran", "transposed", False),
    ((6, 20), (20, 5), "row_step", "c", False),      # a longer leading dimension: still BLAS
    ((6, 20), (20, 5), "column_step", "c", True),
    ((6, 20), (20, 5), "broadcast_rows", "c", True),
    ((6, 20), (20, 5), "c", "reversed", True),
    ((1, 20), (20, 1), "c", "c", False),             # a dot product: BLAS ?dot
    ((1, 20), (20, 1), "c", "broadcast_rows", True),  # ... with a zero step: the loop
    ((6, 1), (1, 5), "c", "c", True),                # n == 1: always the loop
    ((1, 20), (20, 5), "c", "column_step", True),
    ((1, 20), (20, 5), "c", "c", False),             # row @ matrix: gemv
    ((6, 20), (20, 1), "fortran", "c", False),       # matrix @ column: gemv
])
def test_dispatch_predicate_follows_numpy1(a_shape, b_shape, layout_a, layout_b, loops):
    rng = numpy.random.default_rng(8)
    a = _layout(rng, a_shape, numpy.float32, layout_a)
    b = _layout(rng, b_shape, numpy.float32, layout_b)
    assert numpy1_uses_loop(a, b) is loops
    assert numpy1_uses_loop(a.astype(numpy.float16), b.astype(numpy.float16)) is True
    expected = plain_loop_matmul(a, b) if loops else numpy.matmul(a, b)
    numpy.testing.assert_array_equal(matmul_in_numpy1_order(a, b), expected)


def test_vectors_with_zero_or_negative_steps_loop_and_positive_steps_do_not():
    rng = numpy.random.default_rng(9)
    matrix = rng.standard_normal((12, 7)).astype(numpy.float32)
    vector = rng.standard_normal(24).astype(numpy.float32)
    assert not numpy1_uses_loop(vector[::2], matrix)
    assert numpy1_uses_loop(vector[12:][::-1], matrix)
    assert numpy1_uses_loop(numpy.broadcast_to(vector[:1], (12,)), matrix)
    assert numpy1_uses_loop(vector[:12], matrix[:, ::-1])
    for a, b in [(vector[12:][::-1], matrix), (matrix.T, vector[12:][::-1]),
                 (vector[:12][::-1], vector[12:])]:
        numpy.testing.assert_array_equal(matmul(a, b).array, plain_loop_matmul(a, b))


def test_sum_of_matmul_backward_adds_the_broadcast_gradient_in_order():
    rng = numpy.random.default_rng(10)
    a = Variable(rng.standard_normal((16, 24)).astype(numpy.float32))
    b = Variable(rng.standard_normal((24, 20)).astype(numpy.float32))
    # The forward is BLAS; the gradients meet sum's broadcast (zero-step) gradient.
    functions.sum(matmul(a, b)).backward()
    ones = numpy.ones((16, 20), numpy.float32)
    numpy.testing.assert_array_equal(a.grad, plain_loop_matmul(ones, b.array.T))
    numpy.testing.assert_array_equal(b.grad, plain_loop_matmul(a.array.T, ones))


def test_x_times_its_transpose_keeps_numpys_call():
    # NumPy picks syrk for x @ x.T on one buffer; a copy of either side would make it gemm.
    x = numpy.random.default_rng(11).standard_normal((30, 40)).astype(numpy.float32)
    numpy.testing.assert_array_equal(matmul(x, x, transb=True).array, numpy.matmul(x, x.T))
    numpy.testing.assert_array_equal(matmul(x, x, transa=True).array, numpy.matmul(x.T, x))


def test_loop_keeps_numpy1_signed_zeros_and_empty_contractions():
    # The loop starts from +0: a lone -0 product gives +0.
    a = numpy.array([[-0.0], [1.0]], numpy.float32)
    b = numpy.array([[0.0, -0.0]], numpy.float32)
    y = matmul_in_numpy1_order(numpy.broadcast_to(a, (2, 1)), b)
    assert not numpy.signbit(y).any()
    empty = matmul_in_numpy1_order(numpy.zeros((3, 0), numpy.float32),
                                   numpy.zeros((0, 4), numpy.float32))
    numpy.testing.assert_array_equal(empty, numpy.zeros((3, 4), numpy.float32))


def test_mixed_dtypes_cast_first_and_then_call_blas():
    # NumPy 1.26 cast (so copied) the float32 operand; the copy is blasable.
    rng = numpy.random.default_rng(12)
    a = numpy.broadcast_to(rng.standard_normal((1, 20)).astype(numpy.float32), (6, 20))
    b = rng.standard_normal((20, 5))
    y = matmul_in_numpy1_order(a, b)
    assert y.dtype == numpy.float64
    numpy.testing.assert_array_equal(y, numpy.matmul(a.astype(numpy.float64), b))


def test_stacks_broadcast_in_the_loop():
    rng = numpy.random.default_rng(13)
    a = rng.standard_normal((2, 1, 4, 9)).astype(numpy.float32)
    b = numpy.broadcast_to(rng.standard_normal((9, 1)).astype(numpy.float32), (3, 9, 5))
    numpy.testing.assert_array_equal(matmul_in_numpy1_order(a, b), plain_loop_matmul(a, b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        batch = batch_matmul(rng.standard_normal((3, 4, 9)).astype(numpy.float32), b).array
    assert batch.shape == (3, 4, 5)


def test_cupy_product_is_cupys_matmul(cupy):
    rng = numpy.random.default_rng(14)
    a = cupy.asarray(rng.standard_normal((6, 20)).astype(numpy.float32))
    b = cupy.broadcast_to(cupy.asarray(rng.standard_normal((1, 5)).astype(numpy.float32)),
                          (20, 5))
    cupy.testing.assert_array_equal(matmul(a, b).array, cupy.matmul(a, b))


def test_a_vector_times_a_matrix_of_the_wrong_size_is_reported_as_chainer_reports_it():
    with pytest.raises(type_check.InvalidType) as info:
        matmul(numpy.ones(3, numpy.float32), numpy.ones((2, 2), numpy.float32))
    assert str(info.value).endswith("Expect: a.shape[0] == b.shape[-2]\nActual: 3 != 2")
