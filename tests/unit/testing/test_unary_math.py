"""Tests for chainer_compat.testing.unary_math_function_unittest: the generated classes, and that
they catch a wrong forward, backward or double backward."""

from __future__ import annotations

import sys
import types
import unittest
from collections.abc import Iterator

import numpy
import pytest

from chainer_compat import function, function_node, testing, utils
from chainer_compat import functions as F
from chainer_compat.variable import Variable


@pytest.fixture
def sandbox() -> Iterator[types.ModuleType]:
    """A throwaway module to define decorated test classes in, as a real test module would."""
    module = types.ModuleType("chainer_compat_unary_math_sandbox")
    sys.modules[module.__name__] = module
    yield module
    del sys.modules[module.__name__]


def decorate(module: types.ModuleType, func, **options) -> dict[str, type]:
    """Decorates a fresh TestCase in ``module``; returns the generated classes by name."""
    base = type("TestUnary", (unittest.TestCase,), {"__module__": module.__name__})
    module.TestUnary = testing.unary_math_function_unittest(func, **options)(base)
    return {name: value for name, value in vars(module).items()
            if isinstance(value, type) and name.startswith("TestUnary_")}


def run(classes: dict[str, type], method_filter=lambda name: name.endswith("_cpu")
        or name == "test_label") -> unittest.TestResult:
    suite = unittest.TestSuite()
    for cls in classes.values():
        for name in dir(cls):
            if name.startswith("test_") and method_filter(name) and getattr(cls, name):
                suite.addTest(cls(name))
    result = unittest.TestResult()
    suite.run(result)
    return result


def method_names(cls: type) -> set[str]:
    return {name for name in dir(cls) if name.startswith("test_") and getattr(cls, name)}


# ----------------------------------------------------------------------------- generated classes

def test_generates_six_parameterized_classes_with_cpu_gpu_and_label_tests(sandbox):
    classes = decorate(sandbox, F.exp)
    assert len(classes) == 6
    params = {(cls.shape, numpy.dtype(cls.dtype).name) for cls in classes.values()}
    assert params == {(shape, dtype) for shape in [(3, 2), ()]
                      for dtype in ["float16", "float32", "float64"]}
    cls = next(iter(classes.values()))
    assert method_names(cls) == {
        "test_forward_cpu", "test_forward_gpu", "test_backward_cpu", "test_backward_gpu",
        "test_double_backward_cpu", "test_double_backward_gpu", "test_label"}
    gpu_marks = [mark.name for mark in getattr(cls.test_forward_gpu, "pytestmark", [])]
    assert "gpu" in gpu_marks
    assert not getattr(cls.test_forward_cpu, "pytestmark", [])


def test_right_function_passes(sandbox):
    result = run(decorate(sandbox, F.exp))
    assert result.testsRun == 6 * 4
    assert result.wasSuccessful(), result.failures + result.errors


def test_make_data_and_func_expected(sandbox):
    def positive(shape, dtype):
        rng = numpy.random.default_rng(0)
        return tuple(rng.uniform(0.5, 2, shape).astype(dtype) for _ in range(3))

    result = run(decorate(sandbox, F.log, make_data=positive,
                          func_expected=lambda x, dtype: numpy.log(x).astype(dtype)))
    assert result.testsRun == 24 and result.wasSuccessful(), result.failures + result.errors


# ----------------------------------------------------------------------------- catching bugs

class _Exp(function_node.FunctionNode):
    def forward(self, inputs):
        self.retain_outputs((0,))
        return utils.force_array(numpy.exp(inputs[0])),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * y,


class _ExpWrongBackward(_Exp):
    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * y * 3.0,


class _ExpOnArrays(_Exp):
    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return Variable(utils.force_array(grad_outputs[0].array * y.array)),


def as_exp(node_class):
    def exp(x):  # the name picks numpy.exp as the reference and F.Exp for the label
        return node_class().apply((x,))[0]
    return exp


@pytest.mark.parametrize("node_class, failing", [
    # The wrong backward is also what double backward differentiates through y.
    (_ExpWrongBackward, {"test_backward_cpu", "test_double_backward_cpu"}),
    (_ExpOnArrays, {"test_double_backward_cpu"}),
])
def test_wrong_gradients_fail_exactly_their_tests(sandbox, node_class, failing):
    result = run(decorate(sandbox, as_exp(node_class)))
    failed = {test._testMethodName for test, _ in result.failures + result.errors}
    assert failed == failing


def test_wrong_forward_fails_forward_test(sandbox):
    result = run(decorate(sandbox, as_exp(_Exp), func_expected=lambda x, dtype: numpy.exp(x) + 1))
    failed = {test._testMethodName for test, _ in result.failures + result.errors}
    assert failed == {"test_forward_cpu"}


# ----------------------------------------------------------------------------- old style, errors

class OldExp(function.Function):
    def forward(self, inputs):
        return utils.force_array(numpy.exp(inputs[0])),

    def backward(self, inputs, grad_outputs):
        return utils.force_array(numpy.exp(inputs[0]) * grad_outputs[0]),


def test_old_style_function_gets_no_double_backward_test(sandbox):
    classes = decorate(sandbox, OldExp(), func_expected=lambda x, dtype: numpy.exp(x))
    cls = next(iter(classes.values()))
    assert "test_double_backward_cpu" not in method_names(cls)
    assert "test_label" in method_names(cls)  # the Function's own class has a label
    result = run(classes, lambda name: name.endswith("_cpu"))
    assert result.testsRun == 12 and result.wasSuccessful(), result.failures + result.errors


def test_argument_errors(sandbox):
    def squiggle(x):
        return x

    with pytest.raises(ValueError, match="NumPy has no functions corresponding"):
        testing.unary_math_function_unittest(squiggle)
    with pytest.raises(ValueError, match="does not have its label"):
        testing.unary_math_function_unittest(squiggle, func_expected=numpy.exp,
                                             label_expected="squiggle")
    with pytest.warns(DeprecationWarning, match="is_linear"):
        testing.unary_math_function_unittest(F.exp, is_linear=False)
    with pytest.raises(TypeError, match="unittest.TestCase"):
        testing.unary_math_function_unittest(F.exp)(object)
