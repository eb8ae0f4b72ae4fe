"""bilinear rounds as Chainer's CPU code does, so seeded runs print Chainer's losses to the last
bit: the value is the einsum outer product of e1 and e2 contracted with W, and the gradients are
einsum('ij,ik->jki', e1, e2).dot(gy) for W and einsums of e2 or e1 with gy W for e1 and e2.
Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


@pytest.mark.parametrize("with_linear", [False, True])
@pytest.mark.parametrize("e1_shape, e2_shape, out_size", [
    ((4, 3), (4, 5), 2), ((16, 10), (16, 12), 7), ((6, 2, 3), (6, 4), 5)])
def test_values_and_gradients_round_as_chainer(with_linear, e1_shape, e2_shape, out_size):
    rng = numpy.random.RandomState(0)
    j_size = int(numpy.prod(e1_shape[1:]))
    k_size = int(numpy.prod(e2_shape[1:]))
    e1 = (rng.standard_normal(e1_shape) * 2).astype(numpy.float32)
    e2 = (rng.standard_normal(e2_shape) * 2).astype(numpy.float32)
    w = rng.standard_normal((j_size, k_size, out_size)).astype(numpy.float32)
    arrays = [e1, e2, w]
    if with_linear:
        arrays += [rng.standard_normal((j_size, out_size)).astype(numpy.float32),
                   rng.standard_normal((k_size, out_size)).astype(numpy.float32),
                   rng.standard_normal(out_size).astype(numpy.float32)]
    gy = rng.standard_normal((e1_shape[0], out_size)).astype(numpy.float32)
    variables = [chainer.Variable(a) for a in arrays]
    y = F.bilinear(*variables)
    y.grad = gy
    y.backward()

    m1 = e1.reshape(len(e1), -1)
    m2 = e2.reshape(len(e2), -1)
    expected_y = numpy.tensordot(numpy.einsum("ij,ik->ijk", m1, m2), w, axes=2)
    gy_w = numpy.tensordot(gy, w, axes=(1, 2))
    expected = [numpy.einsum("ik,ijk->ij", m2, gy_w), numpy.einsum("ij,ijk->ik", m1, gy_w),
                numpy.einsum("ij,ik->jki", m1, m2).dot(gy)]
    if with_linear:
        v1, v2, b = arrays[3:]
        expected_y += m1.dot(v1)
        expected_y += m2.dot(v2)
        expected_y += b
        expected[0] += gy.dot(v1.T)
        expected[1] += gy.dot(v2.T)
        expected += [m1.T.dot(gy), m2.T.dot(gy), gy.sum(0)]
    numpy.testing.assert_array_equal(y.array, expected_y)
    expected[0] = expected[0].reshape(e1_shape)
    expected[1] = expected[1].reshape(e2_shape)
    for variable, expected_grad in zip(variables, expected):
        numpy.testing.assert_array_equal(variable.grad, expected_grad)
