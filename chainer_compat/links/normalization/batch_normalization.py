"""``BatchNormalization``: batch normalization with learned scale and shift, and running
averages of the batch statistics that replace them outside training.

Layer 8: imports backend, configuration, functions, initializers, link, utils and variable.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, configuration, initializers, link, variable
from chainer_compat.functions.normalization.batch_normalization import (
    batch_normalization,
    fixed_batch_normalization,
)
from chainer_compat.utils import argument

__all__ = ["BatchNormalization"]


class BatchNormalization(link.Link):
    """Batch normalization layer: normalizes with the batch's statistics while
    ``chainer.config.train`` is True, and with their running averages otherwise.

    Args:
        size: Shape (int or tuple) of the parameters and statistics, or None to infer it from
            the first input (then ``axis`` is required).
        decay: Weight of the old value in each update of the running averages.
        eps: Added to the variance.
        dtype: Dtype of the parameters and statistics; None uses ``chainer.config.dtype``
            (float32 under ``mixed16``).
        use_gamma: Learn a scale; without it the scale is one.
        use_beta: Learn a shift; without it the shift is zero.
        initial_gamma: Initializer of ``gamma`` (None: ones).
        initial_beta: Initializer of ``beta`` (None: zeros).
        axis: Axes of the input to take the statistics over (int or tuple), or None for the
            batch axis and every axis after those the parameters span.
        initial_avg_mean: Initializer of ``avg_mean`` (None: zeros).
        initial_avg_var: Initializer of ``avg_var`` (None: ones).

    Attributes:
        gamma: The scale Parameter, or None without ``use_gamma``.
        beta: The shift Parameter, or None without ``use_beta``.
        avg_mean: Running average of the batch means (persistent).
        avg_var: Running average of the unbiased batch variances (persistent).
        N: Number of batches averaged in fine-tuning (persistent).
        decay: As given.
        eps: As given.
        axis: ``axis`` as a tuple, or None.

    Raises:
        RuntimeError: If both ``size`` and ``axis`` are None.
    """

    # compat: class-level defaults, as in Chainer, so that a link without them reads None.
    gamma: variable.Parameter | None = None
    beta: variable.Parameter | None = None

    def __init__(self, size: Any = None, decay: float = 0.9, eps: float = 2e-5,
                 dtype: Any = None, use_gamma: bool = True, use_beta: bool = True,
                 initial_gamma: Any = None, initial_beta: Any = None, axis: Any = None,
                 initial_avg_mean: Any = None, initial_avg_var: Any = None) -> None:
        super().__init__()
        if size is None and axis is None:
            raise RuntimeError(
                "size or axis is required: pass the parameter shape as size, or the axes to "
                "normalize over as axis to infer it from the first input")
        self._initial_avg_mean = initial_avg_mean
        self._initial_avg_var = initial_avg_var
        self.N = 0
        self.register_persistent("N")
        self.decay = decay
        self.eps = eps
        if isinstance(axis, (int, numpy.integer)):
            axis = (int(axis),)
        self.axis = axis
        # Parameters and statistics stay float32 under mixed16: float16 activations' statistics
        # need the precision.
        self._highprec_dtype = configuration.get_dtype(dtype, map_mixed16=numpy.float32)
        with self.init_scope():
            if use_gamma:
                self.gamma = variable.Parameter(
                    self._initializer(1 if initial_gamma is None else initial_gamma))
            if use_beta:
                self.beta = variable.Parameter(
                    self._initializer(0 if initial_beta is None else initial_beta))
        self.avg_mean: Any = None
        self.avg_var: Any = None
        if size is not None:
            self._initialize_params(size)
        self.register_persistent("avg_mean")
        self.register_persistent("avg_var")

    def _initializer(self, value: Any) -> Any:
        initializer = initializers._get_initializer(value)
        # compat: Chainer sets the parameter dtype on the initializer it was given.
        initializer.dtype = self._highprec_dtype
        return initializer

    def _initialize_params(self, shape: Any) -> None:
        self.avg_mean = self._init_array(self._initial_avg_mean, 0, shape)
        self._initial_avg_mean = None
        self.avg_var = self._init_array(self._initial_avg_var, 1, shape)
        self._initial_avg_var = None
        if self.gamma is not None:
            self.gamma.initialize(shape)
        if self.beta is not None:
            self.beta.initialize(shape)

    def _init_array(self, initializer: Any, default: float, shape: Any) -> Any:
        filler = initializers._get_initializer(default if initializer is None else initializer)
        return initializers.generate_array(filler, shape, self.xp, dtype=self._highprec_dtype,
                                           device=self.device)

    @property
    def printable_specs(self) -> Any:
        """``size``, ``decay``, ``eps``, ``dtype``, ``use_gamma`` and ``use_beta``.

        Compat: Chainer reports ``use_gamma`` and ``use_beta`` as always True (and fails
        before its size is known); ours reports whether the parameter exists (and None).
        """
        initialized = self.avg_mean is not None
        yield "size", self.avg_mean.shape[0] if initialized else None
        yield "decay", self.decay
        yield "eps", self.eps
        yield "dtype", self.avg_mean.dtype if initialized else self._highprec_dtype
        yield "use_gamma", self.gamma is not None
        yield "use_beta", self.beta is not None

    def forward(self, x: Any, **kwargs: Any) -> variable.Variable:
        """Normalizes ``x``.

        Args:
            x: Input whose axes outside ``axis`` have the parameters' shape.
            finetune: In training, average the statistics of all batches since the last
                :meth:`start_finetuning` (decay ``1 - 1 / N``) instead of decaying by
                ``decay``.

        Returns:
            The normalized, scaled and shifted ``x``.

        Raises:
            ValueError: If ``test`` is given (use ``chainer.using_config('train', ...)``).
        """
        finetune, = argument.parse_kwargs(
            kwargs, ("finetune", False),
            test="test argument is not supported anymore. Use chainer.using_config")
        if self.avg_mean is None:
            axis = self.axis or ()
            self._initialize_params(
                tuple(size for i, size in enumerate(x.shape) if i not in axis))
        gamma: Any = self.gamma
        beta: Any = self.beta
        if gamma is None or beta is None:
            with backend.using_device(self.device):
                if gamma is None:
                    gamma = self.xp.ones(self.avg_mean.shape, dtype=self._highprec_dtype)
                if beta is None:
                    beta = self.xp.zeros(self.avg_mean.shape, dtype=self._highprec_dtype)
        config = configuration.config
        if not config.train:
            return fixed_batch_normalization(x, gamma, beta, self.avg_mean, self.avg_var,
                                             self.eps, axis=self.axis)
        if finetune:
            self.N += 1
            decay = 1.0 - 1.0 / self.N
        else:
            decay = self.decay
        avg_mean, avg_var = self.avg_mean, self.avg_var
        if config.in_recomputing:
            # A recomputed forward must not count or average the batch a second time.
            if finetune:
                self.N -= 1
            avg_mean = avg_var = None
        return batch_normalization(x, gamma, beta, eps=self.eps, running_mean=avg_mean,
                                   running_var=avg_var, decay=decay, axis=self.axis)

    def start_finetuning(self) -> None:
        """Restarts the cumulative averaging of ``forward(x, finetune=True)``."""
        self.N = 0
