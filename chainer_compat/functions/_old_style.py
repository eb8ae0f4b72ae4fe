"""``OldStyleCall``: lets a built-in FunctionNode be called like the old-style Function it is in
Chainer (``F.Accuracy()(y, t)``, ``LSTMGrad()(...)``).

Layer 5: imports only the standard library.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["OldStyleCall"]


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
