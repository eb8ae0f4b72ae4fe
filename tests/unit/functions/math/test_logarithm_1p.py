"""log1p: values (accurate near zero), gradients, type errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.math.logarithm_1p import Log1p, log1p
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, dtype, uniform, check_function):
    check_function(log1p, (uniform(shape, dtype, -0.5, 1.0),), numpy.log1p)


def test_tiny_inputs_keep_full_precision():
    x = numpy.array([1e-10, -1e-12], numpy.float64)
    y = log1p(x)
    numpy.testing.assert_allclose(y.array, x - x * x / 2, rtol=1e-14)


def test_label_and_type_check():
    assert Log1p().label == "log1p"
    with pytest.raises(type_check.InvalidType, match=r"log1p \(Forward\)"):
        log1p(numpy.arange(3, dtype=numpy.int32))
