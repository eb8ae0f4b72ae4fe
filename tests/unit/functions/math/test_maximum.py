"""maximum and minimum: values, broadcasting, gradients, tie rule, type errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

import chainer_compat
from chainer_compat import Variable
from chainer_compat.functions.math.maximum import Maximum, maximum
from chainer_compat.functions.math.minimum import Minimum, minimum
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SHAPES = [((3, 2), (3, 2)), ((3, 2), (2,)), ((3, 1), (1, 2)), ((), (2,))]
CASES = {"maximum": (maximum, numpy.maximum), "minimum": (minimum, numpy.minimum)}


def _apart(shapes, dtype, xp):
    """Two random inputs whose broadcast elements differ by at least 0.1 (no near ties)."""
    while True:
        x1 = numpy.random.uniform(-1, 1, shapes[0])
        x2 = numpy.random.uniform(-1, 1, shapes[1])
        if numpy.abs(x1 - x2).min() > 0.1:
            return xp.asarray(x1.astype(dtype)), xp.asarray(x2.astype(dtype))


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(name, shapes, dtype, xp, check_function):
    func, reference = CASES[name]
    check_function(func, _apart(shapes, dtype, xp), reference)


@pytest.mark.parametrize("name", sorted(CASES))
def test_tie_sends_the_whole_gradient_to_the_first_input(name):
    func = CASES[name][0]
    x1 = Variable(numpy.array([1.0, 2.0], numpy.float32))
    x2 = Variable(numpy.array([1.0, 2.0], numpy.float32))
    y = func(x1, x2)
    y.grad = numpy.array([3.0, 4.0], numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x1.grad, [3.0, 4.0])
    numpy.testing.assert_array_equal(x2.grad, [0.0, 0.0])


@pytest.mark.parametrize("function, label", [(maximum, "MaximumGrad"), (minimum, "MinimumGrad")])
@pytest.mark.parametrize("x2_shape", [(3, 4), (1, 4)])
def test_a_hook_sees_chainers_gradient_node(function, label, x2_shape):
    rng = numpy.random.default_rng(14)
    arrays = (rng.standard_normal((3, 4)).astype(numpy.float32),
              rng.standard_normal(x2_shape).astype(numpy.float32))
    gy = rng.standard_normal((3, 4)).astype(numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(function, arrays, gy)
    assert labels == [label]  # Chainer 7.8.1's
    for gradient, under_hook in zip(plain, hooked):
        numpy.testing.assert_array_equal(gradient, under_hook)
    numpy.testing.assert_allclose(plain[0].sum() + plain[1].sum(), gy.sum(), rtol=1e-5)


@pytest.mark.parametrize("function", [maximum, minimum])
def test_second_order_through_the_gradient_node(function):
    rng = numpy.random.default_rng(15)
    x1, x2 = Variable(rng.standard_normal((3, 4))), Variable(rng.standard_normal((1, 4)))
    gx1, = chainer_compat.grad([function(x1, x2) * x1], [x1], enable_double_backprop=True)
    ggx1, = chainer_compat.grad([gx1], [x1])
    picked = (x1.array >= x2.array) if function is maximum else (x1.array <= x2.array)
    # d/dx1 of (picked ? x1 : x2) * x1 is picked * 2 * x1 + (not picked) * x2; again: 2 picked.
    numpy.testing.assert_array_equal(ggx1.array, 2.0 * picked)


@pytest.mark.parametrize("cls", [Maximum, Minimum])
def test_mixed_dtypes_are_rejected(cls):
    x1 = numpy.zeros(3, numpy.float32)
    x2 = numpy.zeros(3, numpy.float64)
    with pytest.raises(type_check.InvalidType, match=rf"{cls.__name__} \(Forward\)[\s\S]*x2"):
        cls().apply((x1, x2))


@pytest.mark.parametrize("name", sorted(CASES))
def test_integer_inputs_and_bad_shapes_are_rejected(name):
    func = CASES[name][0]
    with pytest.raises(type_check.InvalidType, match=r"x1\.dtype\.kind"):
        func(numpy.arange(3), numpy.arange(3))
    with pytest.raises(type_check.InvalidType, match="cannot broadcast"):
        func(numpy.zeros(3, numpy.float32), numpy.zeros(4, numpy.float32))


def test_a_broadcast_inputs_gradient_sums_a_c_ordered_selection_as_chainer():
    # Chainer sums where(x1 >= x2, gy, 0), C-ordered whatever x2's layout, down to x1's shape;
    # a selection laid out as x2 (F order) would add in another order and round differently.
    rng = numpy.random.default_rng(4)
    x2 = numpy.asfortranarray(rng.standard_normal((3000, 300)).astype(numpy.float32))
    x1 = rng.standard_normal((1, 300)).astype(numpy.float32)
    gy = rng.standard_normal((3000, 300)).astype(numpy.float32)
    a = Variable(x1)
    y = maximum(a, x2)
    y.grad = gy
    y.backward()
    expected = numpy.where(x1 >= x2, gy, numpy.float32(0)).sum(axis=0, keepdims=True)
    assert a.grad.tobytes() == expected.tobytes()
