"""exp, log, log2, log10: values, gradients of first and second order, type errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat import Variable
from chainer_compat.functions.math import exponential
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SHAPES = [(), (3,), (2, 3)]

# (function, NumPy reference, input range)
CASES = {
    "exp": (exponential.exp, numpy.exp, (-1.0, 1.0)),
    "log": (exponential.log, numpy.log, (0.5, 2.0)),
    "log2": (exponential.log2, numpy.log2, (0.5, 2.0)),
    "log10": (exponential.log10, numpy.log10, (0.5, 2.0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(name, shape, dtype, uniform, check_function):
    func, reference, (low, high) = CASES[name]
    check_function(func, (uniform(shape, dtype, low, high),), reference)


@pytest.mark.parametrize("name", sorted(CASES))
def test_label_is_the_function_name(name):
    func = CASES[name][0]
    y = func(numpy.ones(2, numpy.float32) * 1.5)
    assert y.creator.label == name


@pytest.mark.parametrize("name", sorted(CASES))
def test_integer_input_is_rejected_with_the_function_name(name):
    func = CASES[name][0]
    with pytest.raises(type_check.InvalidType, match=rf"{name} \(Forward\)[\s\S]*x\.dtype"):
        func(numpy.arange(3))


def test_exp_keeps_only_its_output_for_backward():
    x = Variable(numpy.ones(3, numpy.float32))
    y = exponential.exp(x)
    assert x.node.data is None
    assert y.node.data is not None


def test_log_keeps_only_its_input_for_backward():
    x = Variable(numpy.ones(3, numpy.float32))
    y = exponential.log(x)
    assert x.node.data is not None
    assert y.node.data is None


def test_classes_live_at_chainers_module_path():
    for name in ("Exp", "Log", "Log2", "Log10"):
        cls = getattr(exponential, name)
        assert cls.__module__ == "chainer_compat.functions.math.exponential"


@pytest.mark.parametrize("name, scale", [("log2", "1.4426950408889634"),
                                         ("log10", "0.43429448190325176")])
def test_a_hook_sees_chainers_gradient_nodes(name, scale):
    x = numpy.array([0.3, 1.7, 2.9, 11.0], numpy.float32)
    gy = numpy.array([1.0, -2.0, 0.5, 3.0], numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(getattr(exponential, name), (x,), gy)
    assert labels == ["_ / _", "_ * " + scale]  # Chainer 7.8.1's: divided, then scaled
    numpy.testing.assert_array_equal(plain[0], hooked[0])
    numpy.testing.assert_array_equal(plain[0], gy / x * numpy.float32(float(scale)))
