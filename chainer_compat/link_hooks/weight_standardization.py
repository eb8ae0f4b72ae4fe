"""``WeightStandardization``: a link hook that standardizes each output row of a link's weight
to zero mean and unit variance for the length of each forward call.

Layer 8: imports functions, link_hook and the shared ``_weight_swap`` base.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import functions, variable
from chainer_compat.link_hook import _ForwardPreprocessCallbackArgs
from chainer_compat.link_hooks._weight_swap import WeightSwapHook

__all__ = ["WeightStandardization"]


def _standardize_rows(weight: Any, eps: float) -> variable.Variable:
    """``(W - mean) / sqrt(var + eps)`` with the statistics of each ``W[i]`` (biased variance).

    Written with differentiable functions so that gradients of any order reach ``W``.
    """
    rows = functions.reshape(weight, (weight.shape[0], -1))
    mean = functions.mean(rows, axis=1, keepdims=True)
    centered = rows - functions.broadcast_to(mean, rows.shape)
    variance = functions.mean(centered * centered, axis=1, keepdims=True)
    scale = functions.rsqrt(variance + eps)
    return functions.reshape(centered * functions.broadcast_to(scale, rows.shape), weight.shape)


class WeightStandardization(WeightSwapHook):
    """Link hook that replaces a link's weight by its standardized version during each call.

    Every ``W[i]`` (the weights of output unit ``i``, all other axes together) is shifted to zero
    mean and scaled to unit variance, as group normalization with one group would do with
    ``W``'s axis 0 as the batch. Register the hook with ``link.add_hook(WeightStandardization())``;
    it cannot be used as a ``with`` block.

    Args:
        eps: Added to the variance before taking its square root.
        weight_name: Name of the link's weight parameter.
        name: Name to register the hook under; ``'WeightStandardization'`` when None.
    """

    name = "WeightStandardization"

    def __init__(self, *, eps: float = 1e-5, weight_name: str = "W",
                 name: str | None = None) -> None:
        super().__init__(weight_name, name)
        self.eps = eps

    def added(self, link: Any) -> None:
        """Checks that the link has the weight.

        Raises:
            ValueError: If the link has no attribute ``weight_name``.
        """
        self._check_weight_exists(link)
        if getattr(link, self.weight_name).array is not None:
            self._initialized = True

    def forward_preprocess(self, args: _ForwardPreprocessCallbackArgs) -> None:
        link = args.link
        if not self._initialized and getattr(link, self.weight_name).array is None:
            input_variable = args.args[0] if args.args else None
            if input_variable is None:
                raise ValueError("Input variable does not exist!")
            # compat: a lazy weight is sized from the input's axis 1, as in Chainer.
            link._initialize_params(input_variable.shape[1])
        weight = getattr(link, self.weight_name)
        self.original_weight = weight
        setattr(link, self.weight_name, _standardize_rows(weight, self.eps))
