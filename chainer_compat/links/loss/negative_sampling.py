"""``NegativeSampling``: a link holding the output embeddings of the negative sampling loss and a
unigram sampler of negatives.

Layer 8: imports backend, configuration, functions, link, utils and variable.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import configuration, link, variable
from chainer_compat.device_resident import DeviceResidentsVisitor
from chainer_compat.functions.loss import negative_sampling as negative_sampling_module
from chainer_compat.utils import argument
from chainer_compat.utils.walker_alias import WalkerAlias


class NegativeSampling(link.Link):
    """Negative sampling loss (see :func:`~chainer_compat.functions.negative_sampling`) with a
    learned output embedding ``W`` and negatives drawn from ``counts ** power``.

    Args:
        in_size: Dimension ``D`` of the input vectors.
        counts: Frequency of each of the ``V`` ids (e.g. word counts).
        sample_size: Number of negatives per example.
        power: Exponent applied to ``counts`` to get the sampling weights.
        dtype: Dtype of the sampling weights; the default dtype when None.

    Attributes:
        W: Output embeddings of shape ``(V, D)``, initialized to zeros.
        sampler: The :class:`~chainer_compat.utils.WalkerAlias` drawing the negatives; it moves
            with the link between devices.
        sample_size: As given.
    """

    W: variable.Parameter

    def __init__(self, in_size: int, counts: Any, sample_size: int, power: float = 0.75,
                 dtype: Any = None) -> None:
        super().__init__()
        dtype = configuration.get_dtype(dtype)
        self.sample_size = sample_size
        weights = numpy.power(numpy.array(counts, dtype), dtype.type(power))
        self.sampler = WalkerAlias(weights)
        with self.init_scope():
            # compat: W takes the default dtype, not ``dtype``, as in Chainer.
            self.W = variable.Parameter(0, (len(counts), in_size))

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)
        self.sampler.device_resident_accept(visitor)

    def forward(self, x: Any, t: Any, reduce: str = "sum", **kwargs: Any) -> Any:
        """Returns the negative sampling loss of inputs ``x`` ``(N, in_size)`` against ``int32``
        targets ``t`` ``(N,)``.

        Args:
            x: Input vectors.
            t: Target ids; -1 ignores the example.
            reduce: ``'sum'`` or ``'no'``.
            return_samples (bool): If True, also return the ids used, as
                :func:`~chainer_compat.functions.negative_sampling` does.
        """
        return_samples, = argument.parse_kwargs(kwargs, ("return_samples", False))
        # Looked up on the module at each call, as Chainer's link does, so that a test patching
        # ``chainer.functions.loss.negative_sampling.negative_sampling`` reaches this call.
        return negative_sampling_module.negative_sampling(
            x, t, self.W, self.sampler.sample, self.sample_size, reduce=reduce,
            return_samples=return_samples)
