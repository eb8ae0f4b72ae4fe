"""``zoneout``: in training, keeps each element of the previous state ``h`` with probability
``ratio`` and takes the new ``x`` elsewhere; returns ``x`` otherwise.

Layer 5: imports backend, configuration, function_node, type_check, utils.argument and
``functions.noise.dropout``; the backward may use Variable's ``*``. Masks come from the array
module's global RNG.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils
from chainer_compat.configuration import config, thread_flags
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.noise.dropout import DropoutGrad
from chainer_compat.utils import argument, type_check


class Zoneout(FunctionNode):
    """Zoneout with a mask drawn per application. Use :func:`zoneout`.

    Args:
        zoneout_ratio: Probability of keeping the previous value.

    Attributes:
        flag_h: Boolean mask of the elements taken from ``h`` (set by forward).
        flag_x: Boolean mask of the elements taken from ``x``.
    """

    def __init__(self, zoneout_ratio: float) -> None:
        self.zoneout_ratio = zoneout_ratio
        self.flag_h: Any = None
        self.flag_x: Any = None

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() == 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        h, x = inputs
        xp = backend.get_array_module(x)
        self.flag_x = xp.random.rand(*x.shape) >= self.zoneout_ratio
        self.flag_h = ~self.flag_x
        return utils.force_array(h * self.flag_h + x * self.flag_x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = grad_outputs
        masks = {0: self.flag_h, 1: self.flag_x}
        flags = thread_flags.flags
        if flags.enable_backprop or flags.hooks or flags.debug:
            # compat: Chainer multiplies by the mask as a constant operand, a ``_ * _`` node
            # on the mask cast to gy's dtype, and hooks and graphs see that node.
            return tuple(gy * masks[i] for i in indexes)
        # Nothing can see the node (NOTE [operators without a node] in basic_math):
        # DropoutGrad multiplies by the bool mask without its float copy, with the same bits.
        return tuple(DropoutGrad(masks[i]).apply(grad_outputs)[0] for i in indexes)


def zoneout(h: Any, x: Any, ratio: float = 0.5, **kwargs: Any) -> Any:
    """Zoneout: each element keeps its previous value from ``h`` with probability ``ratio``
    and takes the new value from ``x`` otherwise, in training mode; ``x`` is returned
    unchanged outside training.

    Args:
        h: Previous state.
        x: New state, of ``h``'s shape.
        ratio: Probability of keeping the previous value.

    Returns:
        The output Variable.

    Raises:
        ValueError: On the ``train`` argument (use ``chainer.using_config('train', ...)``).
        TypeError: On another unknown keyword, or in training if ``h`` or ``x`` is None.

    See: `Zoneout: Regularizing RNNs by Randomly Preserving Hidden Activations
    <https://arxiv.org/abs/1606.01305>`_
    """
    argument.parse_kwargs(
        kwargs, train="train argument is not supported anymore. Use chainer.using_config")
    if config.train:
        for name, value in (("h", h), ("x", x)):
            if value is None:
                # apply() would take None for an optional input and fail inside forward.
                raise TypeError(f"{name} of zoneout must be a Variable or an array, got None")
        return Zoneout(ratio).apply((h, x))[0]
    # compat: Chainer returns x itself (a Variable or an array) outside training.
    return x
