"""sin, cos, tan, arcsin, arccos, arctan, arctan2: values, gradients, type errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat.functions.math import trigonometric
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]

# (function, NumPy reference, input range: away from poles and branch points)
CASES = {
    "sin": (trigonometric.sin, numpy.sin, (-2.0, 2.0)),
    "cos": (trigonometric.cos, numpy.cos, (-2.0, 2.0)),
    "tan": (trigonometric.tan, numpy.tan, (-1.0, 1.0)),
    "arcsin": (trigonometric.arcsin, numpy.arcsin, (-0.7, 0.7)),
    "arccos": (trigonometric.arccos, numpy.arccos, (-0.7, 0.7)),
    "arctan": (trigonometric.arctan, numpy.arctan, (-2.0, 2.0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(name, shape, dtype, uniform, check_function):
    func, reference, (low, high) = CASES[name]
    check_function(func, (uniform(shape, dtype, low, high),), reference)


@pytest.mark.parametrize("name", sorted(CASES))
def test_label_and_type_check(name):
    func = CASES[name][0]
    assert func(numpy.zeros(2, numpy.float32)).creator.label == name
    with pytest.raises(type_check.InvalidType, match=rf"{name} \(Forward\)"):
        func(numpy.arange(3))


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), (3,)), ((1, 3), (2, 1))])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_arctan2_values_and_gradients(shapes, dtype, xp, uniform, check_function):
    # Both kept away from zero, in all four quadrants, so that no point nears the branch cut.
    x1, x2 = (uniform(shape, dtype, 0.3, 1.5) for shape in shapes)
    x1 = xp.where(uniform(shapes[0], dtype) > 0, x1, -x1)
    x2 = xp.where(uniform(shapes[1], dtype) > 0, x2, -x2)
    check_function(trigonometric.arctan2, (x1, x2), numpy.arctan2)


def test_arctan2_rejects_shapes_that_do_not_broadcast():
    with pytest.raises(type_check.InvalidType, match="cannot broadcast"):
        trigonometric.arctan2(numpy.zeros((2, 3), numpy.float32), numpy.ones(4, numpy.float32))


@pytest.mark.parametrize("name, labels", [
    # Chainer 7.8.1's: one gradient node each, except tan, composed of functions.
    ("sin", ["SinGrad"]), ("cos", ["CosGrad"]), ("tan", ["cos", "square", "_ / _"]),
    ("arcsin", ["ArcsinGrad"]), ("arccos", ["ArccosGrad"]), ("arctan", ["ArctanGrad"]),
])
def test_a_hook_sees_chainers_gradient_nodes(name, labels):
    rng = numpy.random.default_rng(16)
    x = rng.uniform(-0.9, 0.9, (3, 4)).astype(numpy.float32)
    gy = rng.standard_normal((3, 4)).astype(numpy.float32)
    plain, hooked, seen = gradients_under_a_hook(getattr(trigonometric, name), (x,), gy)
    assert seen == labels
    numpy.testing.assert_array_equal(plain[0], hooked[0])


def test_arctan2_applies_one_gradient_node():
    rng = numpy.random.default_rng(17)
    arrays = (rng.standard_normal((3, 4)).astype(numpy.float32),
              rng.standard_normal((1, 4)).astype(numpy.float32))
    gy = rng.standard_normal((3, 4)).astype(numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(trigonometric.arctan2, arrays, gy)
    assert labels == ["Arctan2Grad"]  # Chainer 7.8.1's
    assert [g.shape for g in plain] == [(3, 4), (1, 4)]
    for gradient, under_hook in zip(plain, hooked):
        numpy.testing.assert_array_equal(gradient, under_hook)
