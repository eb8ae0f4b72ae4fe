"""``PrintHook``: prints what each hooked function gets before its forward and backward.

Layer 8: imports ``backend``, ``function_hook`` and ``variable``.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, TextIO

from chainer_compat import backend
from chainer_compat.function_hook import FunctionHook
from chainer_compat.variable import Variable


class PrintHook(FunctionHook):
    """Function hook that prints the inputs of every forward and backward before it runs.

    For each call it writes the function label, then ``Variable.debug_print()`` of every input
    array (``(removed)`` for an input whose array was not kept for backward) and, before a
    backward, of every output gradient. One ``with PrintHook():`` block shows this for every
    function of the current thread without touching their code.

    Args:
        sep: Deprecated and ignored (a DeprecationWarning is issued when given).
        end: Text written after each printed item.
        file: Text stream to write to.
        flush: Whether to flush ``file`` after each call's report.
    """

    name = "PrintHook"

    def __init__(self, sep: str | None = None, end: str = "\n", file: TextIO = sys.stdout,
                 flush: bool = True) -> None:
        if sep is not None:
            warnings.warn("sep argument in chainer.function_hooks.PrintHook is deprecated.",
                          DeprecationWarning, stacklevel=1)
        self.sep = sep  # compat: kept as an attribute because Chainer documented it
        self.end = end
        self.file = file
        self.flush = flush

    def _print(self, text: str) -> None:
        self.file.write(text + self.end)

    def _process(self, function: Any, in_data: tuple[Any, ...],
                 out_grad: tuple[Any, ...] | None = None) -> None:
        self._print(f"function\t{function.label}")
        self._print("input data")
        for array in in_data:
            if array is None:
                # backward sees None for every input array the function did not retain
                self._print("(removed)")
                continue
            self._print(Variable(array).debug_print())
        if out_grad is not None:
            self._print("output gradient")
            for grad in out_grad:
                if grad is None:
                    # no gradient flows back through this output
                    self._print("None")
                    continue
                xp = backend.get_array_module(grad)
                holder = Variable(xp.zeros_like(grad))
                holder.grad = grad
                self._print(holder.debug_print())
        if self.flush:
            self.file.flush()

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._process(function, in_data)

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...],
                            out_grad: tuple[Any, ...]) -> None:
        self._process(function, in_data, out_grad)
