"""SimplifiedDropconnect link: initial weights, the persistent mask, gradients reach W."""

from __future__ import annotations

import numpy

from chainer_compat.functions.math.sum import sum as sum_function
from chainer_compat.links.activation.simplified_dropconnect import SimplifiedDropconnect


def test_first_mask_given_becomes_persistent():
    link = SimplifiedDropconnect(3, 2, ratio=0.5)
    mask = numpy.ones((2, 3), numpy.float32)
    x = numpy.ones((4, 3), numpy.float32)
    y = link(x, mask=mask, use_batchwise_mask=False)
    assert "mask" in link._persistent
    numpy.testing.assert_array_equal(link.mask, mask)
    numpy.testing.assert_allclose(y.array, numpy.tile(2 * link.W.array.sum(axis=1), (4, 1)),
                                  rtol=1e-5)


def test_backward_reaches_weight_and_bias():
    link = SimplifiedDropconnect(3, 2)
    link.cleargrads()
    numpy.random.seed(0)
    y = link(numpy.ones((4, 3), numpy.float32))
    sum_function(y).backward()
    assert link.W.grad is not None and link.W.grad.shape == (2, 3)
    numpy.testing.assert_array_equal(link.b.grad, numpy.full(2, 4.0, numpy.float32))


def test_default_weight_scale():
    numpy.random.seed(1)
    link = SimplifiedDropconnect(400, 50)
    # HeNormal(1 / sqrt(2)) has standard deviation sqrt(2 / in) / sqrt(2) = sqrt(1 / in).
    assert abs(float(link.W.array.std()) - (1 / 400) ** 0.5) < 0.005
