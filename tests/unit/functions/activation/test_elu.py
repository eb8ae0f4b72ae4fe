"""elu and selu: values, first and second order gradients, parameters, type errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.activation.elu import ELU, elu
from chainer_compat.functions.activation.selu import selu
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _elu_reference(x, alpha):
    return numpy.where(x > 0, x, alpha * (numpy.exp(x) - 1))


@pytest.mark.parametrize("alpha", [1.0, 0.5, -0.3])
@pytest.mark.parametrize("shape", [(), (3, 2)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_elu_values_and_gradients_match_numpy(alpha, shape, dtype, uniform, check_function):
    x = uniform(shape, dtype, gap=0.1)
    check_function(lambda x: elu(x, alpha), (x,), lambda x: _elu_reference(x, alpha))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_selu_values_and_gradients_match_numpy(dtype, uniform, check_function):
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    x = uniform((4, 3), dtype, gap=0.1)
    check_function(selu, (x,), lambda x: scale * _elu_reference(x, alpha))


def test_selu_takes_custom_parameters():
    x = numpy.array([-1.0, 2.0])
    numpy.testing.assert_allclose(selu(x, alpha=2.0, scale=3.0).array,
                                  3.0 * _elu_reference(x, 2.0))


def test_alpha_is_stored_as_float():
    assert ELU(alpha=2).alpha == 2.0
    assert isinstance(ELU(alpha=2).alpha, float)


def test_integer_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"ELU \(Forward\)[\s\S]*x\.dtype"):
        elu(numpy.arange(3))


@pytest.mark.parametrize("function", [elu, selu], ids=["elu", "selu"])
def test_large_positive_inputs_raise_no_overflow(function):
    # Chainer's CPU code takes expm1 of the non-positive entries only.
    x = numpy.array([-1.0, 0.5, 100.0, -0.0], numpy.float32)
    with numpy.errstate(all="raise"):
        y = function(x)
    assert numpy.isfinite(y.array).all() and y.array[2] >= 100.0
    assert numpy.signbit(y.array[3])  # expm1(-0) is -0, as Chainer's
