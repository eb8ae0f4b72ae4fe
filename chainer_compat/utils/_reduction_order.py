"""Float sums, means and variances on NumPy 2 that round as NumPy 1.26 (and so Chainer 7.8.1)
rounded them. Layer 1: imports only numpy. See NOTE [NumPy 1 sum order].
"""

from __future__ import annotations

from typing import Any

import numpy

# NOTE [NumPy 1 sum order]
# NumPy 1.x runs a reduction through a buffered iterator whose inner loop sees at most 8,192
# elements at a time. The iterator orders the axes by |stride|, largest outermost. Call the
# innermost reduced axes (those inside the innermost kept axis of length > 1) the run: each
# inner call adds a piece of at most 8,192 elements of it pairwise and adds that partial to the
# output, so a run of L > 8,192 elements is summed as
# ((0 + pw(run[0:8192])) + pw(run[8192:16384])) + ..., and for each output element the runs
# come in the memory order of the outer reduced axes. This holds whether or not the run's axes
# merge into one stride (when they do not, NumPy 1 copies them into its buffer in that order),
# with negative strides walked in index order, and with a casting ``dtype`` (values cast first).
# Float16 pieces are added in float32 and each call's result rounded to float16. NumPy 2 adds
# the whole run pairwise (or in other pieces), so the two differ in the last bits once a run is
# longer than 8,192. Runs of at most 8,192 elements, and reductions whose innermost axis is
# kept (added element by element in both versions), already agree. Established empirically
# against NumPy 1.26.4 over about 3,000 shapes, layouts, axes and dtypes. A broadcast (zero
# stride) axis has no stride to be ordered by, and the iterator keeps index order: checked on
# 1,500 broadcasts (F.mean's gradient reaching a convolution's bias is one) whose other axes'
# strides fall from first to last, which is then the order of their contiguous copy.
CHUNK = 8192

_FLOATS = (numpy.dtype(numpy.float16), numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))


def sum_in_numpy1_order(
    x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False
) -> Any:
    """Sums ``x`` like ``xp.sum``, adding long runs in NumPy 1.26's order on NumPy arrays.

    Args:
        x: A NumPy or CuPy array.
        axis: None (all axes), an int, or a tuple of ints.
        dtype: The result dtype, as in ``numpy.sum``.
        keepdims: Keep the reduced axes with length one.

    Returns:
        What ``xp.sum`` returns, with NumPy 1.26's bits for float16/32/64 NumPy input and a
        float (or no) ``dtype``. CuPy arrays, other dtypes, empty arrays and broadcast (zero
        stride) arrays whose other axes do not fall in stride from first to last get the plain
        ``xp.sum``.
    """
    plan = _plan(x, axis, dtype)
    if plan is None:
        return x.sum(axis=axis, dtype=dtype, keepdims=keepdims)
    kept, outer, run = plan
    if dtype is not None and numpy.dtype(dtype) != x.dtype:
        # NumPy 1 casts into its buffers in iteration order, then adds as above; astype keeps
        # the axes' memory order, so the cast copy is walked the same way.
        x = x.astype(dtype)
    return _chunked_sum(x, kept, outer, run, keepdims)


def mean_in_numpy1_order(
    x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False
) -> Any:
    """``x.mean(axis, dtype, keepdims=keepdims)`` with its sum in NumPy 1.26's order.

    As ``numpy.mean``: the sum (float16 input summed in float32 unless ``dtype`` says
    otherwise), divided by the count in the sum's dtype, float16 input cast back.

    Args:
        x: A NumPy or CuPy array.
        axis: None (all axes), an int, or a tuple of ints.
        dtype: The dtype to sum and divide in, as in ``numpy.mean``.
        keepdims: Keep the reduced axes with length one.

    Returns:
        What ``xp.mean`` returns; the plain ``xp.mean`` wherever :func:`sum_in_numpy1_order`
        would be the plain sum.
    """
    if _plan(x, axis, dtype) is None:
        return x.mean(axis=axis, dtype=dtype, keepdims=keepdims)
    narrow = dtype is None and x.dtype == numpy.float16
    total = numpy.asarray(sum_in_numpy1_order(
        x, axis, numpy.float32 if narrow else dtype, keepdims))
    total = numpy.true_divide(total, _count(x, axis), out=total, casting="unsafe")
    if narrow:
        total = total.astype(numpy.float16)
    return total[()] if total.ndim == 0 else total


def var_in_numpy1_order(
    x: Any, axis: Any = None, dtype: Any = None, ddof: int = 0, keepdims: bool = False
) -> Any:
    """``x.var(axis, dtype, ddof=ddof, keepdims=keepdims)`` with both sums in NumPy 1.26's order.

    As ``numpy.var``: the mean (in ``dtype``; float16 stays float16 here, unlike ``mean``) is
    taken from x, the squared deviations are summed and divided by ``count - ddof``.

    Args:
        x: A NumPy or CuPy array.
        axis: None (all axes), an int, or a tuple of ints.
        dtype: The dtype to sum and divide in, as in ``numpy.var``.
        ddof: Subtracted from the count in the final division.
        keepdims: Keep the reduced axes with length one.

    Returns:
        What ``xp.var`` returns; the plain ``xp.var`` wherever :func:`sum_in_numpy1_order`
        would be the plain sum.
    """
    if _plan(x, axis, dtype) is None:
        return x.var(axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    count = _count(x, axis)
    mean = numpy.asarray(sum_in_numpy1_order(x, axis, dtype, keepdims=True))
    mean = numpy.true_divide(mean, count, out=mean, casting="unsafe")
    # x - mean takes x's memory order, so the second sum walks it as NumPy 1 walked it.
    deviation = numpy.asarray(x - mean)
    deviation = numpy.multiply(deviation, deviation, out=deviation)
    total = numpy.asarray(sum_in_numpy1_order(deviation, axis, dtype, keepdims))
    total = numpy.true_divide(total, numpy.maximum(count - ddof, 0), out=total, casting="unsafe")
    return total[()] if total.ndim == 0 else total


def _count(x: numpy.ndarray, axis: Any) -> numpy.intp:
    """The number of elements reduced, as an intp scalar, which numpy.mean divides by.

    Being a NumPy scalar, it makes the division run in float64 and round once to the result
    dtype: the correctly rounded quotient, which is also what NumPy 1 gave whatever precision
    its value-based casting picked (a count a float16 cannot hold exactly must not be rounded
    to float16 first).
    """
    if axis is None:
        return numpy.intp(x.size)
    axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
    return numpy.intp(_size(x, [int(a) % x.ndim for a in axes]))


def _plan(x: Any, axis: Any, dtype: Any) -> tuple[list[int], list[int], list[int]] | None:
    """Returns (kept, outer reduced, inner run) axes when NumPy 1's order differs, else None."""
    if type(x) is not numpy.ndarray or x.size <= CHUNK or x.dtype not in _FLOATS:
        return None  # no run longer than a piece: NumPy 1 and 2 agree
    if dtype is not None and numpy.dtype(dtype) not in _FLOATS:
        return None
    ndim = x.ndim
    if axis is None:
        reduced = set(range(ndim))
    else:
        axes = (axis,) if isinstance(axis, (int, numpy.integer)) else axis
        # Anything numpy would reject is left for numpy.sum to reject in its own words.
        if not isinstance(axes, tuple) or not all(
                isinstance(a, (int, numpy.integer)) and not isinstance(a, bool)
                and -ndim <= a < ndim for a in axes):
            return None
        reduced = {int(a) % ndim for a in axes}
        if len(reduced) != len(axes):
            return None
    # Length-one axes take no part in the iteration.
    live = [a for a in range(ndim) if x.shape[a] > 1]
    if not live or x.size == 0:
        return None
    if all(x.strides[a] for a in live):
        # The iterator walks axes from the largest stride outwards to the smallest innermost.
        order = sorted(live, key=lambda a: -abs(x.strides[a]))
    else:
        # A broadcast (zero-stride) axis gives the iterator no stride to order it by, and it
        # keeps the axes in index order, which is also the order of the other axes when their
        # strides fall from first to last (NOTE [NumPy 1 sum order]). Other layouts mixed
        # with zero strides are not established: numpy.sum.
        strides = [x.strides[a] for a in live if x.strides[a]]
        if any(s <= t for s, t in zip(strides, strides[1:])) or any(s < 0 for s in strides):
            return None
        order = live
    run: list[int] = []
    for a in reversed(order):
        if a not in reduced:
            break
        run.insert(0, a)
    length = 1
    for a in run:
        length *= x.shape[a]
    if length <= CHUNK:
        return None
    # Length-one reduced axes go first: they only need to be somewhere in the transpose.
    outer = [a for a in sorted(reduced) if a not in live]
    outer += [a for a in order if a in reduced and a not in run]
    kept = [a for a in range(ndim) if a not in reduced]
    return kept, outer, run


def _chunked_sum(
    x: numpy.ndarray, kept: list[int], outer: list[int], run: list[int], keepdims: bool
) -> Any:
    kept_shape = [x.shape[a] for a in kept]
    kept_size = 1
    for n in kept_shape:
        kept_size *= n
    rows = x.transpose(kept + outer + run).reshape(kept_size, -1, _size(x, run))
    if x.dtype == numpy.float16:
        # Half sums accumulate in float32 within one inner call; the conversion is exact.
        rows = rows.astype(numpy.float32)
    # One column per inner call of NumPy 1, in the order it made them: whole chunks, then the
    # remainder of each run. Each numpy call below adds single rows of at most CHUNK elements,
    # which NumPy 2 does pairwise exactly as NumPy 1 did.
    full_chunks, remainder = divmod(rows.shape[2], CHUNK)
    head = rows[:, :, :full_chunks * CHUNK]
    columns = head.reshape(kept_size, rows.shape[1], full_chunks, CHUNK).sum(axis=3)
    if remainder:
        tail = rows[:, :, full_chunks * CHUNK:].sum(axis=2)
        columns = numpy.concatenate([columns, tail[:, :, None]], axis=2)
    stacked = columns.reshape(kept_size, -1)
    if x.dtype == numpy.float16:
        total = numpy.zeros(kept_size, numpy.float16)
        for column in stacked.T:
            total = (total.astype(numpy.float32) + column).astype(numpy.float16)
    else:
        # add.accumulate adds strictly left to right; the leading zero is NumPy's identity.
        with_identity = numpy.concatenate(
            [numpy.zeros((kept_size, 1), x.dtype), stacked], axis=1)
        total = numpy.add.accumulate(with_identity, axis=1)[:, -1]
    if keepdims:
        shape = [1 if a not in kept else x.shape[a] for a in range(x.ndim)]
    else:
        shape = kept_shape
    result = total.reshape(shape)
    return result[()] if result.ndim == 0 else result


def _size(x: numpy.ndarray, axes: list[int]) -> int:
    size = 1
    for a in axes:
        size *= x.shape[a]
    return size
