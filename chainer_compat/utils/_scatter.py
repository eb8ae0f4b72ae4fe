"""``add_in_order`` and ``add_at_numpy``: ``numpy.add.at``'s sums (every repeated index counted,
in index order, so the same bits) without its per-entry cost, for the scatters that gradients
of lookups and slices make.

Layer 1: imports backend and ``utils._shapes``.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.utils._shapes import broadcasts_to

# NOTE [scatter-adds in order]
# ``numpy.add.at`` adds entry by entry, in index order: the bits every gradient of a lookup
# (embed_id, get_item, negative sampling) must have, as Chainer's own loops or add.at calls
# give them. But it pays a per-entry cost: a 3,200 x 256 embedding gradient took 7.3 ms in it
# against 2.7 ms in Chainer's Python loop over rows, and NumPy 2's add.at with slices is slower
# than NumPy 1's (16.0 against 12.3 ms on a (64, 32, 32, 32) crop). Two cases cover the
# gradients met in practice, with the same additions in the same order:
# - Basic indexing (slices, integers, None, Ellipsis) reaches each entry once: adding into
#   the view is add.at.
# - Integer rows of a table: ``add_in_order`` groups the entries by row and adds them in
#   passes, the k-th entry of every row in pass k, each pass one fancy assignment. When few
#   rows are left with more entries each than there are such rows (a padding id repeated all
#   over a batch), each of them adds its remaining entries one by one, in place: about 0.35 us
#   a row of 256 float32, where a pass costs its fixed overhead however few rows it adds.
#   (``add.accumulate`` along the first axis, the other sequential form, took ten times as
#   long; a reduction along it is faster still, but its order is NumPy's choice.)
# Anything else goes to add.at itself: boolean masks, several index arrays, values of another
# dtype or sharing memory with the table (add.at reads them as they were before it began),
# and read-only tables or ones whose entries overlap (a zero stride). One difference remains:
# under ``numpy.errstate(...="raise")`` a floating-point error stops the passes part way,
# where add.at finishes every addition before it raises (and names "at", not "add").
_FEW_ROWS = 64


def add_in_order(total: Any, index: Any, terms: Any) -> None:
    """``numpy.add.at(total, index, terms)``: adds row ``terms[e]`` into ``total[index[e]]``
    for each entry ``e`` in order, each addition in the promoted dtype of ``total`` and
    ``terms`` and rounded into ``total``. ``index`` holds integers in ``[0, len(total))``.

    A one-axis NumPy ``total`` is given to ``numpy.add.at``, which does just that (and is
    fastest without a cast). Otherwise the entries are grouped by index (a stable sort) and
    added in passes (NOTE [scatter-adds in order]). (``numpy.add.at`` on a two-axis ``total``
    is several times slower than the passes.)
    """
    xp = backend.get_array_module(total)
    entries = int(index.size)
    if entries == 0:
        return
    if xp is numpy and total.ndim == 1:
        numpy.add.at(total, index, terms)
        return
    order = _stable_order(index, total.shape[0])
    grouped = index[order]
    starts = xp.nonzero(xp.concatenate([xp.ones(1, dtype=bool),
                                        grouped[1:] != grouped[:-1]]))[0]
    sizes = xp.diff(xp.concatenate([starts, xp.full(1, entries, dtype=starts.dtype)]))
    # Largest groups first, so that the groups still adding at pass k are a prefix.
    by_size = _stable_order(sizes.max() - sizes, int(sizes.max()) + 1)
    starts = starts[by_size]
    # active[k]: how many groups have more than k entries (read to the host once).
    active = (starts.size - xp.cumsum(xp.bincount(sizes))).tolist()
    passes = len(active) - 1
    # In place, each addition rounds into total's dtype as add.at's: so only for one dtype.
    one_by_one = xp is numpy and terms.dtype == total.dtype
    for rank, count in enumerate(active[:-1]):
        if one_by_one and count < _FEW_ROWS and passes - rank > count:
            _add_rest_one_by_one(total, index, terms, order, starts[:count], sizes[by_size],
                                 rank)
            return
        chosen = order[starts[:count] + rank]
        destination = index[chosen]
        total[destination] = total[destination] + terms[chosen]


def _add_rest_one_by_one(total: Any, index: Any, terms: Any, order: Any, starts: Any,
                         sizes: Any, done: int) -> None:
    """Adds to each group's row its entries from the ``done``-th on, one at a time in place
    (NOTE [scatter-adds in order]); ``sizes`` are the groups' entry counts in the order of
    ``starts``."""
    for start, size in zip(starts.tolist(), sizes.tolist()):
        entries = order[start + done:start + size]
        row = total[int(index[entries[0]])]  # a view
        for term in terms[entries]:
            row += term


def _stable_order(keys: Any, limit: int) -> Any:
    """The permutation that sorts non-negative integer ``keys`` (all below ``limit``)
    stably."""
    xp = backend.get_array_module(keys)
    size = int(keys.size)
    if size < 2 or bool((keys[1:] >= keys[:-1]).all()):
        return xp.arange(size)
    if xp is not numpy:
        # Distinct keys, so any sort is stable.
        return xp.argsort(keys * size + xp.arange(size))
    # Least significant 16 bits first: NumPy sorts 16-bit keys stably by radix, in linear
    # time.
    order = numpy.arange(size)
    shift = 0
    while shift == 0 or (limit - 1) >> shift:
        digit = ((keys[order] >> shift) & 0xFFFF).astype(numpy.uint16)
        order = order[numpy.argsort(digit, kind="stable")]
        shift += 16
    return order


def add_at_numpy(target: numpy.ndarray[Any, Any], indices: Any, values: Any) -> None:
    """``numpy.add.at(target, indices, values)``, the same sums, faster for basic indexing and
    for integer rows of a table (NOTE [scatter-adds in order])."""
    if (type(values) is numpy.ndarray and values.dtype == target.dtype
            and target.flags.writeable and 0 not in target.strides
            and not numpy.may_share_memory(values, target)):
        view = _basic_view(target, indices)
        if view is not None and broadcasts_to(values.shape, view.shape):
            numpy.add(view, values, out=view)
            return
        rows = _table_rows(target, indices)
        if rows is not None:
            row_shape = target.shape[1:]
            if broadcasts_to(values.shape, rows.shape + row_shape):
                terms = numpy.broadcast_to(values, rows.shape + row_shape)
                add_in_order(target, rows.reshape(-1), terms.reshape((rows.size,) + row_shape))
                return
    numpy.add.at(target, indices, values)


def _is_basic(index: Any) -> bool:
    if index is None or index is Ellipsis or type(index) is slice:
        return True
    return isinstance(index, (int, numpy.integer)) and not isinstance(index, (bool, numpy.bool_))


def _basic_view(target: numpy.ndarray[Any, Any], indices: Any) -> Any:
    """``target[indices]`` if that is basic indexing and gives a view, else None."""
    parts = indices if type(indices) is tuple else (indices,)
    if not all(_is_basic(part) for part in parts):
        return None
    try:
        view = target[indices]
    except IndexError:
        return None  # add.at raises its own error
    return view if type(view) is numpy.ndarray else None  # integers alone give a scalar


def _table_rows(target: numpy.ndarray[Any, Any], indices: Any) -> Any:
    """The rows of a table ``target`` (two axes or more) that one integer array indexes on
    its first axis, negative ones wrapped; None for any other index or one out of range."""
    if type(indices) is tuple:
        if len(indices) != 1:
            return None
        indices = indices[0]
    if (type(indices) is not numpy.ndarray or indices.dtype.kind not in "iu"
            or indices.ndim == 0 or target.ndim < 2):
        return None
    length = target.shape[0]
    if indices.size and (indices.min() < -length or indices.max() >= length):
        return None  # add.at raises its own IndexError
    rows = indices.astype(numpy.intp, copy=False)
    return numpy.where(rows < 0, rows + length, rows)
