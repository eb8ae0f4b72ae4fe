"""bilinear: forward against einsum, gradients (first and second order), argument errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import LabelRecorder

import chainer_compat
from chainer_compat import Variable, gradient_check
from chainer_compat.functions.connection.bilinear import bilinear
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _inputs(rng, dtype, with_linear, e1_shape=(3, 2), e2_shape=(3, 4)):
    j = int(numpy.prod(e1_shape[1:]))
    k = int(numpy.prod(e2_shape[1:]))
    arrays = [rng.standard_normal(e1_shape), rng.standard_normal(e2_shape),
              rng.standard_normal((j, k, 5))]
    if with_linear:
        arrays += [rng.standard_normal((j, 5)), rng.standard_normal((k, 5)),
                   rng.standard_normal(5)]
    return tuple(a.astype(dtype) for a in arrays)


def _reference(arrays):
    e1 = arrays[0].reshape(len(arrays[0]), -1).astype(numpy.float64)
    e2 = arrays[1].reshape(len(arrays[1]), -1).astype(numpy.float64)
    y = numpy.einsum("ij,ik,jkl->il", e1, e2, arrays[2].astype(numpy.float64))
    if len(arrays) == 6:
        y += e1 @ arrays[3] + e2 @ arrays[4] + arrays[5]
    return y


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("with_linear", [False, True])
def test_forward_matches_einsum(xp, dtype, with_linear):
    arrays = _inputs(numpy.random.default_rng(0), dtype, with_linear, e1_shape=(3, 1, 2))
    y = bilinear(*[xp.asarray(a) for a in arrays])
    assert y.shape == (3, 5) and y.dtype == dtype
    tolerance = {"atol": 5e-2, "rtol": 5e-2} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(_host(y.array), _reference(arrays), **tolerance)


@pytest.mark.parametrize("with_linear", [False, True])
def test_backward_and_double_backward_match_numerical(xp, with_linear):
    rng = numpy.random.default_rng(1)
    arrays = tuple(xp.asarray(a) for a in _inputs(rng, numpy.float64, with_linear,
                                                    e2_shape=(3, 2, 2)))
    gy = xp.asarray(rng.standard_normal((3, 5)))
    grad_grads = tuple(xp.asarray(rng.standard_normal(a.shape)) for a in arrays)
    gradient_check.check_backward(bilinear, arrays, gy)
    gradient_check.check_double_backward(bilinear, arrays, gy, grad_grads)


def test_partial_linear_parameters_raise_value_error():
    arrays = _inputs(numpy.random.default_rng(2), numpy.float32, True)
    with pytest.raises(ValueError, match="V1, V2 and b of bilinear must be given all together"):
        bilinear(*arrays[:4])


def test_weight_shape_mismatch_raises_invalid_type():
    arrays = _inputs(numpy.random.default_rng(3), numpy.float32, False)
    with pytest.raises(type_check.InvalidType, match=r"BilinearFunction[\s\S]*W\.shape\[1\]"):
        bilinear(arrays[0], arrays[1], numpy.zeros((2, 3, 5), numpy.float32))


def test_mixed_dtypes_raise_invalid_type():
    arrays = _inputs(numpy.random.default_rng(4), numpy.float32, False)
    with pytest.raises(type_check.InvalidType, match=r"e2\.dtype == e1\.dtype"):
        bilinear(arrays[0], arrays[1].astype(numpy.float64), arrays[2])


def _bilinear_grad_node(arrays, gy):
    """The BilinearFunctionGrad node of ``bilinear(*arrays)``'s backward, recorded for double
    backprop."""
    inputs = [Variable(a) for a in arrays]
    grads = chainer_compat.grad([bilinear(*inputs)], inputs, [Variable(gy)],
                                enable_double_backprop=True)
    return grads[0].creator


def _outer_then_product(a, b, c, transpose):
    """Chainer's contractions: the batched outer product of a and b by matmul, flattened, then
    one matrix product with c (the flattened outer product transposed when ``transpose``)."""
    outer = numpy.matmul(a[:, :, None], b[:, None, :]).reshape(len(a), -1)
    if transpose:
        return numpy.matmul(outer.T, c).reshape(a.shape[1], b.shape[1], c.shape[1])
    return numpy.matmul(outer, c.reshape(-1, c.shape[-1]))


def _double_backward_in_chainers_order(arrays, gy, upstream):
    """BilinearFunctionGrad's gradients as Chainer 7.8.1 computes them (NOTE [Bilinear double
    backward]): nine contractions, then their sums, then the linear terms."""
    e1, e2, w = arrays[:3]
    gge1, gge2, ggw = upstream[:3]

    def to_ik(a, b, c):  # ij,il,jkl->ik
        return _outer_then_product(a, b, c.swapaxes(1, 2), False)

    def to_ij(a, b, c):  # ik,il,jkl->ij
        return _outer_then_product(a, b, numpy.moveaxis(c, 0, -1), False)

    ge1 = to_ij(e2, gy, ggw) + to_ij(gge2, gy, w)
    ge2 = to_ik(e1, gy, ggw) + to_ik(gge1, gy, w)
    gw = _outer_then_product(gge1, e2, gy, True) + _outer_then_product(e1, gge2, gy, True)
    ggy = (_outer_then_product(e1, e2, ggw, False) + _outer_then_product(gge1, e2, w, False)
           + _outer_then_product(e1, gge2, w, False))
    grads = [ge1, ge2, gw]
    if len(arrays) == 6:
        v1, v2 = arrays[3:5]
        ggv1, ggv2, ggb = upstream[3:]
        grads += [numpy.matmul(gge1.T, gy), numpy.matmul(gge2.T, gy)]
        grads[0] = ge1 + numpy.matmul(gy, ggv1.T)
        grads[1] = ge2 + numpy.matmul(gy, ggv2.T)
        for left, right in ((gge1, v1), (gge2, v2), (e1, ggv1), (e2, ggv2)):
            ggy = ggy + numpy.matmul(left, right)
        ggy = ggy + numpy.broadcast_to(ggb, ggy.shape)
    return grads + [ggy]


@pytest.mark.parametrize("with_linear", [False, True])
def test_second_order_gradients_round_as_chainers(with_linear):
    rng = numpy.random.default_rng(8)
    arrays = _inputs(rng, numpy.float32, with_linear, (6, 5), (6, 7))
    upstream = _inputs(rng, numpy.float32, with_linear, (6, 5), (6, 7))
    gy = rng.standard_normal((6, 5)).astype(numpy.float32)
    node = _bilinear_grad_node(arrays, gy)
    grads = node.backward(tuple(range(len(node.inputs))), [Variable(g) for g in upstream])
    for grad, want in zip(grads, _double_backward_in_chainers_order(arrays, gy, upstream)):
        assert grad.array.tobytes() == numpy.asarray(want).tobytes()


def test_double_backward_applies_chainers_contractions():
    rng = numpy.random.default_rng(9)
    arrays = _inputs(rng, numpy.float32, False)
    node = _bilinear_grad_node(arrays, rng.standard_normal((3, 5)).astype(numpy.float32))
    with chainer_compat.no_backprop_mode(), LabelRecorder() as recorder:
        node.backward((0, 1, 2, 3), [Variable(a) for a in _inputs(rng, numpy.float32, False)])
    # Chainer 7.8.1's contractions: an outer product (two GetItems, a MatMul), then one
    # matrix product, with W (or ggW) first swapped or rolled into place for the e1 and e2
    # gradients; then the sums, one for each of e1, e2 and W, two for gy.
    outer = ["GetItem", "GetItem", "MatMul"]
    to_il = outer + ["Reshape", "Reshape", "MatMul"]
    to_jkl = outer + ["Reshape", "Transpose", "MatMul", "Reshape"]
    to_ik, to_ij = ["Swapaxes"] + to_il, ["Rollaxis"] + to_il
    assert recorder.labels == (to_ik + to_jkl + to_il      # of gge1
                               + to_ij + to_jkl + to_il    # of gge2
                               + to_ij + to_ik + to_il     # of ggW
                               + ["_ + _"] * 5)
