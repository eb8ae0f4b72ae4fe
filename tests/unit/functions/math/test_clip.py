"""clip: values, optional bounds, gradient on and outside the edges, argument errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

import chainer_compat
from chainer_compat import Variable
from chainer_compat.functions.math.clip import Clip, clip
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
BOUNDS = [(-0.5, 0.5), (None, 0.25), (-0.25, None)]


def _away_from(values, bounds, margin=0.05):
    """Moves values that sit within ``margin`` of a bound further off it."""
    for bound in bounds:
        if bound is not None:
            near = numpy.abs(values - bound) < margin
            values[near] = bound + 2 * margin
    return values


@pytest.mark.parametrize("bounds", BOUNDS)
@pytest.mark.parametrize("shape", [(), (4,), (3, 4)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(bounds, shape, dtype, xp, check_function):
    x = xp.asarray(_away_from(numpy.random.uniform(-1, 1, shape), bounds).astype(dtype))
    x_min, x_max = bounds
    check_function(lambda v: clip(v, x_min, x_max), (x,),
                   lambda v: numpy.clip(v, x_min, x_max))


def test_gradient_is_one_on_the_edges_and_zero_outside():
    x = Variable(numpy.array([-2.0, -1.0, 0.0, 1.0, 2.0], numpy.float32))
    y = clip(x, -1.0, 1.0)
    y.grad = numpy.ones(5, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 1.0, 1.0, 1.0, 0.0])


def test_a_hook_sees_chainers_gradient_node():
    x = numpy.array([-2.0, -1.0, 0.5, 1.0, 3.0], numpy.float32)
    gy = numpy.array([1.0, 2.0, 3.0, 4.0, 5.0], numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(lambda x: clip(x, -1.0, 1.0), (x,), gy)
    assert labels == ["ClipGrad"]  # Chainer 7.8.1's
    numpy.testing.assert_array_equal(plain[0], [0.0, 2.0, 3.0, 4.0, 0.0])
    numpy.testing.assert_array_equal(hooked[0], plain[0])
    v = Variable(x)
    gx, = chainer_compat.grad([clip(v, -1.0, 1.0)], [v], [Variable(gy)],
                              enable_double_backprop=True)
    assert gx.creator.label == "ClipGrad"


def test_numpy_scalar_bounds_keep_the_input_dtype():
    x = numpy.linspace(-1, 1, 5).astype(numpy.float16)
    y = clip(x, numpy.float64(-0.5), numpy.float64(0.5))
    assert y.dtype == numpy.float16


def test_bounds_must_be_ordered_and_not_both_missing():
    with pytest.raises(ValueError, match="x_min must be less than x_max"):
        Clip(1.0, 1.0)
    with pytest.raises(ValueError, match="must set either max or min"):
        clip(numpy.zeros(2, numpy.float32), None, None)


def test_integer_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"Clip \(Forward\)[\s\S]*x\.dtype"):
        clip(numpy.arange(3), 0.0, 1.0)
