"""Controls over the arrays the graph keeps for backward: mutation allowance and explicit versions.

Layer 7: imports the saved-array checker of ``chainer_compat.autograd`` only.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

from chainer_compat.autograd._saved_arrays import _Preserve, _update_lone_records
from chainer_compat.autograd._saved_arrays import increment_version as _increment

__all__ = ["allow_mutation_on_saved_tensors", "increment_version"]


class allow_mutation_on_saved_tensors:
    """Context manager under which arrays saved for backward may be modified in place.

    Every array that a function saves for backward (``ctx.save_for_backward``,
    ``retain_inputs``/``retain_outputs``, an old-style Function's inputs) while the block is
    active is copied as forward returns. When backward reads it, the copy is used if the array
    changed (or if a change cannot be ruled out: large arrays without a fingerprint), so the
    gradient is computed from the values forward saw, as in PyTorch. No
    :class:`~chainer_compat.autograd.VersionMismatch` is raised for those arrays, whenever
    backward runs.

    Costs one copy of every array saved inside the block, kept while its graph lives. Arrays
    saved outside the block are checked as usual even if they are modified inside it, so the
    block must surround the forward. The switch is process-wide (other threads' forwards are
    preserved too while it is active) and blocks nest.

    Compat: PyTorch copies lazily, when the write happens; NumPy and CuPy cannot report writes,
    so the copy is taken eagerly.
    """

    def __enter__(self) -> None:
        with _Preserve.lock:
            _Preserve.depth += 1
            _update_lone_records()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        with _Preserve.lock:
            _Preserve.depth -= 1
            _update_lone_records()


def increment_version(*arrays: Any) -> None:
    """Records that arrays were modified in place, for code that writes into arrays it knows
    may be saved for backward.

    A function that saved one of these arrays (or a view of the same memory) before the call
    raises :class:`~chainer_compat.autograd.VersionMismatch` when its backward reads it, unless
    an earlier backward already read it (each saved array is checked once). Unlike
    the automatic check, this catches writes to arrays of any size, writes that store the same
    values, and writes on CuPy arrays, at the cost of one dictionary lookup per saved array
    while any version exists. Call it after (or before) the write; the write itself is not
    affected.

    Args:
        arrays: NumPy/CuPy arrays or Variables (their arrays are meant); None is skipped.

    Raises:
        TypeError: If an argument is not an array, a Variable or None.
    """
    _increment(*arrays)
