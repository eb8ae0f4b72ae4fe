"""Up- and down-sampling filters for (de)convolution weights: ``UpsamplingDeconvFilter`` and
``DownsamplingConvFilter`` (the bilinear kernels of Long et al., https://arxiv.org/abs/1411.4038).

Imports ``backend``, ``initializer`` and the shared helpers in ``initializers._base``.
"""

from __future__ import annotations

from typing import Any

import numpy
from numpy.typing import DTypeLike

from chainer_compat import backend
from chainer_compat.initializer import Initializer
from chainer_compat.initializers import _base
from chainer_compat.utils._assertions import AssertValueError


class SamplingFilterShapeError(AssertValueError):
    """Raised when a weight's channel axes cannot hold a per-channel sampling filter.

    Compat: Chainer reports this with a bare ``assert``; deriving from ``AssertionError`` too
    keeps code that catches that working.
    """


def _linear_filter(size: int, ndim: int, upsampling: bool) -> Any:
    """The separable ``ndim``-d tent kernel of side ``size``; normalized to sum 1 to downsample."""
    factor = (size + 1) // 2
    # The tent peaks on the central tap (odd size) or between the two central taps (even size).
    center = factor - 1.0 if size % 2 == 1 else factor - 0.5
    kernel = numpy.ones((size,) * ndim)
    for axis_grid in numpy.ogrid[(slice(size),) * ndim]:
        kernel = kernel * (1.0 - numpy.abs(axis_grid - center) / factor)
    if not upsampling:
        kernel /= kernel.sum()
    return kernel


def _check_interpolation(interpolation: str) -> None:
    if interpolation != "linear":
        # compat: Chainer's type and first words.
        raise ValueError(
            f"Unsupported interpolation method: {interpolation} (interpolation must be "
            "'linear')")


class _SamplingFilter(Initializer):
    """Puts the same sampling kernel on the diagonal channel pairs ``(c, c)`` (or ``(c, 0)``)."""

    _upsampling = True

    def __init__(self, interpolation: str = "linear", dtype: DTypeLike | None = None) -> None:
        _check_interpolation(interpolation)
        self.interpolation = interpolation
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        """Fills ``array``, of shape ``(in_channels, out_channels, k, ..., k)``, in place.

        Every entry is zero except ``array[c, c]`` (or ``array[c, 0]`` when there is one output
        channel), which holds the kernel.

        Raises:
            ValueError: If the dtype differs from a set ``dtype``, the array has no spatial axes,
                the spatial sizes differ, or the second axis is neither the first's size nor 1.
        """
        _base.check_dtype(self, array)
        in_channels, out_channels = array.shape[:2]
        spatial = tuple(array.shape[2:])
        if not spatial:
            raise ValueError(
                "sampling filter array must have spatial axes after its two channel axes, got "
                f"shape {tuple(array.shape)}")
        if in_channels != out_channels and out_channels != 1:
            raise SamplingFilterShapeError(
                "sampling filter array must have as many output as input channels, or one, got "
                f"shape {tuple(array.shape)}")
        if len(set(spatial)) != 1:
            first = spatial[0]
            other = next(size for size in spatial if size != first)
            # compat: Chainer's wording.
            raise ValueError(f"ksize must be all same: {first} != {other}")
        xp = backend.get_array_module(array)
        kernel = xp.asarray(_linear_filter(spatial[0], len(spatial), self._upsampling))
        array[...] = 0
        channels = xp.arange(in_channels)
        targets = xp.zeros_like(channels) if out_channels == 1 else channels
        array[channels, targets, ...] = kernel


class UpsamplingDeconvFilter(_SamplingFilter):
    """Fills a deconvolution weight with a per-channel (bi/tri)linear upsampling kernel.

    Meant for ``DeconvolutionND``/``Deconvolution2D`` with ``stride == (ksize + 1) // 2``; the
    kernel's centre tap is 1.

    Args:
        interpolation: The interpolation method; only ``'linear'`` exists.
        dtype: The dtype arrays must have, or None to accept any.

    Attributes:
        interpolation: The interpolation method.

    Raises:
        ValueError: If ``interpolation`` is not ``'linear'``.
    """

    _upsampling = True


class DownsamplingConvFilter(_SamplingFilter):
    """Fills a convolution weight with a per-channel linear downsampling kernel that sums to 1.

    Meant for ``ConvolutionND``/``Convolution2D`` with ``stride == (ksize + 1) // 2``.

    Args:
        interpolation: The interpolation method; only ``'linear'`` exists.
        dtype: The dtype arrays must have, or None to accept any.

    Attributes:
        interpolation: The interpolation method.

    Raises:
        ValueError: If ``interpolation`` is not ``'linear'``.
    """

    _upsampling = False
