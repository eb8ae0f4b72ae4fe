"""Float16 arithmetic done in float32, rounded to float16 after each step as NumPy's float16
loops round it, several times faster than those loops. Layer 1: imports only numpy.
See NOTE [float16 steps in float32].
"""

from __future__ import annotations

from typing import Any

import numpy

# NOTE [float16 steps in float32]
# NumPy computes a float16 ``a - b``, ``a * b`` or ``a + b`` by converting both operands to
# float32, computing there and converting the result to float16, element by element: about
# 3.3 ms for 2**19 elements, against 0.1 ms for the same float32 operation. Doing the step on
# float32 arrays and rounding the result to the nearest float16 value gives the same bits.
# A cast to float16 and back costs 2.2 ms; rounding the float32 bits in place costs about
# 0.4 ms: round the 23-bit significand to float16's 10 bits, to nearest with ties to even,
# by adding 0xFFF plus the lowest kept bit and clearing the 13 bits below it (a carry moves
# into the exponent, as rounding up a significand of all ones should). That is exact rounding
# for results in float16's normal range. Entries with any other value take the cast:
# magnitudes from 65520 up (which round to inf in float16), inf and NaN, and nonzero
# magnitudes below 2**-14 (float16's subnormals have fewer significant bits). An overflow
# then warns (or raises, under numpy.errstate) as "overflow encountered in cast" where NumPy's
# loop names the operation; the values and the errstate switch that applies are the same.
# (Recomputing the few entries outside the normal range with NumPy's own loop, to keep its
# wording, needs the step's operands kept apart from its result: two more full-size buffers,
# whose page faults cost more than the loops this saves on one- and two-step uses.)
_MAGNITUDE = numpy.uint32(0x7FFF_FFFF)
_DROPPED_BITS = 13  # float32's 23 significand bits less float16's 10
_KEPT = numpy.uint32(0xFFFF_E000)
_HALF_STEP_BELOW = numpy.uint32(0x0FFF)
_SMALLEST_NORMAL = numpy.uint32(0x3880_0000)  # 2**-14 as float32 bits
_ROUNDS_TO_INF = numpy.uint32(0x477F_F000)  # 65520 as float32 bits


def round_to_float16(values: Any) -> None:
    """Rounds the float32 NumPy array ``values`` in place to float16 precision, as
    ``values.astype(float16).astype(float32)`` would, including inf for magnitudes that
    overflow float16 (NOTE [float16 steps in float32])."""
    bits = values.view(numpy.uint32)
    magnitude = bits & _MAGNITUDE
    # (magnitude - 1) wraps to the largest uint32 for zeros, which round exactly.
    outside = (magnitude - numpy.uint32(1)) < _SMALLEST_NORMAL - numpy.uint32(1)
    outside |= magnitude >= _ROUNDS_TO_INF
    count = numpy.count_nonzero(outside)
    if count > values.size // 8:  # many (small gradients): one cast of the whole array
        numpy.copyto(values, values.astype(numpy.float16))
        return
    # The few others are cast one by one, found in one dimension where the memory is
    # contiguous (a twentieth of the cost of n-d indices).
    if count and (values.flags.c_contiguous or values.flags.f_contiguous):
        flat, where = values.ravel(order="K"), numpy.flatnonzero(outside.ravel(order="K"))
    else:
        flat, where = values, outside
    cast = flat[where].astype(numpy.float16) if count else None
    lowest_kept = bits >> _DROPPED_BITS
    lowest_kept &= numpy.uint32(1)
    lowest_kept += _HALF_STEP_BELOW
    bits += lowest_kept
    bits &= _KEPT
    if cast is not None:
        flat[where] = cast


def steps_apply(full_size: tuple[Any, ...], others: tuple[Any, ...] = ()) -> bool:
    """Whether :func:`float16_steps` may stand in for NumPy's loops on these operands: every
    one a float16 NumPy array, and the ``full_size`` ones C-contiguous, so that each step's
    result is C-contiguous as NumPy's would be (later sums add in the same order)."""
    return (all(isinstance(a, numpy.ndarray) and a.dtype == numpy.float16
                for a in (*full_size, *others))
            and all(a.flags.c_contiguous for a in full_size))


def float16_steps(first: Any, *steps: tuple[Any, Any]) -> Any:
    """Applies ``steps`` to the float16 array ``first`` as NumPy's float16 loops would, and
    returns the float16 result (NOTE [float16 steps in float32]).

    Args:
        first: A float16 NumPy array.
        steps: ``(ufunc, operand)`` pairs, each ``numpy.subtract``, ``numpy.multiply`` or
            ``numpy.add`` with a float16 operand that broadcasts against ``first``.

    Returns:
        ``ufunc_n(... ufunc_1(first, operand_1) ..., operand_n)`` as a new float16 ndarray
        (a subclass such as ``numpy.memmap`` is not kept, as NumPy's loops do not keep it).
    """
    values = numpy.asarray(first).astype(numpy.float32)
    for i, (ufunc, operand) in enumerate(steps):
        ufunc(values, numpy.asarray(operand, numpy.float32), out=values)
        if i < len(steps) - 1:  # the last step is rounded by the cast
            round_to_float16(values)
    return values.astype(numpy.float16)
