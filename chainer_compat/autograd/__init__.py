"""``chainer_compat.autograd``: the ctx-style ``Function`` and the checks on saved arrays.

Layer 7. Importing it installs the saved-array checker into ``function_node`` (see NOTE
[saved-array checks] in ``_saved_arrays``), so every kind of function raises
:class:`VersionMismatch` when an array it kept for backward was modified in place.
"""

from __future__ import annotations

from chainer_compat import function_node as _function_node
from chainer_compat.autograd import graph
from chainer_compat.autograd._saved_arrays import SMALL_NBYTES, SavedArrayChecker, VersionMismatch
from chainer_compat.autograd.function import Function, FunctionCtx
from chainer_compat.autograd.graph import allow_mutation_on_saved_tensors, increment_version

__all__ = ["SMALL_NBYTES", "Function", "FunctionCtx", "VersionMismatch",
           "allow_mutation_on_saved_tensors", "graph", "increment_version"]

_function_node._saved_arrays = SavedArrayChecker
