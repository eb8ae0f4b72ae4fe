"""NumPy's summation orders written out, for tests that pin results to the bit: the pairwise
sum of a contiguous run, NumPy 1.26's chunked sum of runs longer than 8,192 elements (NOTE
[NumPy 1 sum order] in chainer_compat/utils/_reduction_order.py) and its matmul loop for
operands it does not hand to BLAS (NOTE [NumPy 1 matmul dispatch] in
chainer_compat/utils/_matmul_order.py). NumPy only, so the conformance tests that use it run on
Chainer too."""

from __future__ import annotations

import numpy

CHUNK = 8192


def pairwise(rows: numpy.ndarray) -> numpy.ndarray:
    """NumPy's pairwise sum of each row of ``rows``, one rounding per addition in its dtype.

    Under 8 elements: added in turn from -0.0; up to 128: eight interleaved partial sums
    combined as a tree, then the leftovers in turn; longer: split at half rounded down to a
    multiple of 8, both halves summed this way and added.
    """
    n = rows.shape[1]
    if n < 8:
        total = numpy.full(rows.shape[0], -0.0, rows.dtype)
        for i in range(n):
            total = total + rows[:, i]
        return total
    if n <= 128:
        partial = rows[:, 0:8].copy()
        stop = n - n % 8
        for i in range(8, stop, 8):
            partial = partial + rows[:, i:i + 8]
        p = [partial[:, j] for j in range(8)]
        total = ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]))
        for i in range(stop, n):
            total = total + rows[:, i]
        return total
    half = n // 2
    half -= half % 8
    return pairwise(rows[:, :half]) + pairwise(rows[:, half:])


def numpy1_sum_of_runs(runs: numpy.ndarray) -> numpy.ndarray:
    """``runs`` of shape (outputs, runs per output, run length): each output adds, from zero,
    the pairwise sums of the CHUNK-element pieces of its runs, run after run (float16 pieces
    summed in float32 and the total rounded to float16 after each)."""
    half = runs.dtype == numpy.float16
    work = runs.astype(numpy.float32) if half else runs
    total = numpy.zeros(runs.shape[0], runs.dtype)
    for r in range(runs.shape[1]):
        for start in range(0, runs.shape[2], CHUNK):
            piece = pairwise(numpy.ascontiguousarray(work[:, r, start:start + CHUNK]))
            if half:
                total = (total.astype(numpy.float32) + piece).astype(numpy.float16)
            else:
                total = total + piece
    return total


def float32_run_sum(values) -> numpy.float32:
    """The float32 pairwise sum of one contiguous run (float16 values are widened first), as
    NumPy's float16 sum adds each run."""
    return pairwise(numpy.asarray(values, numpy.float32)[None, :])[0]


def float16_sum_of_runs(runs: numpy.ndarray) -> numpy.ndarray:
    """NumPy's float16 sum of a C-contiguous ``(samples, entries, run)`` array over its first
    and last axes: each run summed in float32, added to its entry's float16 total in turn."""
    totals = numpy.zeros(runs.shape[1], numpy.float16)
    for entry in range(runs.shape[1]):
        total = numpy.float16(0)
        for sample in range(runs.shape[0]):
            total = numpy.float16(numpy.float32(total) + float32_run_sum(runs[sample, entry]))
        totals[entry] = total
    return totals


def plain_loop_matmul(a: numpy.ndarray, b: numpy.ndarray) -> numpy.ndarray:
    """``a @ b`` as NumPy 1.26's matmul loop computes it where it does not call BLAS: each
    element's products added one at a time over the contraction index, in the dtype (float16
    in float32, rounded once). 1-d operands and stacks broadcast as in ``matmul``."""
    vector_a, vector_b = a.ndim == 1, b.ndim == 1
    a = a[None, :] if vector_a else a
    b = b[:, None] if vector_b else b
    work = numpy.float32 if a.dtype == numpy.float16 else a.dtype.type
    stack = numpy.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = numpy.broadcast_to(a, stack + a.shape[-2:])
    b = numpy.broadcast_to(b, stack + b.shape[-2:])
    out = numpy.empty(stack + (a.shape[-2], b.shape[-1]), a.dtype)
    for index in numpy.ndindex(out.shape):
        *batch, row, column = index
        total = work(0)
        for inner in range(a.shape[-1]):
            total = work(total + work(a[(*batch, row, inner)]) * work(b[(*batch, inner, column)]))
        out[index] = total
    if vector_a:
        out = out[..., 0, :]
    if vector_b:
        out = out[..., 0]
    return out
