"""tanh: values, first and second order gradients, memory, type errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.activation.tanh import Tanh, tanh
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, dtype, uniform, check_function):
    x = uniform(shape, dtype, low=-2.0, high=2.0)
    check_function(tanh, (x,), numpy.tanh)


def test_keeps_only_its_output_for_backward():
    x = Variable(numpy.ones(3, numpy.float32))
    y = tanh(x)
    assert x.node.data is None
    assert y.node.data is not None


def test_integer_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"Tanh \(Forward\)[\s\S]*x\.dtype"):
        tanh(numpy.arange(3))


def test_class_lives_at_chainers_module_path():
    assert Tanh.__module__ == "chainer_compat.functions.activation.tanh"
