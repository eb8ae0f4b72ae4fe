"""Chainer's arithmetic gradient nodes (AbsoluteGrad, DivGrad, DivFromConstantGrad,
PowVarVarGrad, PowVarConstGrad, PowConstVarGrad): their forward equals the gradient our
operators compute, and their own gradients (first and second order) match numerical ones."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.math import _basic_math_grads as grads
from chainer_compat.variable import Variable

TOLERANCE = {"atol": 1e-6, "rtol": 1e-5}


def _random(shape, low=-1.0, high=1.0):
    return numpy.random.uniform(low, high, shape)


def _operator_grads(function, inputs, gy):
    """The input gradients our operators' own backward gives for output gradient ``gy``."""
    variables = [Variable(x) for x in inputs]
    y = function(*variables)
    y.grad = gy
    y.backward()
    return [v.grad for v in variables]


def _data(x):
    return x.array if isinstance(x, Variable) else x


@pytest.fixture(autouse=True)
def _seed():
    numpy.random.seed(0)


def _check_node(make_node, inputs, output_count):
    def apply(*xs):
        return make_node(*xs).apply(xs)

    outputs = apply(*inputs)
    gys = tuple(_random(y.shape) for y in outputs[:output_count])
    ggxs = tuple(_random(x.shape) for x in inputs)
    gradient_check.check_backward(apply, inputs, gys, eps=1e-4, **TOLERANCE)
    gradient_check.check_double_backward(apply, inputs, gys, ggxs, eps=1e-4, **TOLERANCE)


def test_absolute_grad():
    x = _random((3, 4))
    x[numpy.abs(x) < 0.1] = 0.5  # away from the kink
    gy = _random(x.shape)
    gx, = grads.AbsoluteGrad(x).apply((gy,))
    numpy.testing.assert_allclose(gx.array, _operator_grads(abs, [x], gy)[0])
    _check_node(lambda *_: grads.AbsoluteGrad(x), (gy,), 1)


@pytest.mark.parametrize("shapes", [((3, 2), (3, 2)), ((3, 2), (1, 2))])
def test_div_grad(shapes):
    x0, x1 = _random(shapes[0]), _random(shapes[1], 0.5, 2.0)
    gy = _random(numpy.broadcast_shapes(*shapes))
    gx0, gx1 = grads.DivGrad(shapes[0] == shapes[1]).apply((x0, x1, gy))
    expected = _operator_grads(lambda a, b: a / b, [x0, x1], gy)
    numpy.testing.assert_allclose(gx0.array, expected[0], rtol=1e-12)
    numpy.testing.assert_allclose(gx1.array, expected[1], rtol=1e-12)
    _check_node(lambda *_: grads.DivGrad(shapes[0] == shapes[1]), (x0, x1, gy), 2)


def test_div_from_constant_grad():
    x, gy = _random((4,), 0.5, 2.0), _random((4,))
    gx, = grads.DivFromConstantGrad(3.0).apply((x, gy))
    numpy.testing.assert_allclose(gx.array, _operator_grads(lambda a: 3.0 / a, [x], gy)[0])
    _check_node(lambda *_: grads.DivFromConstantGrad(3.0), (x, gy), 1)


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), (3,))])
def test_pow_var_var_grad(shapes):
    x0, x1 = _random(shapes[0], 0.5, 2.0), _random(shapes[1], 0.5, 2.0)
    gy = _random(numpy.broadcast_shapes(*shapes))
    node = grads.PowVarVarGrad(shapes[0] == shapes[1], x0 ** x1)
    gx0, gx1 = node.apply((x0, x1, gy))
    expected = _operator_grads(lambda a, b: a ** b, [x0, x1], gy)
    numpy.testing.assert_allclose(gx0.array, expected[0], rtol=1e-12)
    numpy.testing.assert_allclose(gx1.array, expected[1], rtol=1e-12)
    # The node takes y = x0 ** x1 as a constant but differentiates it as a function of the
    # inputs: rebuild it from the (perturbed) inputs so the numerical side agrees.
    _check_node(lambda a, b, _: grads.PowVarVarGrad(True, _data(a) ** _data(b)), (x0, x1, gy), 2)


@pytest.mark.parametrize("value", [2.5, numpy.array([1.5, 3.0, 0.5])])
def test_pow_var_const_grad(value):
    x, gy = _random((3,), 0.5, 2.0), _random((3,))
    gx, = grads.PowVarConstGrad(value).apply((x, gy))
    numpy.testing.assert_allclose(gx.array, _operator_grads(lambda a: a ** value, [x], gy)[0])
    _check_node(lambda *_: grads.PowVarConstGrad(value), (x, gy), 1)


@pytest.mark.parametrize("value", [2.0, numpy.array([1.5, 3.0, 0.5])])
def test_pow_const_var_grad_takes_the_output(value):
    x, gy = _random((3,)), _random((3,))
    y = value ** x
    gx, = grads.PowConstVarGrad(value).apply((y, gy))
    numpy.testing.assert_allclose(gx.array, _operator_grads(lambda a: value ** a, [x], gy)[0])
    _check_node(lambda *_: grads.PowConstVarGrad(value), (y, gy), 1)


def test_float32_dtype_is_kept():
    x = numpy.array([1.0, 2.0], numpy.float32)
    gy = numpy.ones(2, numpy.float32)
    for node, inputs in [(grads.AbsoluteGrad(x), (gy,)),
                         (grads.DivFromConstantGrad(2.0), (x, gy)),
                         (grads.PowVarConstGrad(2.0), (x, gy)),
                         (grads.PowConstVarGrad(2.0), (x, gy))]:
        assert node.apply(inputs)[0].dtype == numpy.float32


@pytest.mark.parametrize("node, inputs", [
    (grads.AbsoluteGrad(numpy.ones(2)), (numpy.ones(2, numpy.int32),)),
    (grads.PowVarConstGrad(2.0), (numpy.ones(2), numpy.ones(3))),
    (grads.DivFromConstantGrad(2.0), (numpy.ones(2), numpy.ones(2, numpy.float32))),
])
def test_type_check(node, inputs):
    from chainer_compat.utils import type_check

    with pytest.raises(type_check.InvalidType):
        node.apply(inputs)


def test_pow_var_var_grad_double_backward_groups_its_products_as_chainer():
    # Chainer forms ggx1 * x0**(x1-1) * (log(x0) * x1 + 1) left to right; grouping the last two
    # factors first (one product fewer) differed in the last bit for most draws.
    from chainer_compat import grad
    from chainer_compat.functions.math.sum import sum as sum_

    a = numpy.array([0.7, 1.3, 1.9], numpy.float32)
    e = numpy.array([0.4, 1.7, -0.6], numpy.float32)
    x0, x1 = Variable(a), Variable(e)
    ga, ge = grad([sum_(x0 ** x1)], [x0, x1], enable_double_backprop=True)
    c0, c1 = numpy.float32(0.3), numpy.float32(-0.8)
    g2a, g2e = grad([sum_(ga * c0) + sum_(ge * c1)], [x0, x1])
    ggx0, ggx1 = numpy.ones(3, numpy.float32) * c0, numpy.ones(3, numpy.float32) * c1
    log_a = numpy.log(a)
    one = numpy.float32(1)
    less_one, less_two = a ** (e + numpy.float32(-1)), a ** (e + numpy.float32(-2))
    mixed = log_a * e + one
    expected_a = (ggx0 * e * (e + numpy.float32(-1)) * less_two + ggx1 * less_one * mixed)
    expected_e = ggx0 * less_one * mixed + ggx1 * log_a * log_a * a ** e
    ones = numpy.ones(3, numpy.float32)
    assert g2a.array.tobytes() == (expected_a * ones).tobytes()
    assert g2e.array.tobytes() == (expected_e * ones).tobytes()
