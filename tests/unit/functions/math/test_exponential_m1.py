"""expm1: values (accurate near zero), gradients, type errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.math.exponential_m1 import Expm1, expm1
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, dtype, uniform, check_function):
    check_function(expm1, (uniform(shape, dtype),), numpy.expm1)


def test_tiny_inputs_keep_full_precision():
    x = numpy.array([1e-10, -1e-12], numpy.float64)
    numpy.testing.assert_allclose(expm1(x).array, x + x * x / 2, rtol=1e-14)


def test_backward_uses_the_output_not_the_input():
    x = Variable(numpy.ones(3, numpy.float32))
    y = expm1(x)
    assert x.node.data is None
    assert y.node.data is not None


def test_label_and_type_check():
    assert Expm1().label == "expm1"
    with pytest.raises(type_check.InvalidType, match=r"expm1 \(Forward\)"):
        expm1(numpy.arange(3))
