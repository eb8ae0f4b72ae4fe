"""``OldStyleCall``: lets a built-in FunctionNode be called like the old-style Function it is in
Chainer (``F.Accuracy()(y, t)``, ``LSTMGrad()(...)``).

Layer 5: imports the configuration and variable. ``gradients_without_graph`` gives such a
function's backward Chainer's behaviour: see NOTE [old-style gradients].
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from chainer_compat.configuration import config
from chainer_compat.variable import Variable, _new_unlinked_variable

__all__ = ["OldStyleCall", "gradients_without_graph", "records_a_graph"]

# NOTE [old-style gradients]
# Chainer's old-style Functions compute their gradients as arrays: a hook sees such a function's
# backward and no function applied in it, and the gradients cannot be differentiated again. Ours
# are FunctionNodes whose backward does the same (Chainer's arithmetic on arrays, wrapped as
# Variables without a creator, needing a gradient as Chainer's FunctionAdapter makes them)
# unless a graph is being recorded (double backprop, enable_backprop on): then they apply
# differentiable functions instead, which Chainer cannot.


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
