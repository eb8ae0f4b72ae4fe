"""Chainer-visible behaviour of more math and array functions: squared_difference, arctanh,
fix, cumprod, batch_l2_norm_squared, det/batch_det, inv/batch_inv, einsum, depth2space,
space2depth, pad_sequence, transpose_sequence, and erf/erfc/ndtr (which Chainer computes even
without SciPy). Values and gradients against NumPy references written here, labels, dtypes
and exception types. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer 7.8.1
itself (whose venv has no SciPy, so the SciPy-only special functions are tested in
tests/unit/functions/math/test_special.py).
"""

from __future__ import annotations

import importlib
import itertools
import math
import os
import warnings

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
type_check = importlib.import_module(chainer.__name__ + ".utils.type_check")


def _function(name, *modules):
    """``F.<name>``, or the function from the first module under ``functions`` that has it
    (for names not yet exported from the package)."""
    if hasattr(F, name):
        return getattr(F, name)
    for module in modules:
        try:
            found = importlib.import_module(f"{F.__name__}.{module}")
        except ImportError:
            continue
        if hasattr(found, name):
            return getattr(found, name)
    raise AttributeError(f"no function {name} in {F.__name__} or {modules}")


squared_difference = _function("squared_difference", "loss.squared_error")
arctanh = _function("arctanh", "math.arctanh")
fix = _function("fix", "math.fix")
cumprod = _function("cumprod", "math.cumprod")
batch_l2_norm_squared = _function("batch_l2_norm_squared", "math.batch_l2_norm_squared")
det = _function("det", "math.det")
batch_det = _function("batch_det", "math.det")
inv = _function("inv", "math.inv")
batch_inv = _function("batch_inv", "math.inv")
einsum = _function("einsum", "math.einsum")
depth2space = _function("depth2space", "array.depth2space")
space2depth = _function("space2depth", "array.space2depth")
pad_sequence = _function("pad_sequence", "array.pad_sequence")
transpose_sequence = _function("transpose_sequence", "array.transpose_sequence")
erf = _function("erf", "math.erf")
erfc = _function("erfc", "math.erfc")
ndtr = _function("ndtr", "math.ndtr")


@pytest.fixture(autouse=True)
def _seeded():
    numpy.random.seed(0)


def _grads(func, *arrays, gy=None):
    """Runs ``func`` on Variables of ``arrays`` and backpropagates ``gy`` (ones by default);
    returns the output and the input gradients."""
    xs = [chainer.Variable(a) for a in arrays]
    y = func(*xs)
    y.grad = numpy.ones_like(y.array) if gy is None else gy
    y.backward()
    return y, [x.grad for x in xs]


# ---------------------------------------------------------------------- elementwise functions
def test_squared_difference_is_squared_error_with_chainers_argument_names():
    a, b = numpy.random.randn(2, 3), numpy.random.randn(2, 3)
    y, (ga, gb) = _grads(lambda a, b: squared_difference(a, b), a, b)
    numpy.testing.assert_allclose(y.array, (a - b) ** 2, rtol=1e-12)
    numpy.testing.assert_allclose(ga, 2 * (a - b), rtol=1e-12)
    numpy.testing.assert_allclose(gb, -2 * (a - b), rtol=1e-12)
    with pytest.raises(type_check.InvalidType):
        squared_difference(numpy.zeros(2, numpy.float32), numpy.zeros(3, numpy.float32))


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_arctanh_value_gradient_and_dtype(dtype):
    x = numpy.random.uniform(-0.9, 0.9, (2, 3)).astype(dtype)
    y, (gx,) = _grads(arctanh, x)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, numpy.arctanh(x), rtol=1e-3)
    numpy.testing.assert_allclose(gx, 1 / (1 - x.astype(numpy.float64) ** 2), rtol=1e-2)
    with pytest.raises(type_check.InvalidType):
        arctanh(numpy.arange(3))


def test_fix_rounds_toward_zero_outside_the_graph():
    x = chainer.Variable(numpy.array([-2.5, -0.5, 0.5, 2.5], numpy.float32))
    y = fix(x)
    assert y.creator is None and y.dtype == numpy.float32
    numpy.testing.assert_array_equal(y.array, [-2.0, -0.0, 0.0, 2.0])


@pytest.mark.parametrize("name, func, scalar", [
    ("erf", erf, math.erf), ("erfc", erfc, math.erfc),
    ("ndtr", ndtr, lambda v: 0.5 * math.erfc(-v / math.sqrt(2.0)))])
def test_erf_erfc_ndtr_values_gradients_and_labels(name, func, scalar):
    x = numpy.linspace(-2.0, 2.0, 9)
    with warnings.catch_warnings():
        # Without SciPy, Chainer computes these in Python after a PerformanceWarning.
        warnings.simplefilter("ignore")
        y, (gx,) = _grads(func, x)
    assert y.creator.label == name and y.dtype == numpy.float64
    numpy.testing.assert_allclose(y.array, [scalar(v) for v in x], rtol=1e-10, atol=1e-15)
    density = {"erf": 2 / math.sqrt(math.pi) * numpy.exp(-x ** 2),
               "erfc": -2 / math.sqrt(math.pi) * numpy.exp(-x ** 2),
               "ndtr": numpy.exp(-x ** 2 / 2) / math.sqrt(2 * math.pi)}[name]
    numpy.testing.assert_allclose(gx, density, rtol=1e-10)
    with pytest.raises(type_check.InvalidType):
        func(numpy.arange(3))


@pytest.mark.parametrize("label, call", [
    ("Arctanh", lambda: arctanh(numpy.zeros(2))),
    ("Cumprod", lambda: cumprod(numpy.ones(2))),
    ("BatchL2NormSquared", lambda: batch_l2_norm_squared(numpy.ones((2, 2)))),
    ("Inv", lambda: inv(numpy.eye(2))),
    ("BatchInv", lambda: batch_inv(numpy.ones((1, 1, 1)))),
    ("EinSum", lambda: einsum("i->", numpy.ones(2))),
    ("Depth2Space", lambda: depth2space(numpy.ones((1, 4, 1, 1)), 2)),
    ("Space2Depth", lambda: space2depth(numpy.ones((1, 1, 2, 2)), 2)),
    ("PadSequence", lambda: pad_sequence([numpy.ones(2)])),
    ("TransposeSequence", lambda: transpose_sequence([numpy.ones(2)])[0])])
def test_labels(label, call):
    assert call().creator.label == label


# ------------------------------------------------------------------------------- reductions
def _cumprod_gradient(x, gy, axis):
    """dL/dx[j] = sum over i >= j of gy[i] * prod of x[k] for k <= i, k != j (no division)."""
    x, gy = numpy.moveaxis(x, axis, -1), numpy.moveaxis(gy, axis, -1)
    gx = numpy.zeros_like(x)
    n = x.shape[-1]
    for j, i in itertools.product(range(n), range(n)):
        if i >= j:
            others = [x[..., k] for k in range(i + 1) if k != j]
            gx[..., j] += gy[..., i] * numpy.prod(others, axis=0)
    return numpy.moveaxis(gx, -1, axis)


@pytest.mark.parametrize("shape, axis", [((4,), 0), ((2, 4), 1), ((3, 2), 0), ((2, 3), -1)])
def test_cumprod_values_and_gradients_with_zeros(shape, axis):
    x = numpy.random.uniform(-1, 1, shape)
    x.flat[1] = 0.0
    gy = numpy.random.randn(*shape)
    y, (gx,) = _grads(lambda x: cumprod(x, axis=axis), x, gy=gy)
    numpy.testing.assert_allclose(y.array, numpy.cumprod(x, axis=axis), rtol=1e-12)
    numpy.testing.assert_allclose(gx, _cumprod_gradient(x, gy, axis), rtol=1e-10, atol=1e-12)


def test_cumprod_without_axis_flattens():
    x = numpy.random.uniform(-1, 1, (2, 3))
    gy = numpy.random.randn(6)
    y, (gx,) = _grads(cumprod, x, gy=gy)
    assert y.shape == (6,) and gx.shape == (2, 3)
    numpy.testing.assert_allclose(gx.ravel(), _cumprod_gradient(x.ravel(), gy, 0), rtol=1e-10)


def test_cumprod_argument_errors():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        cumprod(x, axis=2)
    with pytest.raises(TypeError):
        cumprod(x, axis=(0,))


def test_batch_l2_norm_squared_values_gradients_and_checks():
    x = numpy.random.randn(3, 2, 2)
    gy = numpy.random.randn(3)
    y, (gx,) = _grads(batch_l2_norm_squared, x, gy=gy)
    assert y.shape == (3,)
    numpy.testing.assert_allclose(y.array, (x ** 2).sum(axis=(1, 2)), rtol=1e-12)
    numpy.testing.assert_allclose(gx, 2 * x * gy[:, None, None], rtol=1e-12)
    with pytest.raises(type_check.InvalidType):
        batch_l2_norm_squared(numpy.zeros(3, numpy.float32))


# ----------------------------------------------------------------------------- linear algebra
def _matrices(*shape):
    return numpy.random.uniform(-0.5, 0.5, shape) + 2.0 * numpy.eye(shape[-1])


def test_det_and_batch_det_values_gradients_and_label():
    a = _matrices(3, 3)
    y, (ga,) = _grads(det, a)
    assert y.shape == ()
    numpy.testing.assert_allclose(y.array, numpy.linalg.det(a), rtol=1e-12)
    numpy.testing.assert_allclose(ga, numpy.linalg.det(a) * numpy.linalg.inv(a).T, rtol=1e-10)
    batch = _matrices(2, 3, 3)
    gy = numpy.random.randn(2)
    y, (gb,) = _grads(batch_det, batch, gy=gy)
    assert y.creator.label == "det" and y.shape == (2,)
    expected = (gy * numpy.linalg.det(batch))[:, None, None] * numpy.linalg.inv(batch).transpose(
        0, 2, 1)
    numpy.testing.assert_allclose(gb, expected, rtol=1e-10)


def test_inv_and_batch_inv_values_and_gradients():
    a = _matrices(3, 3)
    gy = numpy.random.randn(3, 3)
    y, (ga,) = _grads(inv, a, gy=gy)
    inverse = numpy.linalg.inv(a)
    numpy.testing.assert_allclose(y.array, inverse, rtol=1e-12)
    numpy.testing.assert_allclose(ga, -inverse.T @ gy @ inverse.T, rtol=1e-10)
    batch = _matrices(2, 3, 3)
    y, _ = _grads(batch_inv, batch)
    numpy.testing.assert_allclose(y.array, numpy.linalg.inv(batch), rtol=1e-12)


@pytest.mark.parametrize("func, shape", [(inv, (2, 2)), (batch_inv, (2, 2, 2)),
                                         (batch_det, (2, 2, 2))])
def test_float16_linear_algebra_keeps_float16(func, shape):
    y = func(_matrices(*shape).astype(numpy.float16))
    assert y.dtype == numpy.float16


@pytest.mark.parametrize("func, a", [(inv, numpy.ones((2, 2))),
                                     (batch_inv, numpy.ones((2, 2, 2)))])
def test_singular_matrix_raises_value_error(func, a):
    with pytest.raises(ValueError, match="Input has singular matrices"):
        func(a)


@pytest.mark.parametrize("func, a", [
    (inv, numpy.zeros((2, 3))), (inv, numpy.zeros((2, 2, 2))), (batch_inv, numpy.zeros((2, 2))),
    (batch_det, numpy.zeros((2, 2))), (batch_det, numpy.zeros((2, 2, 3))),
    (det, numpy.zeros((2, 3))), (det, numpy.zeros((2, 2), numpy.int32))])
def test_linear_algebra_type_checks(func, a):
    with pytest.raises(type_check.InvalidType):
        func(a)


# ---------------------------------------------------------------------------------- einsum
@pytest.mark.parametrize("subscripts, shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]), ("ij->", [(2, 3)]), ("ji", [(2, 3)]), ("i,j->ij", [(2,), (3,)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)])])
def test_einsum_values_match_numpy(subscripts, shapes):
    xs = [numpy.random.randn(*shape) for shape in shapes]
    y = einsum(subscripts, *xs)
    expected = numpy.einsum(subscripts, *xs)
    assert y.shape == expected.shape
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-12)


def test_einsum_gradients_of_a_product_and_a_trace():
    a, b = numpy.random.randn(2, 3), numpy.random.randn(3, 4)
    gy = numpy.random.randn(2, 4)
    _, (ga, gb) = _grads(lambda a, b: einsum("ij,jk->ik", a, b), a, b, gy=gy)
    numpy.testing.assert_allclose(ga, gy @ b.T, rtol=1e-12)
    numpy.testing.assert_allclose(gb, a.T @ gy, rtol=1e-12)
    m = numpy.random.randn(3, 3)
    _, (gm,) = _grads(lambda m: einsum("ii", m), m, gy=numpy.array(2.0))
    numpy.testing.assert_array_equal(gm, 2.0 * numpy.eye(3))


def test_einsum_sublist_form():
    a, b = numpy.random.randn(2, 3), numpy.random.randn(3, 4)
    numpy.testing.assert_allclose(einsum(a, [0, 1], b, [1, 2], [0, 2]).array, a @ b,
                                  rtol=1e-12)


@pytest.mark.parametrize("operands, error", [
    ((), ValueError), (("i$j", numpy.ones(2)), ValueError),
    (("i->j->k", numpy.ones(2)), ValueError), (("i..j", numpy.ones(2)), ValueError),
    (("i->j", numpy.ones(2)), ValueError), (("i,j", numpy.ones(2)), ValueError),
    (("...i->i", numpy.ones((2, 3))), ValueError), ((numpy.ones(2), ["i"]), TypeError),
    (("ij,jk->ik", numpy.ones((2, 3)), numpy.ones((4, 5))), type_check.InvalidType),
    (("i->i", numpy.arange(3)), type_check.InvalidType)])
def test_einsum_error_types(operands, error):
    with pytest.raises(error):
        einsum(*operands)


# ----------------------------------------------------------------------------- array layout
def test_depth2space_and_space2depth_layout_and_gradients():
    x = numpy.random.randn(2, 8, 3, 5)
    y, (gx,) = _grads(lambda x: depth2space(x, 2), x)
    assert y.shape == (2, 2, 6, 10)
    # Output pixel (2h + i, 2w + j) of channel k is input channel (2i + j) * 2 + k.
    for i, j, k in itertools.product(range(2), range(2), range(2)):
        numpy.testing.assert_array_equal(y.array[:, k, i::2, j::2], x[:, (2 * i + j) * 2 + k])
    numpy.testing.assert_array_equal(gx, numpy.ones_like(x))
    numpy.testing.assert_array_equal(space2depth(y, 2).array, x)
    with pytest.raises(ValueError):
        depth2space(numpy.zeros((1, 3, 2, 2), numpy.float32), 2)
    with pytest.raises(ValueError):
        space2depth(numpy.zeros((1, 1, 3, 2), numpy.float32), 2)
    with pytest.raises(type_check.InvalidType):
        depth2space(numpy.zeros((4, 2, 2), numpy.float32), 2)


def test_pad_sequence_values_gradients_and_checks():
    xs = [numpy.random.randn(3, 2), numpy.random.randn(1, 2)]
    gy = numpy.random.randn(2, 4, 2)
    y, (g0, g1) = _grads(lambda *xs: pad_sequence(xs, length=4, padding=-1.0), *xs, gy=gy)
    assert y.shape == (2, 4, 2)
    numpy.testing.assert_array_equal(y.array[0, :3], xs[0])
    numpy.testing.assert_array_equal(y.array[1, :1], xs[1])
    assert (y.array[0, 3:] == -1).all() and (y.array[1, 1:] == -1).all()
    numpy.testing.assert_array_equal(g0, gy[0, :3])
    numpy.testing.assert_array_equal(g1, gy[1, :1])
    with pytest.raises(type_check.InvalidType):
        pad_sequence(xs, length=2)
    with pytest.raises(type_check.InvalidType):
        pad_sequence([numpy.zeros((2, 1)), numpy.zeros((2, 2))])


def test_transpose_sequence_values_gradients_and_checks():
    xs = [chainer.Variable(numpy.random.randn(n, 2)) for n in (3, 2, 2)]
    ys = transpose_sequence(xs)
    assert isinstance(ys, tuple) and [y.shape for y in ys] == [(3, 2), (3, 2), (1, 2)]
    for t, y in enumerate(ys):
        numpy.testing.assert_array_equal(
            y.array, numpy.stack([x.array[t] for x in xs if len(x) > t]))
    loss = sum(F.sum(y * (t + 1)) for t, y in enumerate(ys))
    loss.backward()
    for x in xs:
        numpy.testing.assert_array_equal(x.grad, numpy.arange(1, len(x) + 1)[:, None]
                                         * numpy.ones((1, 2)))
    assert transpose_sequence([]) == ()
    with pytest.raises(type_check.InvalidType):
        transpose_sequence([numpy.zeros(1), numpy.zeros(2)])
