"""Hypothesis profiles and graph strategies shared by the property and reliability tests.

The graph vocabulary (``OPS``) mixes Variable operators, ``chainer_compat.functions``, and custom
nodes of the three styles (new-style FunctionNode, old-style Function, ctx Function). A recipe is
a random DAG over it; :func:`build` turns a recipe into a loss that depends on every value.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import chainer_compat as C
import chainer_compat.functions as F
from chainer_compat import FunctionHook, FunctionNode, Variable
from chainer_compat.autograd import Function as CtxFunction
from chainer_compat.function import Function
from chainer_compat.functions.activation.sigmoid import sigmoid
from chainer_compat.functions.activation.softplus import softplus
from chainer_compat.functions.activation.tanh import tanh
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.array.split_axis import split_axis
from chainer_compat.functions.array.stack import stack
from chainer_compat.functions.math.sqrt import sqrt
from chainer_compat.functions.math.trigonometric import cos, sin

# ------------------------------------------------------------------------------ profiles
# "ci" (the default) is derandomized and keeps no example database, so every CI run checks the
# same examples and a failure reproduces anywhere; "thorough" is for a nightly or local hunt.
# Picked by CHAINER_COMPAT_HYPOTHESIS_PROFILE=ci|thorough and applied per test (never loaded
# globally); the names are namespaced so they never replace a profile registered elsewhere.
_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow], "print_blob": True}
settings.register_profile("chainer_compat-ci", max_examples=100, derandomize=True,
                          database=None, **_COMMON)
settings.register_profile("chainer_compat-thorough", max_examples=2000, **_COMMON)
PROFILE = os.environ.get("CHAINER_COMPAT_HYPOTHESIS_PROFILE", "ci")


def profile_settings(max_examples: int | None = None) -> settings:
    """Settings of the selected profile. ``max_examples`` is the count for CI; the thorough
    profile runs at least its own (larger) count."""
    base = settings.get_profile(f"chainer_compat-{PROFILE}")
    if max_examples is None:
        return settings(base)
    if PROFILE != "ci":
        max_examples = max(max_examples, base.max_examples)
    return settings(base, max_examples=max_examples)


# ------------------------------------------------------------------------------ custom nodes
class NewMulAdd(FunctionNode):
    """New-style ``a * b + a``: retains both inputs, backward with Variables."""

    backward_calls = 0

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        a, b = inputs
        return a * b + a,

    def backward(self, indexes, grad_outputs):
        self.backward_calls += 1
        a, b = self.get_retained_inputs()
        gy, = grad_outputs
        return gy * (b + 1.0), gy * a


class NewExp(FunctionNode):
    """New-style ``exp``: retains its output, so a dropped output is resurrected in backward."""

    backward_calls = 0

    def forward(self, inputs):
        self.retain_outputs((0,))
        return numpy.exp(inputs[0]),

    def backward(self, indexes, grad_outputs):
        self.backward_calls += 1
        y, = self.get_retained_outputs()
        return grad_outputs[0] * y,


class NewAccumulate(FunctionNode):
    """New-style ``3a + b`` that overrides ``backward_accumulate`` (the engine's fused path)."""

    backward_calls = 0

    def forward(self, inputs):
        a, b = inputs
        return 3.0 * a + b,

    def backward_accumulate(self, target_input_indexes, grad_outputs, grad_inputs):
        self.backward_calls += 1
        gy, = grad_outputs
        local = {0: gy * 3.0, 1: gy}
        result = []
        for index, before in zip(target_input_indexes, grad_inputs):
            gx = local[index]
            result.append(gx if before is None else gx + before)
        return tuple(result)


class NewTwoOut(FunctionNode):
    """New-style two outputs ``(a * b, a - b)``; backward sees None for an unused output."""

    backward_calls = 0

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        a, b = inputs
        return a * b, a - b

    def backward(self, indexes, grad_outputs):
        self.backward_calls += 1
        a, b = self.get_retained_inputs()
        g0, g1 = grad_outputs
        ga = gb = None
        if g0 is not None:
            ga, gb = g0 * b, g0 * a
        if g1 is not None:
            ga = g1 if ga is None else ga + g1
            gb = -g1 if gb is None else gb - g1
        return ga, gb


class OldMul(Function):
    """Old-style ``a * b`` (retains every input, the default)."""

    backward_calls = 0

    def forward_cpu(self, inputs):
        a, b = inputs
        return a * b,

    def backward_cpu(self, inputs, grad_outputs):
        self.backward_calls += 1
        a, b = inputs
        gy, = grad_outputs
        return gy * b, gy * a


class OldExp(Function):
    """Old-style ``exp`` reading its output through ``output_data``."""

    backward_calls = 0

    def forward_cpu(self, inputs):
        self.retain_inputs(())
        self.retain_outputs((0,))
        return numpy.exp(inputs[0]),

    def backward_cpu(self, inputs, grad_outputs):
        self.backward_calls += 1
        return grad_outputs[0] * self.output_data[0],


class OldSplit(Function):
    """Old-style two outputs ``(0.5 a, -0.25 a)``; backward sees None for an unused output."""

    backward_calls = 0

    def forward_cpu(self, inputs):
        a, = inputs
        return a * 0.5, a * -0.25

    def backward_cpu(self, inputs, grad_outputs):
        self.backward_calls += 1
        g0, g1 = grad_outputs
        gx = numpy.zeros_like(inputs[0])
        if g0 is not None:
            gx += g0 * 0.5
        if g1 is not None:
            gx += g1 * -0.25
        return gx,


class CtxSquare(CtxFunction):
    """ctx-style ``x * x`` saving its input; backward with Variables (twice-differentiable).

    Every ctx Function here takes a ``counter`` (a one-element list, a plain argument that
    reaches forward unchanged) and adds its backward calls to it.
    """

    @staticmethod
    def forward(ctx, x, counter):
        ctx.counter = counter
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, gy):
        ctx.counter[0] += 1
        x, = ctx.saved_tensors
        return 2.0 * x * gy, None


class CtxScaleArrays(CtxFunction):
    """ctx-style ``a * k + b`` with a plain ``k``; backward returns arrays (once-differentiable)."""

    @staticmethod
    def forward(ctx, a, k, b, counter):
        ctx.counter = counter
        ctx.k = k
        return a * k + b

    @staticmethod
    def backward(ctx, gy):
        ctx.counter[0] += 1
        return gy.array * ctx.k, None, gy.array, None


class CtxTwoOut(CtxFunction):
    """ctx-style two outputs ``(sin a, a * b)``; a missing gradient arrives as zeros."""

    @staticmethod
    def forward(ctx, a, b, counter):
        ctx.counter = counter
        ctx.save_for_backward(a, b)
        return numpy.sin(a), a * b

    @staticmethod
    def backward(ctx, g0, g1):
        ctx.counter[0] += 1
        a, b = ctx.saved_tensors
        return g0 * cos(a) + g1 * b, g1 * a, None


def custom_backward_counts(nodes: Sequence[Any]) -> list[int]:
    """Backward calls of each custom node: a FunctionNode, an old-style Function, or the
    counter list a ctx Function application was given."""
    return [node[0] if isinstance(node, list) else node.backward_calls for node in nodes]


# ------------------------------------------------------------------------------ the vocabulary
@dataclass(frozen=True)
class OpSpec:
    """One kind of step of a random graph.

    Attributes:
        arity: Number of earlier values it consumes.
        outputs: Number of values it produces.
        kind: "operator", "function", "new", "old" or "ctx".
        twice: Whether its gradient can be differentiated again.
        apply: Builds the step; returns the outputs and the custom nodes it created.
    """

    arity: int
    outputs: int
    kind: str
    twice: bool
    apply: Callable[..., tuple[tuple[Variable, ...], list[Any]]]


def _plain(fn: Callable[..., Any]) -> Callable[..., tuple[tuple[Variable, ...], list[Any]]]:
    def apply(*xs: Variable) -> tuple[tuple[Variable, ...], list[Any]]:
        result = fn(*xs)
        return (result if isinstance(result, tuple) else (result,)), []
    return apply


def _new_node(cls: type[FunctionNode], keep: slice = slice(None)) -> Callable[..., Any]:
    def apply(*xs: Variable) -> tuple[tuple[Variable, ...], list[Any]]:
        node = cls()
        return node.apply(xs)[keep], [node]
    return apply


def _old_function(cls: type[Function], keep: slice = slice(None)) -> Callable[..., Any]:
    def apply(*xs: Variable) -> tuple[tuple[Variable, ...], list[Any]]:
        function = cls()
        result = function(*xs)
        result = result if isinstance(result, tuple) else (result,)
        return result[keep], [function]
    return apply


def _ctx(cls: type[CtxFunction], *constants: Any, keep: slice = slice(None)) -> Callable[..., Any]:
    def apply(*xs: Variable) -> tuple[tuple[Variable, ...], list[Any]]:
        args: list[Any] = list(xs)
        if constants:
            args.insert(1, constants[0])
        counter = [0]
        result = cls.apply(*args, counter)
        result = result if isinstance(result, tuple) else (result,)
        return result[keep], [counter]
    return apply


def _resurrected_exp(a: Variable) -> tuple[tuple[Variable, ...], list[Any]]:
    # The NewExp output is dropped on return: backward resurrects it from the retained array.
    node = NewExp()
    y, = node.apply((a,))
    return (y * 1.5,), [node]


SHAPE = (2, 3)
_COLUMNS = [0, 0, 2]  # advanced indexing with a repeat: the gradient scatters and adds

OPS: dict[str, OpSpec] = {
    # Variable operators (basic_math, get_item, reshape, transpose, matmul).
    "add": OpSpec(2, 1, "operator", True, _plain(lambda a, b: a + b)),
    "sub": OpSpec(2, 1, "operator", True, _plain(lambda a, b: a - b)),
    "mul": OpSpec(2, 1, "operator", True, _plain(lambda a, b: a * b)),
    "div": OpSpec(2, 1, "operator", True, _plain(lambda a, b: a / (1.5 + b * b))),
    "neg": OpSpec(1, 1, "operator", True, _plain(lambda a: -a)),
    "constants": OpSpec(1, 1, "operator", True,
                        _plain(lambda a: 1.0 - (a * 0.75 + 0.5) / 2.0)),
    "rdiv": OpSpec(1, 1, "operator", True, _plain(lambda a: 1.0 / (1.5 + a * a))),
    "pow_const": OpSpec(1, 1, "operator", True, _plain(lambda a: a ** 2)),
    "pow_var": OpSpec(2, 1, "operator", True,
                      _plain(lambda a, b: (1.25 + a * a) ** (0.5 * b))),
    "rpow": OpSpec(1, 1, "operator", True, _plain(lambda a: 1.5 ** a)),
    "matmul": OpSpec(2, 1, "operator", True, _plain(lambda a, b: (a @ b.T) @ a * 0.5)),
    "flip": OpSpec(1, 1, "operator", True, _plain(lambda a: a[:, ::-1])),
    "gather": OpSpec(1, 1, "operator", True, _plain(lambda a: a[:, _COLUMNS])),
    "reshape_t": OpSpec(1, 1, "operator", True, _plain(lambda a: a.reshape(3, 2).T)),
    # chainer_compat.functions.
    "exp": OpSpec(1, 1, "function", True, _plain(lambda a: F.exp(a * 0.5))),
    "log": OpSpec(1, 1, "function", True, _plain(lambda a: F.log(1.0 + a * a))),
    "tanh": OpSpec(1, 1, "function", True, _plain(tanh)),
    "sigmoid": OpSpec(1, 1, "function", True, _plain(sigmoid)),
    "sin": OpSpec(1, 1, "function", True, _plain(sin)),
    "softplus": OpSpec(1, 1, "function", True, _plain(softplus)),
    "sqrt": OpSpec(1, 1, "function", True, _plain(lambda a: sqrt(1.0 + a * a))),
    "sum_broadcast": OpSpec(1, 1, "function", True, _plain(
        lambda a: F.broadcast_to(F.sum(a, axis=0, keepdims=True), SHAPE))),
    "stack_sum": OpSpec(2, 1, "function", True,
                        _plain(lambda a, b: F.sum(stack((a, b * 0.5)), axis=0))),
    "concat_split": OpSpec(2, 2, "function", True,
                           _plain(lambda a, b: tuple(split_axis(concat((a, b)), 2, axis=1)))),
    # Custom nodes of the three styles.
    "new_mul_add": OpSpec(2, 1, "new", True, _new_node(NewMulAdd)),
    "new_exp": OpSpec(1, 1, "new", True, _new_node(NewExp)),
    "new_exp_dropped": OpSpec(1, 1, "new", True, _resurrected_exp),
    "new_accumulate": OpSpec(2, 1, "new", True, _new_node(NewAccumulate)),
    "new_two_out": OpSpec(2, 2, "new", True, _new_node(NewTwoOut)),
    "new_first_of_two": OpSpec(2, 1, "new", True, _new_node(NewTwoOut, slice(0, 1))),
    "old_mul": OpSpec(2, 1, "old", False, _old_function(OldMul)),
    "old_exp": OpSpec(1, 1, "old", False, _old_function(OldExp)),
    "old_split": OpSpec(1, 2, "old", False, _old_function(OldSplit)),
    "old_second_of_two": OpSpec(1, 1, "old", False, _old_function(OldSplit, slice(1, 2))),
    "ctx_square": OpSpec(1, 1, "ctx", True, _ctx(CtxSquare)),
    "ctx_scale_arrays": OpSpec(2, 1, "ctx", False, _ctx(CtxScaleArrays, 0.75)),
    "ctx_two_out": OpSpec(2, 2, "ctx", True, _ctx(CtxTwoOut)),
    "ctx_first_of_two": OpSpec(2, 1, "ctx", True, _ctx(CtxTwoOut, keep=slice(0, 1))),
}


# ------------------------------------------------------------------------------ recipes
@dataclass(frozen=True)
class Step:
    op: str
    args: tuple[int, ...]


@dataclass(frozen=True)
class GraphRecipe:
    """A random DAG: ``leaves`` leaf values, then steps reading earlier values by index.

    Values are numbered leaves first, then each step's outputs in order. ``seed`` fixes the
    leaf arrays and the weights that make the loss depend on every value.
    """

    leaves: int
    steps: tuple[Step, ...]
    seed: int

    @property
    def twice_differentiable(self) -> bool:
        return all(OPS[step.op].twice for step in self.steps)

    @property
    def kinds(self) -> set[str]:
        return {OPS[step.op].kind for step in self.steps}


@st.composite
def graph_recipes(draw: Any, max_steps: int = 10, ops: Sequence[str] | None = None,
                  max_leaves: int = 3) -> GraphRecipe:
    """Random DAGs over ``ops`` (default: the whole vocabulary)."""
    names = sorted(OPS if ops is None else ops)
    leaves = draw(st.integers(1, max_leaves))
    count = leaves
    steps = []
    for _ in range(draw(st.integers(1, max_steps))):
        op = draw(st.sampled_from(names))
        spec = OPS[op]
        args = tuple(draw(st.integers(0, count - 1)) for _ in range(spec.arity))
        steps.append(Step(op, args))
        count += spec.outputs
    seed = draw(st.integers(0, 2 ** 31 - 16))
    return GraphRecipe(leaves, tuple(steps), seed)


def recipe_from_seed(seed: int, max_steps: int = 12, ops: Sequence[str] | None = None,
                     max_leaves: int = 3) -> GraphRecipe:
    """A random DAG drawn with NumPy (for tests that need many graphs without Hypothesis)."""
    rng = numpy.random.RandomState(seed)
    names = sorted(OPS if ops is None else ops)
    leaves = int(rng.randint(1, max_leaves + 1))
    count = leaves
    steps = []
    for _ in range(int(rng.randint(1, max_steps + 1))):
        op = names[int(rng.randint(len(names)))]
        spec = OPS[op]
        steps.append(Step(op, tuple(int(rng.randint(count)) for _ in range(spec.arity))))
        count += spec.outputs
    return GraphRecipe(leaves, tuple(steps), int(rng.randint(2 ** 31)))


def leaf_arrays(recipe: GraphRecipe, dtype: Any = numpy.float64) -> list[Any]:
    """The leaf arrays of a recipe: uniform in [-1, 1], fixed by its seed."""
    rng = numpy.random.RandomState(recipe.seed)
    return [rng.uniform(-1, 1, SHAPE).astype(dtype) for _ in range(recipe.leaves)]


@dataclass
class BuiltGraph:
    """One build of a recipe: the loss, every value, and the custom nodes it applied."""

    loss: Variable
    values: list[Variable]
    custom_nodes: list[Any]


def build(recipe: GraphRecipe, leaves: Sequence[Variable]) -> BuiltGraph:
    """Applies the recipe's steps to ``leaves``; the loss is a weighted sum of every sink."""
    values = list(leaves)
    consumed = set()
    custom_nodes: list[Any] = []
    for step in recipe.steps:
        consumed.update(step.args)
        outputs, nodes = OPS[step.op].apply(*[values[i] for i in step.args])
        values.extend(outputs)
        custom_nodes.extend(nodes)
    rng = numpy.random.RandomState(recipe.seed + 1)
    terms = []
    for index, value in enumerate(values):
        if index >= recipe.leaves and index not in consumed:
            weight = rng.uniform(0.5, 1.5, value.shape).astype(value.dtype)
            terms.append(F.sum(value * weight))
    loss = terms[0]
    for term in terms[1:]:
        loss = loss + term
    return BuiltGraph(loss, values, custom_nodes)


def loss_value(recipe: GraphRecipe, arrays: Sequence[Any]) -> Any:
    """The loss as an array, computed without recording a graph."""
    with C.no_backprop_mode():
        return build(recipe, [Variable(a) for a in arrays]).loss.array


def finite_and_tame(built: BuiltGraph, bound: float = 1e3) -> bool:
    """Whether every value is finite and below ``bound`` (numerical gradients stay accurate)."""
    return all(bool(numpy.all(numpy.abs(v.array) < bound)) for v in built.values) and bool(
        numpy.isfinite(built.loss.array))


# ------------------------------------------------------------------------------ helpers
class BackwardCounter(FunctionHook):
    """Counts ``backward_preprocess`` calls per function node (weakly: it keeps no node)."""

    name = "reliability_backward_counter"

    def __init__(self) -> None:
        self.counts: Counter = Counter()

    def backward_preprocess(self, function, in_data, out_grad):
        self.counts[id(function)] += 1


def graph_functions(output: Variable) -> list[Any]:
    """Every function node reachable backward from ``output``, each once."""
    result = []
    seen = set()
    pending = [output.creator_node]
    while pending:
        func = pending.pop()
        if func is None or id(func) in seen:
            continue
        seen.add(id(func))
        result.append(func)
        for node in func.inputs or ():
            pending.append(node.creator_node)
    return result
