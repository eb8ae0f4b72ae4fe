"""Tests for chainer_compat.links.activation.prelu: PReLU's slope parameter, output and
gradients."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check, serializers
from chainer_compat.links.activation.prelu import PReLU
from chainer_compat.utils import type_check


def test_default_slope_is_scalar_quarter():
    link = PReLU()
    assert [name for name, _ in link.namedparams()] == ["/W"]
    assert link.W.shape == () and link.W.dtype == numpy.float32
    assert float(link.W.array) == 0.25


def test_shape_and_init_are_used():
    link = PReLU((3,), init=0.5)
    numpy.testing.assert_array_equal(link.W.array, numpy.full(3, 0.5, numpy.float32))


@pytest.mark.parametrize("shape", [(), (3,), (3, 4)])
def test_output_matches_numpy(shape):
    link = PReLU(shape)
    link.W.array[...] = numpy.random.rand(*shape)
    x = numpy.random.uniform(-1, 1, (2, 3, 4)).astype(numpy.float32)
    slope = link.W.array.reshape((1,) + shape + (1,) * (2 - len(shape)))
    expected = numpy.where(x >= 0, x, x * slope)
    numpy.testing.assert_allclose(link(x).array, expected, rtol=1e-6)


def test_mismatched_slope_shape_raises_invalid_type():
    with pytest.raises(type_check.InvalidType):
        PReLU((4,))(numpy.ones((2, 3), numpy.float32))


def test_backward_matches_numerical_gradient():
    with chainer.using_config("dtype", numpy.float64):
        link = PReLU((3,))
    x = numpy.random.uniform(0.1, 1, (2, 3, 4)) * numpy.random.choice([-1, 1], (2, 3, 4))
    gy = numpy.random.uniform(-1, 1, (2, 3, 4))
    gradient_check.check_backward(link, x, gy, link.W, dtype=numpy.float64)


def test_npz_round_trip(tmp_path):
    source = PReLU((2,), init=0.1)
    path = tmp_path / "prelu.npz"
    serializers.save_npz(str(path), source)
    target = PReLU((2,))
    serializers.load_npz(str(path), target)
    numpy.testing.assert_array_equal(target.W.array, source.W.array)
