"""``GroupNormalization``: normalizes channel groups of each sample, then scales and shifts
each channel with learned ``gamma`` and ``beta``; the channel count may be inferred.

Layer 8: imports configuration, functions, initializers, link and variable.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import configuration, initializers, link, variable
from chainer_compat.functions.normalization.group_normalization import group_normalization

__all__ = ["GroupNormalization"]


class GroupNormalization(link.Link):
    """Group normalization layer.

    Args:
        groups: Number of channel groups; must divide the channel count.
        size: Number of channels, or None to infer it from the first input.
        eps: Added to the variance.
        initial_gamma: Initializer of ``gamma`` (None: ones).
        initial_beta: Initializer of ``beta`` (None: zeros).

    Attributes:
        groups: As given.
        gamma: The scale Parameter, of shape ``(size,)``.
        beta: The shift Parameter, of shape ``(size,)``.
        eps: As given.

    See: `Group Normalization <https://arxiv.org/abs/1803.08494>`_
    """

    gamma: variable.Parameter
    beta: variable.Parameter

    def __init__(self, groups: int, size: int | None = None, eps: float = 1e-5,
                 initial_gamma: Any = None, initial_beta: Any = None) -> None:
        super().__init__()
        dtype = configuration.get_dtype(map_mixed16=numpy.float32)  # float32 under mixed16
        gamma_initializer = initializers._get_initializer(
            1 if initial_gamma is None else initial_gamma)
        beta_initializer = initializers._get_initializer(
            0 if initial_beta is None else initial_beta)
        # compat: Chainer sets the parameter dtype on the initializers it was given.
        gamma_initializer.dtype = dtype
        beta_initializer.dtype = dtype
        with self.init_scope():
            self.groups = groups
            self.gamma = variable.Parameter(gamma_initializer)
            self.beta = variable.Parameter(beta_initializer)
            self.eps = eps
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, size: int) -> None:
        self.gamma.initialize(size)
        self.beta.initialize(size)

    def forward(self, x: Any) -> variable.Variable:
        """Returns the group-normalized, scaled and shifted ``x`` of shape ``(N, C, ...)``.

        Raises:
            ValueError: If the parameters are not yet created and ``x`` has fewer than two
                axes.
        """
        if self.gamma.array is None:
            if x.ndim < 2:
                # compat: Chainer's wording.
                raise ValueError(
                    "Input dimension must be at least 2, including batch size dimension "
                    "(first dimension).")
            self._initialize_params(x.shape[1])
        return group_normalization(x, self.groups, self.gamma, self.beta, self.eps)
