"""Random graphs mixing old-style Functions with new-style nodes give the all-new-style results.

Each random graph is built twice from the same recipe: once with every operation as a
new-style Variable operator, once with a random subset as old-style Functions. Outputs and leaf
gradients must agree.
"""

from __future__ import annotations

import numpy
from hypothesis import given, settings
from hypothesis import strategies as st

import chainer_compat as C
import chainer_compat.functions as F
from chainer_compat import utils
from chainer_compat.function import Function


class OldMul(Function):
    def forward_cpu(self, inputs):
        a, b = inputs
        return utils.force_array(a * b),

    def backward_cpu(self, inputs, grad_outputs):
        a, b = inputs
        gy, = grad_outputs
        return utils.force_array(gy * b), utils.force_array(gy * a)


class OldAdd(Function):
    def forward_cpu(self, inputs):
        self.retain_inputs(())
        a, b = inputs
        return utils.force_array(a + b),

    def backward_cpu(self, inputs, grad_outputs):
        gy, = grad_outputs
        return gy, gy


class OldExp(Function):
    def forward_cpu(self, inputs):
        self.retain_inputs(())
        self.retain_outputs((0,))
        return utils.force_array(numpy.exp(inputs[0])),

    def backward_cpu(self, inputs, grad_outputs):
        return utils.force_array(grad_outputs[0] * self.output_data[0]),


class OldSplit(Function):
    """Two outputs (a * 0.5, a * -0.25); backward sees None for an unused one."""

    def forward_cpu(self, inputs):
        a, = inputs
        return utils.force_array(a * 0.5), utils.force_array(a * -0.25)

    def backward_cpu(self, inputs, grad_outputs):
        g0, g1 = grad_outputs
        gx = numpy.zeros_like(inputs[0])
        if g0 is not None:
            gx += g0 * 0.5
        if g1 is not None:
            gx += g1 * -0.25
        return gx,


NEW_STYLE = {
    "mul": lambda a, b: a * b,
    "add": lambda a, b: a + b,
    "exp": lambda a: F.exp(a),
    "split": lambda a: (a * 0.5, a * -0.25),
}
OLD_STYLE = {
    "mul": lambda a, b: OldMul()(a, b),
    "add": lambda a, b: OldAdd()(a, b),
    "exp": lambda a: OldExp()(a),
    "split": lambda a: OldSplit()(a),
}
ARITY = {"mul": 2, "add": 2, "exp": 1, "split": 1}


@st.composite
def recipes(draw):
    """A list of (op, operand positions, old-style?) steps over a growing list of values."""
    steps = []
    count = 2  # two leaves
    for _ in range(draw(st.integers(1, 12))):
        op = draw(st.sampled_from(sorted(ARITY)))
        operands = [draw(st.integers(0, count - 1)) for _ in range(ARITY[op])]
        steps.append((op, operands, draw(st.booleans())))
        count += 2 if op == "split" else 1
    return steps


def _run(recipe, leaves_data, mixed):
    leaves = [C.Variable(data.copy()) for data in leaves_data]
    values = list(leaves)
    for op, operands, old_style in recipe:
        table = OLD_STYLE if mixed and old_style else NEW_STYLE
        # Halving the argument of exp keeps long recipes finite.
        args = [values[i] * 0.5 if op == "exp" else values[i] for i in operands]
        result = table[op](*args)
        values.extend(result if isinstance(result, tuple) else (result,))
    loss = F.sum(values[-1] * values[-1]) + F.sum(values[-2])
    loss.backward()
    return loss.array, [leaf.grad for leaf in leaves]


@settings(max_examples=60, deadline=None)
@given(recipes(), st.integers(0, 2**16))
def test_mixed_graph_matches_the_all_new_style_graph(recipe, seed):
    rng = numpy.random.default_rng(seed)
    leaves_data = [rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3)]
    expected_loss, expected_grads = _run(recipe, leaves_data, mixed=False)
    loss, grads = _run(recipe, leaves_data, mixed=True)
    numpy.testing.assert_allclose(loss, expected_loss, rtol=1e-12)
    for grad, expected in zip(grads, expected_grads):
        if expected is None:
            assert grad is None
        else:
            numpy.testing.assert_allclose(grad, expected, rtol=1e-10, atol=1e-12)
