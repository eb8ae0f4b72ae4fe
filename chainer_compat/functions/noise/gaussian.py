"""``gaussian``: a differentiable sample from ``N(mean, exp(ln_var))`` (reparameterization).

Layer 5: imports backend, utils, variable, function_node and type_check. The noise comes from
the array module's global RNG.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import argument, type_check


class Gaussian(FunctionNode):
    """Draws ``mean + exp(ln_var / 2) * eps`` with ``eps ~ N(0, 1)``. Use :func:`gaussian`.

    Args:
        eps: The standard-normal noise to use; None draws it in the first forward and keeps it
            (in ``self.eps``) for later ones.
    """

    def __init__(self, eps: Any = None) -> None:
        self.eps = eps

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("mean", "ln_var"))
        mean_type, ln_var_type = in_types
        type_check.expect(
            mean_type.dtype.kind == "f",
            mean_type.dtype == ln_var_type.dtype,
            mean_type.shape == ln_var_type.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((1,))
        mean, ln_var = inputs
        xp = backend.get_array_module(mean)
        if self.eps is None:
            if xp is numpy:
                self.eps = numpy.random.standard_normal(ln_var.shape).astype(mean.dtype)
            else:
                # CuPy draws normals in float32 or float64 only.
                draw_dtype = numpy.promote_types(mean.dtype, numpy.float32)
                self.eps = xp.random.standard_normal(ln_var.shape, dtype=draw_dtype).astype(
                    mean.dtype, copy=False)
        self.noise = xp.exp(ln_var * mean.dtype.type(0.5)) * self.eps
        return utils.force_array(mean + self.noise, mean.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer_compat.functions.math.exponential import exp

        ln_var, = self.get_retained_inputs()
        gy, = grad_outputs
        grads = []
        for i in indexes:
            if i == 0:
                grads.append(gy)
            else:
                # compat: the noise term first, in Chainer's order, for its rounding (NOTE
                # [Chainer's rounding] in functions/loss/softmax_cross_entropy.py).
                noise = exp(ln_var * 0.5) * self.eps
                grads.append(gy * noise * 0.5)
        return tuple(grads)


def gaussian(mean: Any, ln_var: Any, **kwargs: Any) -> Any:
    """gaussian(mean, ln_var, *, eps=None, return_eps=False)

    Samples from the Gaussian ``N(mean, exp(ln_var))``, differentiably in both arguments.

    Args:
        mean: The mean ``mu``.
        ln_var: The log variance ``log(sigma ** 2)``, of ``mean``'s shape and dtype.
        **kwargs: ``eps``: standard-normal noise to reuse (of ``ln_var``'s shape and dtype,
            on its device), None (the default) to draw new noise; ``return_eps``: also return
            the noise used (False).

    Returns:
        The sample Variable, or ``(sample, eps)`` when ``return_eps`` is true.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On non-float or mismatched inputs.
        TypeError: On an unknown keyword argument (in Chainer's wording).
    """
    # compat: keywords read as Chainer reads them, so an unknown one gets its message.
    eps, return_eps = argument.parse_kwargs(kwargs, ("eps", None), ("return_eps", False))
    func = Gaussian(eps)
    out, = func.apply((mean, ln_var))
    if return_eps:
        return out, func.eps
    return out
