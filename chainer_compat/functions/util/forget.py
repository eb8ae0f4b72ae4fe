"""``forget``: calls a function without keeping its intermediate results, recomputing them
when the gradient is needed.

Layer 5: imports configuration, variable and function_node; the backprop engine (layer 6) is
imported inside ``Forget.backward``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer_compat import variable
from chainer_compat.configuration import force_backprop_mode, no_backprop_mode, using_config
from chainer_compat.function_node import FunctionNode


def _ordinal(number: int) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(number if number < 20 else number % 10, "th")
    return f"{number}{suffix}"


def _call(func: Callable[..., Any], inputs: Any) -> tuple[variable.Variable, ...]:
    """``func(*inputs)`` as a tuple of Variables."""
    outputs = func(*inputs)
    if isinstance(outputs, tuple):
        for i, output in enumerate(outputs):
            if not isinstance(output, variable.Variable):
                # compat: Chainer's type and wording.
                raise RuntimeError(
                    f"{_ordinal(i + 1)} element of a returned tuple is not Variable, but is "
                    f"{type(output)}")
        return outputs
    if isinstance(outputs, variable.Variable):
        return (outputs,)
    raise RuntimeError(
        f"A tuple of Variables or a Variable are expected, but {type(outputs)} is returned.")


class Forget(FunctionNode):
    """Runs ``func`` without recording its graph, and again in backward. Use :func:`forget`.

    Args:
        func: A callable taking Variables and returning a Variable or a tuple of them.

    Raises:
        TypeError: If ``func`` is not callable.
    """

    def __init__(self, func: Callable[..., Any]) -> None:
        if not callable(func):
            raise TypeError("func must be callable")
        self.func = func

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        with no_backprop_mode(), using_config("_will_recompute", True):
            outputs = _call(self.func, [variable.Variable(x) for x in inputs])
        return tuple(output.array for output in outputs)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer_compat import _engine  # layer 6: backprop through the recomputed graph
        from chainer_compat.configuration import config

        if config.enable_backprop:
            # compat: Chainer's type and wording.
            raise RuntimeError("double backpropagation in functions.forget is not allowed.")
        # Fresh leaves, so that the recomputed graph ends here.
        leaves = tuple(variable.Variable(x.array) for x in self.get_retained_inputs())
        with force_backprop_mode(), using_config("in_recomputing", True):
            outputs = _call(self.func, leaves)
        pairs = [(output, grad) for output, grad in zip(outputs, grad_outputs)
                 if grad is not None]
        if pairs:
            _engine.backward([output for output, _ in pairs], [grad for _, grad in pairs])
        return tuple(leaves[i].grad_var for i in indexes)


def forget(func: Callable[..., Any], *xs: Any) -> Any:
    """Calls ``func(*xs)`` without storing its intermediate results; backprop calls it again
    (with ``chainer.config.in_recomputing`` True) to get them.

    ``func`` must compute the same values on each call (no dropout), and a link that updates
    state in its forward should skip the update while ``in_recomputing`` is set. Arrays among
    ``xs`` become Variables, so the result is part of the graph.

    Args:
        func: A callable taking Variables and returning a Variable or a tuple of them.
        *xs: Its arguments (Variables or arrays).

    Returns:
        ``func``'s output: a Variable, or a tuple of Variables. Double backprop through it
        raises RuntimeError, as in Chainer.

    Raises:
        TypeError: If ``func`` is not callable.
        RuntimeError: If ``func`` returns something other than Variables.
    """
    inputs = [x if isinstance(x, variable.Variable) else variable.Variable(x) for x in xs]
    outputs = Forget(func).apply(inputs)
    if len(outputs) == 1:
        return outputs[0]
    return outputs
