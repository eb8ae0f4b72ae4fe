"""arctanh: values, gradients, type errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.math.arctanh import arctanh
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, dtype, uniform, check_function):
    check_function(arctanh, (uniform(shape, dtype, -0.9, 0.9),), numpy.arctanh)


def test_label_and_type_check():
    assert arctanh(numpy.zeros(2, numpy.float32)).creator.label == "Arctanh"
    with pytest.raises(type_check.InvalidType, match=r"Arctanh \(Forward\)"):
        arctanh(numpy.arange(3))
