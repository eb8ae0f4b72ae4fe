"""cumsum: values along each axis and flattened, gradients, argument errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat.functions.math.cumsum import Cumsum, cumsum
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape, axis", [((4,), 0), ((2, 3, 4), 0), ((2, 3, 4), 1),
                                         ((2, 3, 4), -1), ((2, 3), None), ((), None)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, axis, dtype, uniform, check_function):
    check_function(lambda x: cumsum(x, axis=axis), (uniform(shape, dtype),),
                   lambda x: numpy.cumsum(x, axis=axis))


@pytest.mark.parametrize("shape, axis, reshape", [((3, 4), 1, []), ((3, 4), None, ["Reshape"])])
def test_a_hook_sees_chainers_gradient_nodes(shape, axis, reshape):
    rng = numpy.random.default_rng(8)
    x = rng.standard_normal(shape).astype(numpy.float32)
    gy = rng.standard_normal(cumsum(x, axis=axis).shape).astype(numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(lambda x: cumsum(x, axis=axis), (x,), gy)
    # Chainer 7.8.1's sequence: the cumulative sum of the flipped gradient, flipped back.
    assert labels == ["Flip", "Cumsum", "Flip"] + reshape
    numpy.testing.assert_array_equal(plain[0], hooked[0])
    expected = numpy.flip(numpy.cumsum(numpy.flip(gy.reshape(-1) if axis is None else gy,
                                                  axis or 0), axis=axis or 0), axis or 0)
    numpy.testing.assert_array_equal(plain[0], expected.reshape(shape))


def test_argument_and_type_errors():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"Cumsum \(Forward\)"):
        cumsum(x, axis=2)
    with pytest.raises(type_check.InvalidType):
        cumsum(x, axis=-3)
    with pytest.raises(TypeError, match="axis must be int or None"):
        Cumsum(axis=(0,))
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind"):
        cumsum(numpy.arange(3))
