"""Small array helpers shared by the functions: ``force_array``, ``force_type``, ``sum_to``,
``add_at``.

Layer 1: imports only numpy and the backend.
"""

from __future__ import annotations

import collections.abc
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.utils import _scatter
from chainer_compat.utils import argument as argument  # chainer.utils.argument after import
from chainer_compat.utils import array as array
from chainer_compat.utils import cache as cache
from chainer_compat.utils import conv as conv  # chainer.utils.conv after import
from chainer_compat.utils import conv_nd as conv_nd
from chainer_compat.utils import error as error
from chainer_compat.utils import imgproc as imgproc
from chainer_compat.utils import meta as meta
from chainer_compat.utils import precision as precision
from chainer_compat.utils import sparse as sparse
from chainer_compat.utils import walker_alias as walker_alias
from chainer_compat.utils._reduction_order import sum_in_numpy1_order
from chainer_compat.utils._tempdir import tempdir as tempdir
from chainer_compat.utils.conv import get_conv_outsize as get_conv_outsize
from chainer_compat.utils.conv import get_deconv_outsize as get_deconv_outsize
from chainer_compat.utils.error import _format_array_props as _format_array_props
from chainer_compat.utils.experimental import experimental as experimental
from chainer_compat.utils.meta import enable_final as enable_final
from chainer_compat.utils.meta import final as final
from chainer_compat.utils.nondeterministic import nondeterministic as nondeterministic
from chainer_compat.utils.sparse import CooMatrix as CooMatrix
from chainer_compat.utils.sparse import get_order as get_order
from chainer_compat.utils.sparse import to_coo as to_coo
from chainer_compat.utils.walker_alias import WalkerAlias as WalkerAlias

# compat: Chainer kept this alias from its Python 2 days; ChainerCV and other libraries built
# on Chainer still import it (chainer.utils.collections_abc.Sequence).
collections_abc = collections.abc


def force_array(x: Any, dtype: Any = None) -> Any:
    """Returns ``x`` as an array: NumPy ufuncs turn 0-d results into scalars, this undoes it.

    A scalar becomes a 0-d NumPy array (of ``dtype`` when given). Anything else, an array or
    a Variable, is returned as it is, cast to ``dtype`` when given: compat, Chainer's rule, so
    a backward may wrap its Variable gradients in it (``force_array(gy * 2)``) without
    leaving the graph.
    """
    if type(x) is numpy.ndarray or not numpy.isscalar(x):
        if dtype is not None and x is not None and x.dtype != dtype:
            return x.astype(dtype, copy=False)
        return x
    return numpy.asarray(x, dtype=dtype)


def force_type(dtype: Any, value: Any) -> Any:
    """Returns ``value`` cast to ``dtype`` (a scalar becomes ``dtype``'s scalar type)."""
    if numpy.isscalar(value):
        return numpy.dtype(dtype).type(value)
    if value.dtype != dtype:
        return value.astype(dtype, copy=False)
    return value


def sum_to(x: Any, shape: tuple[int, ...]) -> Any:
    """Sums the array ``x`` down to ``shape``: the reverse of broadcasting ``shape`` to x's."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, size in enumerate(shape) if size == 1 and x.shape[lead + i] != 1)
    # compat: summed in NumPy 1's order past 8,192 entries (NOTE [NumPy 1 sum order]).
    y = sum_in_numpy1_order(x, axes, keepdims=True)
    if lead > 0:
        y = y.reshape(y.shape[lead:])
    return force_array(y)


def add_at(target: Any, indices: Any, values: Any) -> None:
    """Adds ``values`` into ``target`` at ``indices`` in place, counting every repeated index.

    ``numpy.add.at``'s sums on NumPy (faster for slices and table rows: NOTE [scatter-adds in
    order]); on CuPy its ``cupy.add.at`` (CuPy 13 and later), else ``cupyx.scatter_add``,
    which CuPy 14 deprecates. CuPy indices must be integer arrays, slices or integers (convert
    boolean masks first).
    """
    if isinstance(target, numpy.ndarray):
        _scatter.add_at_numpy(target, indices, values)
        return
    cupy = backend.get_array_module(target)
    cupy_add_at = getattr(cupy.add, "at", None)
    if cupy_add_at is not None:
        cupy_add_at(target, indices, values)
    else:
        import cupyx

        cupyx.scatter_add(target, indices, values)


def size_of_shape(shape: tuple[int, ...]) -> int:
    """Returns the number of elements of an array of this shape."""
    size = 1
    for dim in shape:
        size *= int(dim)
    return size
