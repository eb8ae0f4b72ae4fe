"""``BlackOut``: a link holding the output embeddings of the BlackOut loss and a sampler of
negatives proportional to word counts.

Layer 8: imports backend, functions, link, utils and variable.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import link, variable
from chainer_compat.device_resident import DeviceResidentsVisitor
from chainer_compat.functions.loss.black_out import black_out
from chainer_compat.utils.walker_alias import WalkerAlias


class BlackOut(link.Link):
    """BlackOut loss (see :func:`~chainer_compat.functions.black_out`) with a learned output
    embedding ``W`` and negatives drawn in proportion to ``counts``.

    Args:
        in_size: Dimension ``D`` of the input vectors.
        counts: Frequency of each of the ``V`` ids.
        sample_size: Number of negatives per example.

    Attributes:
        W: Output embeddings of shape ``(V, D)``; NaN until set, as a Parameter without an
            initializer is (initialize or load it before use).
        sampler: The :class:`~chainer_compat.utils.WalkerAlias` drawing the negatives.
        sample_size: As given.
        sample_data: If not None, an ``(N, sample_size)`` array of ids used instead of
            sampling (for tests and reproducible runs).
    """

    # compat: a class attribute, as in Chainer, so that it can be set on the class.
    sample_data: Any = None
    W: variable.Parameter

    def __init__(self, in_size: int, counts: Any, sample_size: int) -> None:
        super().__init__()
        self.sampler = WalkerAlias(numpy.array(counts, dtype=numpy.float32))
        self.sample_size = sample_size
        with self.init_scope():
            self.W = variable.Parameter(shape=(len(counts), in_size))

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)
        self.sampler.device_resident_accept(visitor)

    def forward(self, x: Any, t: Any) -> variable.Variable:
        """Returns the mean BlackOut loss of inputs ``x`` ``(N, in_size)`` against ids ``t``."""
        if self.sample_data is not None:
            samples = self.sample_data
        else:
            samples = self.sampler.sample((x.shape[0], self.sample_size))
        return black_out(x, t, self.W, variable.Variable(samples, requires_grad=False))
