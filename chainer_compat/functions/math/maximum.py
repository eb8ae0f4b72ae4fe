"""``maximum``: the differentiable elementwise maximum of two inputs, with broadcasting.

Layer 5: imports the core; the gradient nodes import broadcast_to and where when differentiated.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.where import where
from chainer_compat.utils import _select, type_check


class _ElementwisePick(FunctionNode):
    """Picks one of two broadcast inputs per element; ``Maximum`` and ``Minimum`` set the rule.

    A subclass sets ``_pick`` (the array-module function's name) and ``_grad`` (its gradient
    node, which sends ties' gradients to ``x1``).
    """

    _pick: str
    _grad: type[_ElementwisePickGrad]

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x1", "x2"))
        type_check.expect(in_types[0].dtype.kind == "f",
                          in_types[0].dtype == in_types[1].dtype)
        type_check.expect_broadcast_shapes(in_types[0].shape, in_types[1].shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        xp = backend.get_array_module(x1, x2)
        return utils.force_array(getattr(xp, self._pick)(x1, x2)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x1, x2 = self.get_retained_inputs()
        grads = self._grad(x1.array, x2.array).apply(grad_outputs)
        return tuple(grads[index] for index in indexes)


class _ElementwisePickGrad(FunctionNode):
    """From ``gy``: the gradients of an :class:`_ElementwisePick` for ``x1`` and ``x2``.

    A subclass sets ``_masks``, which gives where each input was picked, and ``_split``,
    which routes ``gy`` by those masks as Chainer's node for it does.
    """

    def __init__(self, x1: Any, x2: Any) -> None:
        self.to_first, self.to_second = self._masks(x1, x2)
        self.x1_shape, self.x2_shape = x1.shape, x2.shape

    def _masks(self, x1: Any, x2: Any) -> tuple[Any, Any]:
        raise NotImplementedError(f"{type(self).__name__} must implement _masks(x1, x2)")

    def _split(self, gy: Any) -> tuple[Any, Any]:
        raise NotImplementedError(f"{type(self).__name__} must implement _split(gy)")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gx1, gx2 = self._split(inputs[0])
        return (utils.force_array(utils.sum_to(gx1, self.x1_shape)),
                utils.force_array(utils.sum_to(gx2, self.x2_shape)))

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        shape = self.to_first.shape
        # Each element of gy went to one input; a missing gradient (None) is zero there.
        branches = []
        for g in grad_outputs:
            if g is None:
                xp = backend.get_array_module(self.to_first)
                dtype = next(o for o in grad_outputs if o is not None).dtype
                branches.append(xp.zeros(shape, dtype))
            else:
                branches.append(broadcast_to(g, shape))
        return where(utils.force_array(self.to_first), *branches),


class MaximumGrad(_ElementwisePickGrad):
    """The gradients of :class:`Maximum`: ``gy`` to ``x1`` where ``x1 >= x2``, else to
    ``x2``."""

    def _masks(self, x1: Any, x2: Any) -> tuple[Any, Any]:
        to_first = x1 >= x2
        return to_first, ~to_first

    def _split(self, gy: Any) -> tuple[Any, Any]:
        return _select.select(self.to_first, gy), _select.select(~self.to_first, gy)


class Maximum(_ElementwisePick):
    """Elementwise maximum; on ties the gradient goes to ``x1``."""

    _pick = "maximum"
    _grad = MaximumGrad


def maximum(x1: Any, x2: Any) -> variable.Variable:
    """Elementwise maximum of two inputs.

    Args:
        x1: First input (float Variable or array).
        x2: Second input, of the same dtype and broadcastable with ``x1``.

    Returns:
        The output Variable.
    """
    y, = Maximum().apply((x1, x2))
    return y
