"""``EmbedID``: a lookup table that maps integer IDs to learned vectors.

Layer 8: imports functions, initializers, link and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import initializers, link, variable
from chainer_compat.functions.connection.embed_id import embed_id

__all__ = ["EmbedID"]


class EmbedID(link.Link):
    """A word-embedding layer: row ``i`` of ``W`` is the vector of ID ``i``.

    Args:
        in_size: Number of IDs (rows of ``W``).
        out_size: Length of each vector (columns of ``W``).
        initialW: Initializer of ``W``: an initializer, a scalar, an array or None for
            ``Normal(1.0)``.
        ignore_label: An ID whose output is a zero vector and which gets no gradient, or None.

    Attributes:
        W: The embedding matrix, of shape ``(in_size, out_size)``.
        ignore_label: The ignored ID, or None.
    """

    W: variable.Parameter
    # compat: a class-level default, so subclasses that skip __init__ still read it.
    ignore_label: int | None = None

    def __init__(self, in_size: int, out_size: int, initialW: Any = None,
                 ignore_label: int | None = None) -> None:
        super().__init__()
        self.ignore_label = ignore_label
        if initialW is None:
            initialW = initializers.Normal(1.0)
        with self.init_scope():
            self.W = variable.Parameter(initialW, (in_size, out_size))

    @classmethod
    def from_params(cls, W: Any, ignore_label: int | None = None) -> EmbedID:
        """Builds an EmbedID layer whose ``W`` is a copy of the given ``(in_size, out_size)``
        array or Variable."""
        in_size, out_size = W.shape
        return cls(in_size, out_size, initialW=variable.as_array(W), ignore_label=ignore_label)

    def forward(self, x: Any) -> variable.Variable:
        """Returns the vectors of the IDs in the integer array ``x``, of shape
        ``x.shape + (out_size,)``."""
        return embed_id(x, self.W, ignore_label=self.ignore_label)
