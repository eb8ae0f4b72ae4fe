"""squared_difference: Chainer's second name for squared_error."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.loss.squared_error import squared_difference
from chainer_compat.utils import type_check


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_values_and_gradients(dtype, uniform, check_function):
    check_function(squared_difference, (uniform((2, 3), dtype), uniform((2, 3), dtype)),
                   lambda a, b: (a - b) ** 2)


def test_mismatched_inputs_are_rejected():
    with pytest.raises(type_check.InvalidType):
        squared_difference(numpy.zeros(3, numpy.float32), numpy.zeros(2, numpy.float32))
    with pytest.raises(type_check.InvalidType):
        squared_difference(numpy.zeros(3, numpy.float32), numpy.zeros(3, numpy.float64))
