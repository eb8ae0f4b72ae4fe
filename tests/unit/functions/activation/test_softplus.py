"""softplus: values for several betas, gradients, stability, type errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable, grad
from chainer_compat.functions.activation.softplus import Softplus, softplus
from chainer_compat.functions.math.sum import sum as sum_
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("beta", [1.0, 2.5, 0.5])
@pytest.mark.parametrize("shape", [(), (3, 2)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(beta, shape, dtype, uniform, check_function):
    x = uniform(shape, dtype, low=-2.0, high=2.0)
    check_function(lambda x: softplus(x, beta), (x,),
                   lambda x: numpy.log1p(numpy.exp(beta * x)) / beta)


def test_large_inputs_do_not_overflow():
    with numpy.errstate(over="raise"):
        y = softplus(numpy.array([-1000.0, 1000.0], numpy.float32))
    numpy.testing.assert_allclose(y.array, [0.0, 1000.0])


def test_beta_and_its_inverse_are_stored_as_floats():
    f = Softplus(beta=4)
    assert (f.beta, f.beta_inv) == (4.0, 0.25)


def test_integer_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"Softplus \(Forward\)[\s\S]*x\.dtype"):
        softplus(numpy.arange(3))


@pytest.mark.parametrize("beta", [1.0, 3.0])
def test_second_order_gradient_stays_finite_for_large_inputs(beta):
    import chainer_compat

    x = chainer_compat.Variable(numpy.array([-200.0, -3.0, 0.5, 30.0, 60.0, 200.0], numpy.float32))
    g, = chainer_compat.grad([softplus(x, beta)], [x],
                             grad_outputs=[numpy.ones(6, numpy.float32)],
                             enable_double_backprop=True)
    g.grad = numpy.ones(6, numpy.float32)
    g.backward()
    t = beta * x.array.astype(numpy.float64)
    expected = beta * numpy.exp(-numpy.abs(t)) / (1 + numpy.exp(-numpy.abs(t))) ** 2
    assert numpy.isfinite(x.grad).all()
    numpy.testing.assert_allclose(x.grad, expected, rtol=1e-5, atol=1e-30)


def test_second_derivative_stays_finite_for_large_inputs_and_keeps_chainers_bits_elsewhere():
    # Chainer's e / (1 + e) ** 2 with e = exp(x) overflows at 50 and 100 (0 and NaN there);
    # those take exp(-|x|), while 10 keeps Chainer's expression, bit for bit.
    x = Variable(numpy.array([10.0, 50.0, 100.0], numpy.float32))
    gx, = grad([softplus(x)], [x], [Variable(numpy.ones(3, numpy.float32))],
               enable_double_backprop=True)
    ggx, = grad([sum_(gx)], [x])
    ones = numpy.ones(3, numpy.float32)
    with numpy.errstate(over="ignore", invalid="ignore"):  # Chainer's overflow, on purpose
        e = numpy.exp(x.array)
        chainers = (ones * ones * numpy.float32(1.0) * e
                    / (numpy.float32(1) + e) ** numpy.float32(2))
    assert ggx.array[0].tobytes() == chainers[0].tobytes()
    assert not numpy.isfinite(chainers[2]) or chainers[1] == 0  # where Chainer's breaks down
    numpy.testing.assert_allclose(ggx.array[1:], numpy.exp(-x.array[1:].astype(numpy.float64)),
                                  rtol=1e-5, atol=1e-44)  # 1e-44 is subnormal
