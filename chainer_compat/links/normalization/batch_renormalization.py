"""``BatchRenormalization``: batch normalization whose training-time statistics are corrected
towards the running averages, so training and inference outputs agree.

Layer 8: imports backend, configuration, functions, links and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, configuration, variable
from chainer_compat.functions.normalization.batch_normalization import fixed_batch_normalization
from chainer_compat.functions.normalization.batch_renormalization import batch_renormalization
from chainer_compat.links.normalization.batch_normalization import BatchNormalization

__all__ = ["BatchRenormalization"]


class BatchRenormalization(BatchNormalization):
    """Batch renormalization layer (:func:`~chainer_compat.functions.batch_renormalization` in
    training, :func:`~chainer_compat.functions.fixed_batch_normalization` otherwise).

    Args:
        size: Shape (int or tuple) of the parameters and statistics.
        rmax: Upper bound of the scale correction ``r`` (``1 / rmax`` is its lower bound).
        dmax: Bound of the shift correction ``|d|``.
        decay: Weight of the old value in each update of the running averages.
        eps: Added to the variance.
        dtype: Dtype of the parameters and statistics; None uses ``chainer.config.dtype``.
        use_gamma: Learn a scale; without it the scale is one.
        use_beta: Learn a shift; without it the shift is zero.
        initial_gamma: Initializer of ``gamma`` (None: ones).
        initial_beta: Initializer of ``beta`` (None: zeros).
        initial_avg_mean: Initializer of ``avg_mean`` (None: zeros).
        initial_avg_var: Initializer of ``avg_var`` (None: ones).

    Attributes:
        rmax: As given.
        dmax: As given.
        r: Always None (kept because Chainer's link has it).
        d: Always None (likewise).

    See: `Batch Renormalization <https://arxiv.org/abs/1702.03275>`_
    """

    def __init__(self, size: Any, rmax: float = 1, dmax: float = 0, decay: float = 0.9,
                 eps: float = 2e-5, dtype: Any = None, use_gamma: bool = True,
                 use_beta: bool = True, initial_gamma: Any = None, initial_beta: Any = None,
                 initial_avg_mean: Any = None, initial_avg_var: Any = None) -> None:
        super().__init__(size, decay, eps, dtype, use_gamma, use_beta, initial_gamma,
                         initial_beta, initial_avg_mean=initial_avg_mean,
                         initial_avg_var=initial_avg_var)
        self.rmax = rmax
        self.dmax = dmax
        # compat: Chainer's link carries these attributes and never sets them.
        self.r = None
        self.d = None

    def forward(self, x: Any, finetune: bool = False) -> variable.Variable:  # type: ignore[override]
        """Normalizes ``x``.

        Args:
            x: Input of shape ``(N, *size, ...)``.
            finetune: In training, average the statistics of all batches since the last
                :meth:`start_finetuning` (decay ``1 - 1 / N``) instead of decaying by
                ``decay``.

        Returns:
            The renormalized (in training) or normalized, scaled and shifted ``x``.
        """
        dtype = x.dtype
        gamma: Any = self.gamma
        beta: Any = self.beta
        if gamma is None or beta is None:
            with backend.using_device(self.device):
                # compat: Chainer makes the missing parameters in the input's dtype.
                if gamma is None:
                    gamma = self.xp.ones(self.avg_mean.shape, dtype=dtype)
                if beta is None:
                    beta = self.xp.zeros(self.avg_mean.shape, dtype=dtype)
        config = configuration.config
        if not config.train:
            return fixed_batch_normalization(x, gamma, beta, self.avg_mean, self.avg_var,
                                             self.eps)
        if finetune:
            self.N += 1
            decay = 1.0 - 1.0 / self.N
        else:
            decay = self.decay
        update_statistics = True
        if config.in_recomputing:
            # A recomputed forward must not count or average the batch a second time.
            if finetune:
                self.N -= 1
            update_statistics = False
        return batch_renormalization(x, gamma, beta, self.rmax, self.dmax, self.eps,
                                     self.avg_mean, self.avg_var, decay,
                                     update_statistics=update_statistics)
