"""Tests for chainer_compat.testing.function_link (FunctionTestCase, LinkTestCase,
LinkInitializersTestCase), on their own and in a legacy Chainer test file run by pytest; also
testing.get_trainer_with_mock_updater."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types
import unittest
from pathlib import Path
from typing import ClassVar

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import function_node, initializers, testing, utils
from chainer_compat.link import Link
from chainer_compat.testing import attr
from chainer_compat.variable import Parameter, Variable

FIXTURES = Path(__file__).parent / "legacy_fixtures"
REPO_ROOT = Path(__file__).resolve().parents[3]
CPU = testing.BackendConfig({})


# ---------------------------------------------------------------------------------------------
# Functions under test: right, and wrong in one place each

class Square(function_node.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return utils.force_array(x * x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 2 * x * grad_outputs[0],


class SquareWrongBackward(Square):
    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 3 * x * grad_outputs[0],


class SquareBackwardOnArrays(Square):
    """First order right; the gradient has no graph, so its second order is zero."""

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return Variable(2 * x.array * grad_outputs[0].array),


class SquareWrongDoubleBackward(Square):
    """First order right; differentiating the gradient again gives the wrong factor."""

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return _ScaledGrad().apply((x, grad_outputs[0]))


class _ScaledGrad(function_node.FunctionNode):
    """gx = 2 x gy, but its own backward is off by a factor of 2."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, gy = inputs
        return utils.force_array(2 * x * gy),

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        return 4 * gy * ggx, 4 * x * ggx


class SquareInPlace(Square):
    def forward(self, inputs):
        x, = inputs
        x *= 1.0001
        return utils.force_array(x * x),


class _Case(testing.FunctionTestCase):
    """Shared body; ``__test__ = False`` keeps pytest from collecting these helper classes."""

    __test__ = False
    node = Square
    shape = (3, 2)
    dtype = numpy.float64

    def generate_inputs(self):
        return numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return self.node().apply((x,))

    def forward_expected(self, inputs):
        x, = inputs
        return utils.force_array(x * x),


def case(cls: type, method: str = "test_forward") -> testing.FunctionTestCase:
    instance = cls(method)
    instance.setUp()
    return instance


# ---------------------------------------------------------------------------------------------
# FunctionTestCase on its own

def test_right_function_passes_all_three_checks():
    instance = case(_Case)
    instance.run_test_forward(CPU)
    instance.run_test_backward(CPU)
    instance.run_test_double_backward(CPU)


def test_wrong_backward_raises_function_test_error_and_double_backward_is_not_blamed():
    cls = type("Wrong", (_Case,), {"node": SquareWrongBackward})
    instance = case(cls)
    instance.run_test_forward(CPU)
    with pytest.raises(testing.FunctionTestError,
                       match="backward is not implemented correctly") as error:
        instance.run_test_backward(CPU)
    assert "check_backward failed" in str(error.value)
    assert isinstance(error.value.__cause__, AssertionError)


class _TwoOutputsCase(_Case):
    """Outputs ``(x * x, x * x)``; the first output's gradient is None, as Chainer allows."""

    def forward(self, inputs, device):
        x, = inputs
        return self.node().apply((x,))[0], Square().apply((x,))[0]

    def forward_expected(self, inputs):
        x, = inputs
        return utils.force_array(x * x), utils.force_array(x * x)

    def generate_grad_outputs(self, outputs_template):
        return None, numpy.random.uniform(-1, 1, outputs_template[1].shape)


def test_a_none_output_gradient_leaves_that_output_out_of_the_checks():
    instance = case(_TwoOutputsCase)
    instance.run_test_backward(CPU)
    instance.run_test_double_backward(CPU)
    # The other output is still checked: a wrong gradient there fails.
    wrong = type("WrongSecond", (_TwoOutputsCase,), {
        "forward": lambda self, inputs, device: (Square().apply(inputs)[0],
                                                 SquareWrongBackward().apply(inputs)[0])})
    with pytest.raises(testing.FunctionTestError):
        case(wrong).run_test_backward(CPU)


@pytest.mark.parametrize("node", [SquareBackwardOnArrays, SquareWrongDoubleBackward])
def test_wrong_double_backward_raises_function_test_error(node):
    cls = type("WrongDouble", (_Case,), {"node": node})
    instance = case(cls)
    instance.run_test_backward(CPU)  # the first order is right
    with pytest.raises(testing.FunctionTestError,
                       match="double backward is not implemented correctly"):
        instance.run_test_double_backward(CPU)


def test_wrong_forward_raises_function_test_error():
    cls = type("WrongForward", (_Case,), {
        "forward_expected": lambda self, inputs: (utils.force_array(inputs[0] * 2),)})
    with pytest.raises(testing.FunctionTestError, match="Outputs do not match"):
        case(cls).run_test_forward(CPU)


def test_forward_options_loosen_the_comparison():
    def off_by_a_little(self, inputs):
        return (utils.force_array(inputs[0] * inputs[0] + 1e-3),)

    cls = type("Loose", (_Case,), {"forward_expected": off_by_a_little})
    with pytest.raises(testing.FunctionTestError):
        case(cls).run_test_forward(CPU)
    instance = case(cls)
    instance.check_forward_options.update(atol=1e-2)
    instance.run_test_forward(CPU)


def test_class_level_options_are_honoured_per_instance():
    cls = type("ClassOptions", (_Case,), {"check_forward_options": {"atol": 0.5}})
    first, second = case(cls), case(cls)
    assert first.check_forward_options == {"atol": 0.5}
    first.check_forward_options["rtol"] = 1
    assert second.check_forward_options == {"atol": 0.5}


def test_forward_that_modifies_its_input_is_reported():
    cls = type("InPlace", (_Case,), {"node": SquareInPlace})
    with pytest.raises(testing.FunctionTestError, match="Input arrays have been modified"):
        case(cls).run_test_forward(CPU)


def test_forward_must_return_a_tuple_of_variables():
    cls = type("NotTuple", (_Case,), {"forward": lambda self, inputs, device: inputs[0] * 1})
    with pytest.raises(testing.FunctionTestError, match="must return a tuple"):
        case(cls).run_test_forward(CPU)
    cls = type("Arrays", (_Case,), {"forward": lambda self, inputs, device: (inputs[0].array,)})
    with pytest.raises(testing.FunctionTestError, match="tuple of Variables"):
        case(cls).run_test_forward(CPU)


def test_generate_inputs_must_return_a_tuple_of_numpy_arrays():
    cls = type("ListInputs", (_Case,), {"generate_inputs": lambda self: [numpy.zeros(2)]})
    with pytest.raises(TypeError, match="must return a tuple"):
        case(cls).run_test_forward(CPU)


def test_skip_flags_and_before_test():
    names = []
    cls = type("Skips", (_Case,), {"skip_backward_test": True,
                                   "before_test": lambda self, name: names.append(name)})
    instance = case(cls)
    with pytest.raises(unittest.SkipTest):
        instance.run_test_backward(CPU)
    instance.run_test_forward(CPU)
    instance.run_test_double_backward(CPU)
    assert names == ["test_forward", "test_double_backward"]


@pytest.mark.parametrize("contiguous, expected", [(None, False), ("C", True)])
def test_contiguous_controls_the_layout_of_inputs(contiguous, expected):
    seen = []

    def forward(self, inputs, device):
        seen.append(inputs[0].array.flags.c_contiguous)
        return Square().apply(inputs)

    cls = type("Layout", (_Case,), {"contiguous": contiguous, "forward": forward})
    case(cls).run_test_forward(CPU)
    assert seen == [expected]


class Relu(function_node.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return utils.force_array(numpy.maximum(x, 0)),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        # The gradient at exactly 0 is taken as 1, where finite differences say 1/2.
        return grad_outputs[0] * (x.array >= 0).astype(x.dtype),


def test_dodge_nondifferentiable_redraws_inputs_at_a_kink():
    draws = []

    def generate_inputs(self):
        draws.append(len(draws))
        if len(draws) == 1:
            return numpy.zeros((2,)),  # exactly on the kink
        return numpy.array([-0.5, 0.5]),

    members = {"node": Relu, "generate_inputs": generate_inputs,
               "forward_expected": lambda self, inputs: (numpy.maximum(inputs[0], 0),)}
    dodging = type("Dodging", (_Case,), dict(members, dodge_nondifferentiable=True))
    case(dodging).run_test_backward(CPU)
    assert len(draws) == 2  # the kink, then a smooth draw
    draws.clear()
    plain = type("Plain", (_Case,), members)
    with pytest.raises(testing.FunctionTestError):
        case(plain).run_test_backward(CPU)


class TakeRows(function_node.FunctionNode):
    """y = W[ids]; ids is an integer input without gradient."""

    def forward(self, inputs):
        ids, table = inputs
        self.retain_inputs((0,))
        self.table_shape = table.shape
        return table[ids],

    def backward(self, indexes, grad_outputs):
        ids, = self.get_retained_inputs()
        return None, _ScatterRows(ids.array, self.table_shape).apply((grad_outputs[0],))[0]


class _ScatterRows(function_node.FunctionNode):
    def __init__(self, ids, shape):
        self.ids, self.shape = ids, shape

    def forward(self, inputs):
        out = numpy.zeros(self.shape, inputs[0].dtype)
        numpy.add.at(out, self.ids, inputs[0])
        return out,

    def backward(self, indexes, grad_outputs):
        return TakeRows().apply((self.ids, grad_outputs[0]))


def test_integer_inputs_get_no_gradient_checks():
    class RowsCase(_Case):
        def generate_inputs(self):
            return (numpy.array([0, 2, 2], numpy.int32),
                    numpy.random.uniform(-1, 1, (4, 3)))

        def forward(self, inputs, device):
            return TakeRows().apply(inputs)

        def forward_expected(self, inputs):
            ids, table = inputs
            return table[ids],

    instance = case(RowsCase)
    instance.run_test_forward(CPU)
    instance.run_test_backward(CPU)
    instance.run_test_double_backward(CPU)


def test_toolkit_bases_are_not_collected_but_subclasses_are():
    assert testing.FunctionTestCase.__test__ is False
    assert testing.LinkTestCase.__test__ is False
    assert testing.LinkInitializersTestCase.__test__ is False

    class Collected(testing.FunctionTestCase):
        pass

    class CollectedLink(testing.LinkTestCase):
        pass

    class Further(Collected):
        pass

    assert Collected.__test__ is True and CollectedLink.__test__ is True
    assert Further.__test__ is True
    # A user's own opt-out is inherited as pytest would inherit it.
    assert _Case.__test__ is False
    assert type("Derived", (_Case,), {}).__test__ is False


def test_test_error_helpers():
    with pytest.raises(testing.FunctionTestError, match="^broken$"):
        testing.FunctionTestError.check(False, "broken")
    testing.FunctionTestError.check(True, "never raised")
    with pytest.raises(testing.LinkTestError, match=r"outer\n\n\(caused by\)\nValueError: inner"), \
            testing.LinkTestError.raise_if_fail("outer", ValueError):
        raise ValueError("inner")
    assert issubclass(testing.FunctionTestError, AssertionError)


# ---------------------------------------------------------------------------------------------
# A legacy Chainer test file run by pytest, unchanged

def run_pytest(path: Path, *options: str) -> tuple[dict[str, int], str]:
    environment = dict(os.environ)
    environment.pop("CHAINER_TEST_GPU_LIMIT", None)
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", str(path), "-p", "no:cacheprovider", "-q", "-rs",
         *options],
        cwd=REPO_ROOT, capture_output=True, text=True, env=environment, timeout=120,
        check=False)
    lines = completed.stdout.strip().splitlines()
    counts = {word: int(number) for number, word in re.findall(r"(\d+) (\w+)", lines[-1])}
    assert counts, completed.stdout + completed.stderr
    assert "failed" not in counts and "error" not in counts and "errors" not in counts, (
        completed.stdout)
    return counts, completed.stdout


def test_legacy_function_test_file_runs_unchanged_without_gpu_cases():
    counts, _ = run_pytest(FIXTURES / "legacy_function_case.py", "-m", "not gpu")
    # TestSquare: 4 params x CPU config x 3 tests; TestSquareOldStyle: 4 params x 2 CPU tests;
    # TestExp: 6 params x (forward, backward, double backward, label) on the CPU;
    # TestLinear (a LinkTestCase): forward and backward on the CPU config.
    # Deselected: 4 x 2 GPU configs x 3 + 4 x 2 attr.gpu tests + 6 x 3 attr.gpu tests + 2.
    assert counts == {"passed": 12 + 8 + 24 + 2, "deselected": 24 + 8 + 18 + 2}


def test_legacy_function_test_file_gpu_cases_skip_cleanly_without_a_device():
    counts, output = run_pytest(FIXTURES / "legacy_function_case.py", "-m", "gpu")
    assert counts["deselected"] == 46
    assert counts.get("passed", 0) + counts.get("skipped", 0) == 52
    if attr._cuda_device_count() == 0:
        assert counts.get("skipped") == 52 and "GPUs required" in output


# ---------------------------------------------------------------------------------------------
# LinkTestCase and LinkInitializersTestCase with a tiny Linear-like link

class _LinearFunction(function_node.FunctionNode):
    """y = x W^T + b, with the gradient of W scaled by ``w_grad_scale`` (1 when right)."""

    def __init__(self, w_grad_scale: float = 1.0) -> None:
        self.w_grad_scale = w_grad_scale

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, W, b = inputs
        return utils.force_array(x @ W.T + b),

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        F = chainer.functions
        gW = F.matmul(gy, x, transa=True) * self.w_grad_scale
        return F.matmul(gy, W), gW, F.sum(gy, axis=0)


class TinyLinear(Link):
    def __init__(self, in_size, out_size, initialW=None, initial_bias=None,
                 w_grad_scale=1.0, ignore_bias_initializer=False):
        super().__init__()
        self.w_grad_scale = w_grad_scale
        if initial_bias is None or ignore_bias_initializer:
            initial_bias = 0
        with self.init_scope():
            self.W = Parameter(initializers._get_initializer(initialW), (out_size, in_size))
            self.b = Parameter(initializers._get_initializer(initial_bias), (out_size,))

    def forward(self, x):
        return _LinearFunction(self.w_grad_scale).apply((x, self.W, self.b))[0]


class _LinkCase(testing.LinkTestCase):
    __test__ = False
    param_names = ("W", "b")
    link_options: ClassVar[dict] = {}

    def setUp(self):
        self.check_backward_options.update(atol=1e-4, rtol=1e-3)

    def generate_params(self):
        return (numpy.random.uniform(-1, 1, (3, 2)).astype(numpy.float32),
                numpy.random.uniform(-1, 1, (3,)).astype(numpy.float32))

    def generate_inputs(self):
        return numpy.random.uniform(-1, 1, (4, 2)).astype(numpy.float32),

    def create_link(self, initializers):
        initialW, initial_bias = initializers
        return TinyLinear(2, 3, initialW=initialW, initial_bias=initial_bias,
                          **self.link_options)

    def forward_expected(self, link, inputs):
        x, = inputs
        return (x @ link.W.array.T + link.b.array).astype(numpy.float32),


def test_link_test_case_passes_a_right_link():
    instance = _LinkCase("test_forward")
    instance.setUp()
    instance.test_forward(CPU)
    instance.test_backward(CPU)


def test_link_test_case_catches_a_wrong_parameter_gradient():
    cls = type("WrongLink", (_LinkCase,), {"link_options": {"w_grad_scale": 2.0}})
    instance = cls("test_backward")
    instance.setUp()
    instance.test_forward(CPU)  # forward is right
    with pytest.raises(testing.LinkTestError, match="backward is not implemented correctly"):
        instance.test_backward(CPU)


def test_link_test_case_checks_parameters_by_name():
    cls = type("MissingParam", (_LinkCase,), {"param_names": ("W", "gamma")})
    instance = cls("test_backward")
    instance.setUp()
    with pytest.raises(testing.LinkTestError, match="parameter named 'gamma'"):
        instance.test_backward(CPU)


def test_link_test_case_requires_a_link():
    cls = type("NotALink", (_LinkCase,), {"create_link": lambda self, inits: object()})
    with pytest.raises(TypeError, match="chainer.Link"):
        cls("test_forward").test_forward(CPU)


class _InitializersCase(testing.LinkInitializersTestCase):
    __test__ = False
    param_names = ("W", "b")
    link_options: ClassVar[dict] = {}
    generate_params = _LinkCase.generate_params
    generate_inputs = _LinkCase.generate_inputs
    create_link = _LinkCase.create_link

    def get_initializers(self):
        return ([initializers.Constant(1), 2, numpy.full((3, 2), 0.5, numpy.float32)],
                [initializers.Constant(2), 3, testing.InitializerArgument(None, 0)])


def test_link_initializers_test_case_passes_a_right_link():
    _InitializersCase("test_initializers").test_initializers(CPU)


def test_link_initializers_test_case_catches_an_ignored_initializer():
    cls = type("IgnoresBias", (_InitializersCase,),
               {"link_options": {"ignore_bias_initializer": True}})
    with pytest.raises(testing.LinkTestError, match="do not match"):
        cls("test_initializers").test_initializers(CPU)


def test_initializer_argument_validation():
    argument = testing.InitializerArgument(None, initializers.Zero())
    assert argument.argument_value is None
    with pytest.raises(ValueError, match="cannot be None"):
        testing.InitializerArgument(None, None)
    with pytest.raises(TypeError, match="wrong type"):
        testing.InitializerArgument(None, object())
    cls = type("BareNone", (_InitializersCase,),
               {"get_initializers": lambda self: ([None], [0])})
    with pytest.raises(ValueError, match="InitializerArgument"):
        cls("test_initializers").test_initializers(CPU)


@pytest.mark.gpu
def test_link_test_case_on_a_gpu_config():
    cupy = pytest.importorskip("cupy")
    if attr._cuda_device_count() == 0:
        pytest.skip("needs a CUDA device")
    gpu = testing.BackendConfig({"use_cuda": True})
    instance = _LinkCase("test_forward")
    instance.setUp()
    instance.test_forward(gpu)
    instance.test_backward(gpu)
    assert cupy is not None


# ---------------------------------------------------------------------------------------------
# get_trainer_with_mock_updater

def test_trainer_helper_names_the_missing_training_module(monkeypatch):
    monkeypatch.setitem(sys.modules, "chainer_compat.training", None)
    with pytest.raises(NotImplementedError, match="chainer_compat.training.Trainer"):
        testing.get_trainer_with_mock_updater()


def test_trainer_helper_builds_a_trainer_around_a_counting_updater(monkeypatch):
    class FakeTrainer:
        def __init__(self, updater, stop_trigger, extensions):
            self.updater, self.stop_trigger, self.extensions = updater, stop_trigger, extensions

    module = types.ModuleType("chainer_compat.training")
    module.Trainer = FakeTrainer
    monkeypatch.setitem(sys.modules, "chainer_compat.training", module)
    trainer = testing.get_trainer_with_mock_updater((5, "epoch"), iter_per_epoch=3,
                                                    extensions=["ext"])
    assert trainer.stop_trigger == (5, "epoch") and trainer.extensions == ["ext"]
    updater = trainer.updater
    assert updater.get_all_optimizers() == {} and updater.iteration == 0
    history = []
    for _ in range(4):
        updater.update()
        history.append((updater.iteration, updater.epoch, updater.is_new_epoch))
    assert history == [(1, 0, False), (2, 0, False), (3, 1, True), (4, 1, False)]
    assert updater.epoch_detail == pytest.approx(4 / 3)
    assert updater.previous_epoch_detail == pytest.approx(1.0)
    assert updater.update_core.call_count == 4
    with pytest.raises(ValueError, match="iter_per_epoch"):
        testing.get_trainer_with_mock_updater(iter_per_epoch=0)


# ---------------------------------------------------------------------------------------------
# numerical_grad_dtype

def test_numerical_grad_dtype_sets_the_precision_of_the_numerical_gradients():
    # float64 by default, whatever the inputs' dtype; a float16 numerical gradient of x * x
    # near 1 misses the exact one by more than 1e-4, so the check fails.
    exact = type("Exact", (_Case,), {"check_backward_options": {"atol": 1e-4, "rtol": 1e-4},
                                     "generate_inputs": lambda self: (
                                         numpy.full((3,), 0.987, numpy.float64),)})
    case(exact).run_test_backward(CPU)
    coarse = type("Coarse", (exact,), {"numerical_grad_dtype": numpy.float16})
    with pytest.raises(testing.FunctionTestError):
        case(coarse).run_test_backward(CPU)


def test_link_test_case_honours_numerical_grad_dtype():
    assert testing.LinkTestCase.numerical_grad_dtype is numpy.float64
    coarse = type("CoarseLink", (_LinkCase,), {
        "numerical_grad_dtype": numpy.float16,
        "setUp": lambda self: self.check_backward_options.update(atol=1e-5, rtol=1e-5)})
    instance = coarse("test_backward")
    instance.setUp()
    with pytest.raises(testing.LinkTestError):
        instance.test_backward(CPU)
    default = type("FineLink", (coarse,), {"numerical_grad_dtype": numpy.float64})(
        "test_backward")
    default.setUp()
    default.test_backward(CPU)
