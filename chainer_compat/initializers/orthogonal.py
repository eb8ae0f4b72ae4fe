"""``Orthogonal``: fills a weight with a scaled (semi-)orthogonal matrix (Saxe et al., 2013).

Imports ``initializer`` and the shared helpers in ``initializers._base``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy
from numpy.typing import DTypeLike

from chainer_compat.initializer import Initializer
from chainer_compat.initializers import _base

# mode: (refuse more inputs than outputs, refuse more outputs than inputs)
_MODE_LIMITS: dict[str, tuple[bool, bool]] = {
    "auto": (False, False),
    "projection": (False, True),
    "embedding": (True, False),
    "basis": (True, True),
}


def _draw(rng: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """Draws with ``rng`` (or NumPy's global generator) and returns host values."""
    source = numpy.random if rng is None else rng
    if method == "randint" and not hasattr(source, "randint"):
        # numpy.random.Generator spells it ``integers``.
        method = "integers"
    return _base.to_host(getattr(source, method)(*args, **kwargs))


class Orthogonal(Initializer):
    """Fills an array with ``scale`` times a (semi-)orthogonal matrix.

    The array reads as a matrix with ``len(array)`` rows (outputs) and the product of the other
    axes as columns (inputs). A standard Gaussian matrix of that shape (transposed when it is
    wide) is QR-decomposed; Q's columns are flipped so R's diagonal is non-negative, which
    makes the result uniformly distributed, then scaled. Wide matrices get orthogonal rows,
    tall ones orthogonal columns. A 0-dim array becomes ``+scale`` or ``-scale`` at random.
    The work runs on the host; CuPy arrays receive the result.

    Args:
        scale: Multiplies the orthogonal matrix.
        dtype: The dtype arrays must have, or None to accept any.
        mode: Which shapes to accept: ``'auto'`` (any), ``'projection'`` (no more outputs
            than inputs), ``'embedding'`` (no more inputs than outputs) or ``'basis'``
            (square only).
        rng: A random generator with NumPy's ``normal`` and ``randint`` methods; None uses
            NumPy's global generator, also for CuPy arrays.

    Raises:
        ValueError: If ``mode`` is not one of the four above.
    """

    def __init__(self, scale: float = 1.1, dtype: DTypeLike | None = None, mode: str = "auto",
                 *, rng: Any = None) -> None:
        if mode not in _MODE_LIMITS:
            raise ValueError(
                f"Orthogonal mode must be one of {', '.join(map(repr, _MODE_LIMITS))}, "
                f"got {mode!r}")
        self.scale = scale
        self.mode = mode
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        """Fills ``array`` in place.

        Raises:
            ValueError: If the array is empty, its shape breaks ``mode``, or its dtype differs
                from a set ``dtype``.
        """
        _base.check_dtype(self, array)
        if array.ndim == 0:
            sign = 2 * int(_draw(self.rng, "randint", 2)) - 1
            array[...] = self.scale * sign
            return
        if array.size == 0:
            raise ValueError(
                f"Orthogonal array must be non-empty, got shape {tuple(array.shape)}")
        outputs = array.shape[0]
        inputs = math.prod(array.shape[1:])
        refuse_wide, refuse_tall = _MODE_LIMITS[self.mode]
        if (inputs > outputs and refuse_wide) or (inputs < outputs and refuse_tall):
            rule = {
                "projection": "no more outputs than inputs",
                "embedding": "no more inputs than outputs",
                "basis": "as many inputs as outputs",
            }[self.mode]
            raise ValueError(
                f"Orthogonal(mode={self.mode!r}) array shape must have {rule}, "
                f"got {tuple(array.shape)} ({inputs} inputs, {outputs} outputs)\n"
                "Use mode='auto' to accept any shape.")
        gaussian = _draw(self.rng, "normal", size=(outputs, inputs))
        wide = inputs > outputs
        if wide:
            gaussian = gaussian.T
        q, r = numpy.linalg.qr(gaussian)
        q *= numpy.copysign(self.scale, numpy.diag(r))
        if wide:
            q = q.T
        _base.assign(array, q.reshape(array.shape).astype(array.dtype, copy=False))
