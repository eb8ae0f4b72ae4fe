"""``SimplifiedDropconnect``: a fully connected layer whose weights are randomly dropped (per
sample by default) while training.

Layer 8: imports functions, initializers, link and variable.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import initializers, link, variable
from chainer_compat.functions.noise.simplified_dropconnect import simplified_dropconnect

__all__ = ["SimplifiedDropconnect"]


class SimplifiedDropconnect(link.Link):
    """Fully connected layer with simplified dropconnect.

    Args:
        in_size: Input size, or None to infer it from the first input.
        out_size: Output size.
        ratio: Probability of dropping each weight.
        nobias: Leave out the bias.
        initialW: Initializer of ``W`` (None: ``HeNormal(1 / sqrt(2))``).
        initial_bias: Initializer of ``b`` (None: zeros).

    Attributes:
        W: The weight Parameter, of shape ``(out_size, in_size)``.
        b: The bias Parameter, of shape ``(out_size,)``, or None with ``nobias``.
        out_size: As given.
        ratio: As given.
    """

    W: variable.Parameter
    b: variable.Parameter | None

    def __init__(self, in_size: int | None, out_size: int, ratio: float = 0.5,
                 nobias: bool = False, initialW: Any = None,  # noqa: N803
                 initial_bias: Any = None) -> None:
        super().__init__()
        self.out_size = out_size
        self.ratio = ratio
        if initialW is None:
            initialW = initializers.HeNormal(1.0 / numpy.sqrt(2))
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW))
            if in_size is not None:
                self._initialize_params(in_size)
            if nobias:
                self.b = None
            else:
                if initial_bias is None:
                    initial_bias = initializers.Constant(0)
                self.b = variable.Parameter(
                    initializers._get_initializer(initial_bias), out_size)

    def _initialize_params(self, in_size: int) -> None:
        self.W.initialize((self.out_size, in_size))

    def forward(self, x: Any, train: bool = True, mask: Any = None,
                use_batchwise_mask: bool = True) -> variable.Variable:
        """Applies the layer to ``x`` of shape ``(n, ...)``.

        Args:
            x: Input; the axes after the first flatten to ``in_size``.
            train: Drop weights (with False, a plain linear layer unless ``mask`` is given).
            mask: A mask to use instead of a random one: ``(n, out_size, in_size)`` or
                ``(out_size, in_size)``, matching ``use_batchwise_mask``. The first mask
                given is kept as the persistent ``mask``.
            use_batchwise_mask: Draw a separate mask for each sample.

        Returns:
            A Variable of shape ``(n, out_size)``.
        """
        if self.W.array is None:
            self._initialize_params(x.size // len(x))
        if mask is not None and "mask" not in self.__dict__:
            # compat: Chainer registers the first mask given as a persistent value.
            self.add_persistent("mask", mask)
        return simplified_dropconnect(x, self.W, self.b, self.ratio, train, mask,
                                      use_batchwise_mask)
