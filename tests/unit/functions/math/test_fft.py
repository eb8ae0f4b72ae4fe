"""fft and ifft: round trip, gradients of every order, one missing output gradient."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.math.fft import fft, ifft
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def test_ifft_inverts_fft(xp):
    rng = numpy.random.default_rng(0)
    real = xp.asarray(rng.standard_normal((2, 6)).astype(numpy.float32))
    imag = xp.asarray(rng.standard_normal((2, 6)).astype(numpy.float32))
    back_real, back_imag = ifft(fft((real, imag)))
    assert back_real.dtype == numpy.float32
    numpy.testing.assert_allclose(_host(back_real.array), _host(real), atol=1e-5)
    numpy.testing.assert_allclose(_host(back_imag.array), _host(imag), atol=1e-5)


@pytest.mark.parametrize("function", [fft, ifft])
def test_gradients_of_first_and_second_order(function):
    rng = numpy.random.default_rng(1)
    inputs = (rng.standard_normal((3, 5)), rng.standard_normal((3, 5)))
    grads = (rng.standard_normal((3, 5)), rng.standard_normal((3, 5)))
    grad_grads = (rng.standard_normal((3, 5)), rng.standard_normal((3, 5)))
    gradient_check.check_backward(lambda r, i: function((r, i)), inputs, grads)
    gradient_check.check_double_backward(lambda r, i: function((r, i)), inputs, grads,
                                         grad_grads)


def test_gradient_of_the_real_part_only():
    real = chainer_compat.Variable(numpy.random.default_rng(2).standard_normal(4))
    imag = chainer_compat.Variable(numpy.zeros(4))
    y_real, _ = fft((real, imag))
    y_real.grad = numpy.ones(4)
    y_real.backward()
    # d sum(Re(F x)) / dx_real = Re(sum of each column of F) = (4, 0, 0, 0).
    numpy.testing.assert_allclose(real.grad, [4, 0, 0, 0], atol=1e-12)


def test_mismatched_parts_are_invalid_type():
    with pytest.raises(type_check.InvalidType):
        fft((numpy.zeros(3), numpy.zeros(4)))
