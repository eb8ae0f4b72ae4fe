"""simplified_dropconnect: seeded masks, gradients of every order with fixed masks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.noise.simplified_dropconnect import (
    SimplifiedDropconnect,
    simplified_dropconnect,
)
from chainer_compat.utils import type_check


@pytest.mark.parametrize("batchwise", [True, False])
def test_gradients_of_first_and_second_order(xp, batchwise):
    rng = numpy.random.default_rng(0)
    x, w, b = rng.standard_normal((3, 2, 2)), rng.standard_normal((5, 4)), rng.standard_normal(5)
    mask_shape = (3, 5, 4) if batchwise else (5, 4)
    mask = xp.asarray(rng.random(mask_shape) > 0.3)
    x, w, b = xp.asarray(x), xp.asarray(w), xp.asarray(b)

    def function(x, w, b):
        return simplified_dropconnect(x, w, b, 0.3, mask=mask, use_batchwise_mask=batchwise)

    gy = xp.asarray(rng.standard_normal((3, 5)))
    gradient_check.check_backward(function, (x, w, b), gy)
    gradient_check.check_double_backward(
        function, (x, w, b), gy,
        tuple(xp.asarray(rng.standard_normal(a.shape)) for a in (x, w, b)))


def test_mask_is_drawn_from_the_seeded_generator():
    x = numpy.ones((2, 3), numpy.float32)
    w = numpy.ones((4, 3), numpy.float32)
    numpy.random.seed(5)
    node = SimplifiedDropconnect(0.5)
    y, = node.apply((x, w))
    numpy.random.seed(5)
    expected_mask = numpy.random.rand(2, 4, 3) >= 0.5
    numpy.testing.assert_array_equal(node.mask, expected_mask)
    numpy.testing.assert_allclose(y.array, expected_mask.sum(axis=2) * 2.0)


def test_mask_of_wrong_shape_is_invalid_type():
    with pytest.raises(type_check.InvalidType):
        simplified_dropconnect(numpy.ones((2, 3)), numpy.ones((4, 3)),
                               mask=numpy.ones((4, 3)))
