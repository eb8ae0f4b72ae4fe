"""fmod: values (sign of the dividend), gradients away from the jumps, type errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat.functions.math.fmod import Fmod, fmod
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _away_from_jumps(x, divisor):
    """Moves x so that x / divisor is at least 0.2 from an integer (fmod jumps there)."""
    quotient = x / divisor
    fraction = numpy.abs(quotient - numpy.trunc(quotient))
    shift = numpy.where((fraction < 0.2) | (fraction > 0.8), 0.5 * divisor, 0.0)
    return x + shift


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((), ())])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shapes, dtype, xp, check_function):
    divisor = numpy.random.uniform(0.5, 1.0, shapes[1]) * numpy.where(
        numpy.random.uniform(size=shapes[1]) > 0.5, 1, -1)
    x = _away_from_jumps(numpy.random.uniform(-4, 4, shapes[0]), divisor)
    # The 0.2 margin from the jumps survives rounding the operands to float16.
    x, divisor = x.astype(dtype), divisor.astype(dtype)
    check_function(fmod, (xp.asarray(x), xp.asarray(divisor)), numpy.fmod)


def test_result_takes_the_sign_of_the_dividend():
    y = fmod(numpy.array([5.0, -5.0, 5.0], numpy.float32), numpy.array([3.0, 3.0, -3.0],
                                                                        numpy.float32))
    numpy.testing.assert_array_equal(y.array, [2.0, -2.0, 2.0])
    assert Fmod().label == "fmod"


def test_type_errors():
    x = numpy.ones(3, numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"fmod \(Forward\)[\s\S]*divisor"):
        fmod(x, x.astype(numpy.float64))
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind"):
        fmod(numpy.arange(3), numpy.arange(3))
    with pytest.raises(type_check.InvalidType, match="cannot broadcast"):
        fmod(x, numpy.ones(4, numpy.float32))


def test_a_hook_sees_chainers_gradient_nodes():
    x = numpy.array([5.5, -5.5, 2.0, 0.3], numpy.float32)
    divisor = numpy.array([2.0, 2.0, -0.75, 1.0], numpy.float32)
    gy = numpy.array([1.0, 2.0, 3.0, 4.0], numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(fmod, (x, divisor), gy)
    # Chainer 7.8.1's sequence: the truncated quotient (fix, no node), negated, times gy.
    assert labels == ["_ / _", "__neg__", "_ * _"]
    numpy.testing.assert_array_equal(plain[1], [-2.0, 4.0, 6.0, 0.0])
    for gradient, under_hook in zip(plain, hooked):
        numpy.testing.assert_array_equal(gradient, under_hook)
