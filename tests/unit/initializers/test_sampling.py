"""UpsamplingDeconvFilter and DownsamplingConvFilter: the separable tent kernel on the channel
diagonal, its normalization, CuPy arrays, and the errors for unusable shapes and options."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.initializers.sampling import (
    DownsamplingConvFilter,
    SamplingFilterShapeError,
    UpsamplingDeconvFilter,
)


def _tent(size):
    # Reference: 1-d bilinear interpolation weights of an upsampling by (size + 1) // 2.
    factor = (size + 1) // 2
    center = factor - 1 if size % 2 == 1 else factor - 0.5
    return numpy.array([1 - abs(i - center) / factor for i in range(size)])


def _reference(size, ndim, upsampling):
    kernel = numpy.ones(())
    for _ in range(ndim):
        kernel = numpy.multiply.outer(kernel, _tent(size))
    return kernel if upsampling else kernel / kernel.sum()


@pytest.mark.parametrize("cls, upsampling", [(UpsamplingDeconvFilter, True),
                                             (DownsamplingConvFilter, False)])
@pytest.mark.parametrize("shape", [(3, 3, 4, 4), (2, 2, 3, 3), (2, 2, 3, 3, 3), (4, 1, 5, 5),
                                   (1, 1, 1, 1), (2, 2, 6)])
def test_filter_puts_kernel_on_channel_diagonal(cls, upsampling, shape, xp):
    array = xp.full(shape, 7.0, dtype=numpy.float32)
    cls()(array)
    result = numpy.asarray(array.tolist())
    in_channels, out_channels = shape[:2]
    kernel = _reference(shape[2], len(shape) - 2, upsampling)
    for i in range(in_channels):
        for o in range(out_channels):
            diagonal = o == (0 if out_channels == 1 else i)
            expected = kernel if diagonal else numpy.zeros_like(kernel)
            numpy.testing.assert_allclose(result[i, o], expected, rtol=1e-6)
    if not upsampling:
        numpy.testing.assert_allclose(result[0, 0].sum(), 1.0, rtol=1e-6)


def test_upsampling_kernel_peaks_at_one_for_odd_size():
    array = numpy.empty((1, 1, 5, 5))
    UpsamplingDeconvFilter()(array)
    assert array[0, 0, 2, 2] == 1.0 and array.max() == 1.0


@pytest.mark.parametrize("cls", [UpsamplingDeconvFilter, DownsamplingConvFilter])
def test_other_interpolation_is_value_error(cls):
    with pytest.raises(ValueError, match="Unsupported interpolation method: cubic"):
        cls(interpolation="cubic")


def test_interpolation_and_dtype_are_kept():
    initializer = DownsamplingConvFilter(dtype=numpy.float16)
    assert initializer.interpolation == "linear"
    assert initializer.dtype == numpy.float16


def test_mismatched_channels_raise_value_and_assertion_error():
    with pytest.raises(SamplingFilterShapeError, match="channels") as info:
        UpsamplingDeconvFilter()(numpy.empty((2, 3, 3, 3)))
    assert isinstance(info.value, ValueError) and isinstance(info.value, AssertionError)


def test_unequal_spatial_sizes_raise_value_error():
    with pytest.raises(ValueError, match="ksize must be all same: 3 != 4"):
        UpsamplingDeconvFilter()(numpy.empty((2, 2, 3, 4)))


def test_no_spatial_axes_raise_value_error():
    with pytest.raises(ValueError, match="spatial axes"):
        UpsamplingDeconvFilter()(numpy.empty((2, 2)))


def test_dtype_mismatch_raises():
    with pytest.raises(ValueError, match="dtype"):
        UpsamplingDeconvFilter(dtype=numpy.float64)(numpy.empty((2, 2, 3, 3), numpy.float32))
