"""``dropout``: zeroes random elements in training mode and rescales the rest.

Layer 5: imports backend, configuration, utils, variable, function_node and type_check. Masks
come from the array module's global RNG (``numpy.random`` or ``cupy.random``), so seeding it
(e.g. ``chainer.testing.fix_random``) makes dropout reproducible.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.configuration import config
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class Dropout(FunctionNode):
    """Dropout with a fixed mask per application. Use :func:`dropout`.

    Args:
        dropout_ratio: Probability of dropping an element, in ``[0, 1)``.
        mask: A mask to use instead of a random one (already scaled: 0 or
            ``1 / (1 - ratio)``); the mask drawn in forward is stored here.
        return_mask: Whether :func:`dropout` returns the mask too.
    """

    def __init__(self, dropout_ratio: float, mask: Any = None,
                 return_mask: bool = False) -> None:
        if not 0.0 <= dropout_ratio < 1.0:
            raise ValueError(f"dropout_ratio must be in the range [0, 1), got {dropout_ratio}")
        self.dropout_ratio = dropout_ratio
        self.mask = mask
        self.return_mask = return_mask

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        if self.mask is None:
            xp = backend.get_array_module(x)
            scale = x.dtype.type(1.0 / (1 - self.dropout_ratio))
            if xp is numpy:
                keep = xp.random.rand(*x.shape) >= self.dropout_ratio
            else:
                keep = xp.random.rand(*x.shape, dtype="f") >= self.dropout_ratio
            self.mask = keep * scale
        return utils.force_array(x * self.mask, x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return DropoutGrad(self.mask).apply(grad_outputs)


class DropoutGrad(FunctionNode):
    """Multiplies by a fixed dropout mask: the gradient of :class:`Dropout` (and its own)."""

    def __init__(self, mask: Any) -> None:
        self.mask = mask

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        return utils.force_array(gy * self.mask, gy.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return DropoutGrad(self.mask).apply(grad_outputs)


def dropout(x: Any, ratio: float = 0.5, *, mask: Any = None, return_mask: bool = False,
            **kwargs: Any) -> Any:
    """Drops each element with probability ``ratio`` and scales the rest by
    ``1 / (1 - ratio)``, in training mode (``chainer.config.train``); returns ``x`` otherwise.

    Args:
        x: Float input Variable or array.
        ratio: Dropout ratio, in ``[0, 1)``.
        mask: A mask to reuse instead of drawing one (of ``x``'s shape and dtype, holding 0 or
            ``1 / (1 - ratio)``, on ``x``'s device); ``ratio`` is then ignored.
        return_mask: Also return the mask used.

    Returns:
        The output Variable, or ``(output, mask)`` when ``return_mask`` is true (``mask`` is
        None outside training mode).

    Raises:
        ValueError: On a ratio outside ``[0, 1)`` in training mode, or on the ``train``
            argument, which Chainer v2 replaced by ``chainer.using_config('train', ...)``.
        TypeError: On any other unexpected keyword argument.
    """
    if kwargs:
        if "train" in kwargs:
            # compat: Chainer's exact message.
            raise ValueError(
                "train argument is not supported anymore. Use chainer.using_config")
        names = ", ".join(repr(name) for name in sorted(kwargs))
        raise TypeError(f"dropout() got unexpected keyword argument(s) {names}")
    if config.train:
        func = Dropout(ratio, mask, return_mask)
        out, = func.apply((x,))
        mask = func.mask
    else:
        out = variable.as_variable(x)
        mask = None
    if return_mask:
        return out, mask
    return out
