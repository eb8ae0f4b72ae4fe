"""``chainer.utils.precision``: a decorator that runs an old-style ``forward`` in float32 for
float16 inputs and casts the outputs back to float16.

Layer 1: imports only numpy.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy

_Forward = Callable[[Any, tuple[Any, ...]], Sequence[Any]]


def _fp16_mixed_precision_helper(fn: _Forward) -> Callable[[Any, Sequence[Any]],
                                                           Sequence[Any]]:
    """Wraps ``fn(self, in_data)`` to compute in float32 when inputs are float16.

    Every float16 input is cast to float32 before ``fn`` runs. When no input is a float of
    another width (float32, float64), every float32 output is cast back to float16; None and
    other outputs are passed through.

    Args:
        fn: A ``forward`` method taking a sequence of arrays and returning a sequence.

    Returns:
        The wrapped method; it returns fn's outputs as they are, or a tuple of them when it
        casts some back.
    """
    @functools.wraps(fn)
    def wrapper(self: Any, in_data: Sequence[Any]) -> Sequence[Any]:
        # Half precision in, half precision out; a wider float input keeps the outputs wide.
        half_only = all(x.dtype.kind != "f" or x.dtype == numpy.float16 for x in in_data)
        widened = tuple(x.astype(numpy.float32) if x.dtype == numpy.float16 else x
                        for x in in_data)
        out_data = fn(self, widened)
        if not half_only:
            return out_data
        return tuple(y.astype(numpy.float16) if y is not None and y.dtype == numpy.float32
                     else y for y in out_data)

    return wrapper
