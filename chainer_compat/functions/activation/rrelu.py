"""``rrelu``: the randomized leaky ReLU, whose negative-side slopes are drawn uniformly in
training and fixed to their mean otherwise.

Layer 5: imports backend, configuration, utils, variable, function_node, type_check and
``functions.noise.dropout`` (the fixed-factor product its gradient is). Slopes come from the
array module's global RNG.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.configuration import config
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import _select, argument, type_check


class RReLU(FunctionNode):
    """Randomized leaky ReLU. Use :func:`rrelu`.

    Args:
        lower: Lower bound of the slopes, in ``[0, 1)``.
        upper: Upper bound of the slopes, in ``[0, 1)`` and above ``lower``.
        r: Slopes to use instead of random ones (in training mode), or None; the slopes used
            are stored here.
    """

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, r: Any = None) -> None:
        # compat: Chainer's wording for the three range errors.
        if not 0.0 <= lower < 1.0:
            raise ValueError("lower must be in the range [0, 1)")
        if not 0.0 <= upper < 1.0:
            raise ValueError("upper must be in the range [0, 1)")
        if not lower < upper:
            raise ValueError("lower must be less than upper")
        self.lower = lower
        self.upper = upper
        self.r = r

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() == 1)
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == "f")
        if self.r is not None:
            type_check.expect(
                x_type.dtype == self.r.dtype,
                x_type.shape == self.r.shape,
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        if not config.train:
            # compat: outside training the given slopes are replaced by their expectation.
            self.r = xp.full(x.shape, (self.lower + self.upper) / 2, dtype=x.dtype)
        elif self.r is None:
            self.r = xp.random.uniform(self.lower, self.upper, x.shape).astype(
                x.dtype, copy=False)
        self.retain_outputs((0,))
        return utils.force_array(_select.where(x >= 0, x, x * self.r), x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        return _RReLUGrad(y.array, self.r).apply(grad_outputs)


class _RReLUGrad(FunctionNode):
    """``gy`` where the output ``y >= 0``, ``gy * r`` elsewhere: the gradient of
    :class:`RReLU`, and its own gradient (it is linear in ``gy``)."""

    def __init__(self, y: Any, r: Any) -> None:
        self.y = y
        self.r = r

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        # compat: decided by the output, as in Chainer (a product that underflows to -0.0
        # passes gy unscaled).
        return utils.force_array(_select.where(self.y >= 0, gy, gy * self.r)),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _RReLUGrad(self.y, self.r).apply(grad_outputs)


def rrelu(x: Any, l: float = 1.0 / 8, u: float = 1.0 / 3, **kwargs: Any) -> Any:  # noqa: E741
    """rrelu(x, l=1. / 8, u=1. / 3, *, r=None, return_r=False)

    Randomized leaky ReLU: ``x`` where ``x >= 0``, else ``r * x``. In training mode
    (``chainer.config.train``) each element's slope ``r`` is drawn uniformly from ``[l, u]``
    (or taken from ``r``); otherwise every slope is ``(l + u) / 2``.

    Args:
        x: Float input.
        l: Lower bound of the slopes, in ``[0, 1)``.
        u: Upper bound of the slopes, in ``[0, 1)``, above ``l``.
        **kwargs: ``r``: slopes of ``x``'s shape and dtype to reuse in training mode;
            ``return_r``: also return the slopes used.

    Returns:
        The output Variable, or ``(output, r)`` with ``return_r``.

    Raises:
        ValueError: On bounds out of range, or on the ``train`` argument (use
            ``chainer.using_config('train', ...)``).
        TypeError: On another unknown keyword.

    Compat:
        Chainer's ``return_r`` defaults to ``r`` itself (so passing a multi-element ``r``
        without ``return_r`` fails there); here it defaults to False.

    See: `Empirical Evaluation of Rectified Activations in Convolutional Network
    <https://arxiv.org/abs/1505.00853>`_
    """
    r, return_r = argument.parse_kwargs(
        kwargs, ("r", None), ("return_r", False),
        train="train argument is not supported anymore. Use chainer.using_config")
    node = RReLU(l, u, r)
    out: variable.Variable = node.apply((x,))[0]
    if return_r:
        return out, node.r
    return out
