"""``OldStyleCall``: lets a built-in FunctionNode be called like the old-style Function it is in
Chainer (``F.Accuracy()(y, t)``, ``LSTMGrad()(...)``).

Layer 5: imports the configuration, variable and functions._held_value.
``gradients_without_graph`` and ``gradients_with_values`` give such a function's backward
Chainer's behaviour: see NOTE [old-style gradients].
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from chainer_compat.configuration import config
from chainer_compat.functions._held_value import HeldValue
from chainer_compat.variable import Variable, _new_unlinked_variable

__all__ = ["OldStyleCall", "gradients_with_values", "gradients_without_graph",
           "records_a_graph"]

# NOTE [old-style gradients]
# Chainer's old-style Functions compute their gradients as arrays: a hook sees such a function's
# backward and no function applied in it, and the gradients cannot be differentiated again. Ours
# are FunctionNodes whose backward does the same (Chainer's arithmetic on arrays, wrapped as
# Variables without a creator, needing a gradient as Chainer's FunctionAdapter makes them)
# unless a graph is being recorded (double backprop, enable_backprop on): then they apply
# differentiable functions instead, which Chainer cannot. Those gradients still take the
# values of Chainer's arithmetic (``gradients_with_values``), since the differentiable form
# rounds otherwise: a user turning double backprop on for a gradient penalty elsewhere in the
# model gets the same first-order gradients from these functions as without it.


class OldStyleCall:
    """Mixin for FunctionNodes that Chainer defines as old-style Functions, which legacy code
    calls directly. List it before FunctionNode among the bases.

    Calling the instance returns its one output Variable, or a tuple of them, as an old-style
    Function does.
    """

    def __call__(self, *inputs: Any) -> Any:
        # compat: old-style Functions are called directly, and may be called again: each call
        # applies a fresh copy, so earlier results keep their own graph node.
        node: Any = copy.copy(self)
        outputs = node.apply(inputs)
        return outputs[0] if len(outputs) == 1 else outputs


def records_a_graph() -> bool:
    """Whether a backward running now must return differentiable gradients (NOTE [old-style
    gradients])."""
    return bool(config.enable_backprop)


def gradients_without_graph(arrays: Sequence[Any], indexes: Sequence[int]
                            ) -> tuple[Variable | None, ...]:
    """The gradient arrays of an old-style backward, for the inputs in ``indexes``, as
    Variables without a creator (None stays None): NOTE [old-style gradients]."""
    return tuple(None if arrays[index] is None else _new_unlinked_variable(arrays[index], True)
                 for index in indexes)


def gradients_with_values(graph: Sequence[Variable | None], arrays: Sequence[Any],
                          indexes: Sequence[int]) -> tuple[Variable | None, ...]:
    """The differentiable gradients ``graph`` (one per index in ``indexes``), each holding the
    array of Chainer's arithmetic for its input (``arrays``, one per input) as its value: NOTE
    [old-style gradients]."""
    result: list[Variable | None] = []
    for index, grad in zip(indexes, graph, strict=True):
        array = arrays[index]
        result.append(grad if grad is None or array is None
                      else HeldValue(array, "OldStyleGradient").apply((grad,))[0])
    return tuple(result)
