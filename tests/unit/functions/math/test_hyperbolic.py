"""sinh and cosh: values, gradients, type errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.math import hyperbolic
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
CASES = {"sinh": (hyperbolic.sinh, numpy.sinh), "cosh": (hyperbolic.cosh, numpy.cosh)}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(name, shape, dtype, uniform, check_function):
    func, reference = CASES[name]
    check_function(func, (uniform(shape, dtype),), reference)


@pytest.mark.parametrize("name", sorted(CASES))
def test_label_and_type_check(name):
    func = CASES[name][0]
    assert func(numpy.zeros(2, numpy.float32)).creator.label == name
    with pytest.raises(type_check.InvalidType, match=rf"{name} \(Forward\)"):
        func(numpy.arange(3))
