"""``Linear``: the fully-connected layer ``y = x W^T + b``, whose input size may be inferred
from the first input.

Layer 8: imports functions, utils, variable and the connection links' private helpers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from chainer_compat import utils, variable
from chainer_compat.functions.connection.linear import linear
from chainer_compat.links.connection._weight_link import WeightLink

__all__ = ["Linear"]


class Linear(WeightLink):
    """A fully-connected layer: ``y = x W^T + b`` over the flattened non-batch axes of ``x``.

    ``Linear(out_size)`` (or ``in_size=None``) leaves ``W`` uninitialized until the first call,
    which takes the input size from the input's shape.

    Args:
        in_size: Number of input features, or None to infer it on the first call. When it is the
            only size given, it is the output size and the input size is inferred.
        out_size: Number of output features.
        nobias: If True, the layer has no bias and ``b`` is None.
        initialW: Initializer of ``W`` (shape ``(out_size, in_size)``): an initializer, a
            scalar, an array or None for ``LeCunNormal()``.
        initial_bias: Initializer of ``b`` (shape ``(out_size,)``); None means zeros.

    Attributes:
        W: The weight parameter.
        b: The bias parameter, or None when ``nobias`` is True.
        in_size: The input size given at construction (None when it is inferred).
        out_size: The output size.
    """

    def __init__(self, in_size: int | None, out_size: int | None = None, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__()
        if out_size is None:
            # compat: a lone size is the output size, as in Chainer's Linear(out_size).
            in_size, out_size = None, in_size
        if out_size is None:
            raise TypeError(
                "out_size must be an int, got None; pass Linear(out_size) or "
                "Linear(in_size, out_size)")
        self.in_size = in_size
        self.out_size = out_size
        self._add_weight(initialW, in_size)
        self._add_bias(nobias, initial_bias, out_size)

    def _initialize_params(self, in_size: int) -> None:
        self.W.initialize((self.out_size, in_size))

    @classmethod
    def from_params(cls, W: Any, b: Any = None, nobias: bool = False) -> Linear:
        """Builds a Linear layer whose parameters are copies of the given arrays.

        Args:
            W: Weight of shape ``(out_size, in_size)`` (an array or a Variable).
            b: Bias of ``out_size`` elements, or None for zeros.
            nobias: If True, the new layer has no bias.

        Returns:
            The new layer.

        Raises:
            ValueError: If ``b`` does not have ``out_size`` elements.
        """
        out_size, in_size = W.shape
        if b is not None and b.size != out_size:
            raise ValueError(
                f"b must have out_size = W.shape[0] = {out_size} elements, got {b.size}; "
                "pass a bias with one element per output")
        return cls(in_size, out_size, nobias, initialW=variable.as_array(W),
                   initial_bias=variable.as_array(b))

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        """``in_size``, ``out_size`` and ``nobias``, which ``str(link)`` shows."""
        yield "in_size", self.in_size
        yield "out_size", self.out_size
        yield "nobias", self.b is None

    def forward(self, x: Any, n_batch_axes: int = 1) -> variable.Variable:
        """Applies the layer.

        Args:
            x: Input array or Variable; its first ``n_batch_axes`` axes are batch axes and the
                rest are flattened into the features.
            n_batch_axes: Number of leading batch axes.

        Returns:
            The output, of shape ``x.shape[:n_batch_axes] + (out_size,)``.
        """
        if self.W.array is None:
            self._initialize_params(utils.size_of_shape(x.shape[n_batch_axes:]))
        return linear(x, self.W, self.b, n_batch_axes=n_batch_axes)
