"""``generate_matrix``: random matrices (or stacks of them) with prescribed singular values.

Layer 8: imports only numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy


def generate_matrix(shape: Sequence[int], dtype: Any = float, *,
                    singular_values: Any = None) -> numpy.ndarray:
    """Returns a random NumPy matrix, or stack of matrices, with the given singular values.

    Useful for inputs of tests that are unstable on ill-conditioned matrices. With ``shape``
    ``(B..., M, N)`` and ``K = min(M, N)``, each matrix is ``U @ diag(s) @ Vh`` for random
    orthonormal ``U`` (M x K) and ``Vh`` (K x N) drawn from ``numpy.random``'s global generator.

    Args:
        shape: Shape ``(B..., M, N)`` of the result; at least two axes.
        dtype: A floating or complex dtype.
        singular_values: Real, non-negative values broadcastable to ``(B..., K)``. Required.

    Returns:
        The array, of ``dtype``.

    Raises:
        TypeError: If ``singular_values`` is missing or not real, or ``dtype`` is neither floating
            nor complex.
        ValueError: If ``shape`` has fewer than two axes, a singular value is negative, or
            ``singular_values`` does not broadcast to ``(B..., K)``.
    """
    shape = tuple(shape)
    if len(shape) < 2:
        raise ValueError(
            f"shape must have at least two axes (B..., M, N), got {shape}")
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "fc":
        raise TypeError(f"dtype must be a floating or complex dtype, got {dtype}")
    if singular_values is None:
        raise TypeError(
            "generate_matrix() must be given singular_values, got none"
            " (pass singular_values=... as a keyword)")
    singular_values = numpy.asarray(singular_values)
    if not numpy.isrealobj(singular_values):
        raise TypeError(
            f"singular_values must be real, got dtype {singular_values.dtype}")
    if (singular_values < 0).any():
        raise ValueError(
            f"singular_values must be non-negative, got minimum {singular_values.min()}")

    *batch, rows, columns = shape
    rank = min(rows, columns)
    # Raises ValueError on a shape mismatch, before any random numbers are drawn.
    values = numpy.broadcast_to(singular_values, (*batch, rank))
    if 0 in shape:
        return numpy.zeros(shape, dtype=dtype)

    random_matrix = numpy.random.randn(*shape)
    if dtype.kind == "c":
        random_matrix = random_matrix + 1j * numpy.random.randn(*shape)
    # The singular vectors of a Gaussian matrix are uniformly random orthonormal frames.
    left, _, right = numpy.linalg.svd(random_matrix, full_matrices=False)
    result = numpy.einsum("...ik,...k,...kj->...ij", left, values, right)
    return result.astype(dtype)
