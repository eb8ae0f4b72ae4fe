"""``LayerNormalization``: normalizes each sample over its features, then scales by ``gamma``
and shifts by ``beta``, with the feature size inferable from the first input.

Layer 8: imports functions, link, utils and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import link, utils, variable
from chainer_compat.functions.normalization.layer_normalization import layer_normalization

__all__ = ["LayerNormalization"]


class LayerNormalization(link.Link):
    """Layer normalization of a ``(batch, size)`` input.

    Args:
        size: Number of features, or None to infer it from the first input.
        eps: Added to the variance for numerical stability.
        initial_gamma: Initializer of ``gamma``; None means ones.
        initial_beta: Initializer of ``beta``; None means zeros.

    Attributes:
        gamma: The scale parameter, of shape ``(size,)``.
        beta: The shift parameter, of shape ``(size,)``.
        eps: The value given at construction.
    """

    gamma: variable.Parameter
    beta: variable.Parameter

    def __init__(self, size: int | None = None, eps: float = 1e-6, initial_gamma: Any = None,
                 initial_beta: Any = None) -> None:
        super().__init__()
        if initial_gamma is None:
            initial_gamma = 1
        if initial_beta is None:
            initial_beta = 0
        with self.init_scope():
            self.gamma = variable.Parameter(initial_gamma)
            self.beta = variable.Parameter(initial_beta)
            self.eps = eps
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, size: int) -> None:
        self.gamma.initialize(size)
        self.beta.initialize(size)

    def forward(self, x: Any) -> variable.Variable:
        """Returns the normalized, scaled and shifted ``x``, of the same shape.

        On the first call of a link built without ``size``, ``gamma`` and ``beta`` are
        created with the size of ``x.shape[1:]``.
        """
        if self.gamma.array is None or self.beta.array is None:
            size = utils.size_of_shape(x.shape[1:])
            # An array initializer makes its parameter ready at once; create only the other.
            for param in (self.gamma, self.beta):
                if param.array is None:
                    param.initialize(size)
        return layer_normalization(x, self.gamma, self.beta, self.eps)
