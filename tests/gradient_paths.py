"""Shared by the tests of NOTE [gradients without a node]: run a backward both ways.

A registered hook makes backward apply the gradient nodes, which are the reference behaviour;
without one, the functions compute the same gradients directly. ``both_ways`` runs a test's
backward once each way, so the test can compare the results bit for bit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from chainer_compat import FunctionHook, FunctionNode, Variable, grad


class LabelRecorder(FunctionHook):
    """Records the label of every function applied while it is registered."""

    name = "label_recorder"

    def __init__(self) -> None:
        self.labels: list[str] = []

    def forward_preprocess(self, function: Any, in_data: Any) -> None:
        self.labels.append(function.label)


@contextlib.contextmanager
def count_applies(labels: list[str]) -> Iterator[None]:
    """Records the label of every FunctionNode.apply inside the block, without a hook (which
    would make backward apply its gradient nodes)."""
    original = FunctionNode.apply

    def counting_apply(self: FunctionNode, inputs: Any) -> Any:
        labels.append(self.label)
        return original(self, inputs)

    FunctionNode.apply = counting_apply  # type: ignore[method-assign]
    try:
        yield
    finally:
        FunctionNode.apply = original  # type: ignore[method-assign]


def both_ways(run_backward: Callable[[Any], Any]) -> tuple[Any, Any, list[str]]:
    """Runs a test's graph twice: its backward plainly, then under a LabelRecorder.

    Asserts that the plain backward applies no function: that it took the direct path.

    Args:
        run_backward: Builds the graph, runs its backward inside the context manager it is
            given, and returns what the test compares.

    Returns:
        What the direct run returned, what the run through the nodes returned, and the labels
        of the functions applied during the second backward.
    """
    applied_directly: list[str] = []
    direct = run_backward(count_applies(applied_directly))
    assert applied_directly == [], f"the direct backward applied {applied_directly}"
    recorder = LabelRecorder()
    through_nodes = run_backward(recorder)
    return direct, through_nodes, recorder.labels


def input_gradient_both_ways(function: Callable[[Variable], Variable], x_array: Any,
                             gy: Any) -> tuple[Any, Any, list[str]]:
    """``both_ways`` for a one-input function: the input's gradient given the output's ``gy``.

    ``gy`` is an array (set as ``y.grad``) or a Variable (set as ``y.grad_var``).
    """
    def run_backward(backward_context: Any) -> Any:
        x = Variable(x_array.copy())
        y = function(x)
        if isinstance(gy, Variable):
            y.grad_var = gy
        else:
            y.grad = gy.copy()
        with backward_context:
            y.backward()
        return x.grad_var

    return both_ways(run_backward)


def assert_same_gradient(direct: Variable, through_node: Variable) -> None:
    """The direct gradient is the node's, bit for bit, and neither records a graph."""
    assert direct.creator is None and through_node.creator is None
    assert direct.dtype == through_node.dtype
    assert direct.array.tobytes() == through_node.array.tobytes()  # CuPy has tobytes too
    assert direct.requires_grad is through_node.requires_grad


def gradients_under_a_hook(function: Callable[..., Variable], arrays: Sequence[Any],
                           gy: Any) -> tuple[list[Any], list[Any], list[str]]:
    """Runs ``function``'s backward plainly and again under a LabelRecorder.

    Args:
        function: Takes one Variable per array and returns one Variable.
        arrays: The inputs' arrays (copied, so each run starts from the same values).
        gy: The output's gradient.

    Returns:
        The inputs' gradients of the plain run and of the run under the hook, and the labels
        of the functions applied during the second backward.
    """
    def run(backward_context: Any) -> list[Any]:
        inputs = [Variable(array.copy()) for array in arrays]
        y = function(*inputs)
        y.grad = gy.copy()
        with backward_context:
            y.backward()
        return [v.grad for v in inputs]

    recorder = LabelRecorder()
    plain = run(contextlib.nullcontext())
    return plain, run(recorder), recorder.labels


def first_gradient_node(function: Callable[..., Variable], arrays: Sequence[Any],
                        gy: Any) -> FunctionNode:
    """The node that computes the first input's gradient of ``function(*arrays)`` for the
    output gradient ``gy``, recorded for double backprop."""
    inputs = [Variable(array) for array in arrays]
    grads = grad([function(*inputs)], inputs, [Variable(gy)], enable_double_backprop=True)
    node = grads[0].creator
    assert node is not None
    return node
