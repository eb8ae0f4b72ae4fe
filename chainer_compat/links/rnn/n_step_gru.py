"""Stacked GRU links over lists of variable-length sequences: ``NStepGRU``, ``NStepBiGRU``.

Layer 8: imports functions.rnn.n_step_gru and links.rnn.n_step_rnn.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.functions.rnn import n_step_gru as gru_functions
from chainer_compat.links.rnn.n_step_rnn import NStepRNNBase

__all__ = ["NStepBiGRU", "NStepGRU", "NStepGRUBase"]


class NStepGRUBase(NStepRNNBase):
    """Stacked GRU layers: :class:`NStepRNNBase` with six weights per layer.

    See :func:`chainer.functions.n_step_gru` for the role of ``w0`` ... ``w5``.
    """

    n_weights = 6


class NStepGRU(NStepGRUBase):
    """Stacked one-directional GRU over variable-length sequences.

    See :class:`NStepRNNBase` for the arguments and :func:`chainer.functions.n_step_gru` for
    the computation.
    """

    use_bi_direction = False

    def rnn(self, *args: Any) -> Any:
        return gru_functions.n_step_gru(*args)


class NStepBiGRU(NStepGRUBase):
    """Stacked two-directional GRU over variable-length sequences.

    See :class:`NStepRNNBase` for the arguments and :func:`chainer.functions.n_step_bigru`
    for the computation.
    """

    use_bi_direction = True

    def rnn(self, *args: Any) -> Any:
        return gru_functions.n_step_bigru(*args)
