"""``roi_max_align_2d``: ROI align taking the largest bilinear sample of a grid in each bin of
each ROI. Layer 5: imports backend, variable and ``functions.pooling._roi`` (NOTE [ROI tables]
there).
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.functions.pooling import _roi


class ROIMaxAlign2D(_roi.IndexedROINode):
    """ROI max align of ``(n, c, h, w)`` planes. Use :func:`roi_max_align_2d`.

    Attributes:
        argmax_data: After forward, the index ``iy * grid_w + ix`` of each output's largest
            sample within its bin's grid, an int32 array of the output's shape (-1 for an
            empty bin).
    """

    def __init__(self, outsize: Any, spatial_scale: Any, sampling_ratio: Any = None) -> None:
        super().__init__(outsize, spatial_scale)
        self.sampling_ratio = _roi.check_sampling_ratio(sampling_ratio)
        self.argmax_data: Any = None

    def check_type_forward(self, in_types: Any) -> None:
        _roi.check_roi_types(in_types, float32_only=True)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, rois, roi_indices = inputs
        xp = backend.get_array_module(x)
        n, c, height, width = x.shape
        out_h, out_w = self.outh, self.outw
        samples = _roi.align_samples(rois, self.spatial_scale, out_h, out_w,
                                     self.sampling_ratio, height, width)
        r = rois.shape[0]
        batch = roi_indices.astype(numpy.int64)
        valid, position, weight = samples["valid"], samples["position"], samples["weight"]
        # Channels last, so that each tap gathers contiguous rows.
        pixels = x.transpose(0, 2, 3, 1).reshape(n * height * width, c)
        source = batch[:, None, None, None, None] * (height * width) + position
        # Chainer keeps the first sample that is strictly larger than all before it (so a
        # NaN sample never wins), one sample at a time: (R, OH, OW, C).
        best_value = xp.full((r, out_h, out_w, c), -numpy.inf)
        best = xp.full((r, out_h, out_w, c), -1, dtype=numpy.int64)
        for sample in range(valid.shape[-1]):
            value = _roi.tap_sums(pixels, source[:, :, :, sample], weight[:, :, :, sample])
            larger = valid[:, :, :, sample, None] & (value > best_value)
            best_value = xp.where(larger, value, best_value)
            best = xp.where(larger, sample, best)
        y = xp.ascontiguousarray(best_value.astype(x.dtype).transpose(0, 3, 1, 2))
        best = best.transpose(0, 3, 1, 2)
        empty = best < 0
        # Chainer's index counts samples in the ROI's own grid: iy * grid_w + ix.
        grid_w = samples["grid_w"][:, None, None, None]
        most_w = samples["most_w"]
        self.argmax_data = xp.where(empty, -1, best // most_w * grid_w + best % most_w).astype(
            numpy.int32)
        best = xp.maximum(best, 0)
        roi = xp.arange(r).reshape(r, 1, 1, 1)
        row = xp.arange(out_h).reshape(1, 1, out_h, 1)
        col = xp.arange(out_w).reshape(1, 1, 1, out_w)
        channel = xp.arange(c).reshape(1, c, 1, 1, 1)
        # The taps of each output's best sample, (R, C, OH, OW, 4), in output order, then
        # tap order (NOTE [ROI gradient order]). Taps of weight 0 (all four of an empty
        # bin's) pass no gradient, as in Chainer.
        best_weight = xp.where(empty[..., None], 0.0, weight[roi, row, col, best]).reshape(-1)
        source = ((batch.reshape(r, 1, 1, 1, 1) * c + channel) * (height * width)
                  + position[roi, row, col, best]).reshape(-1)
        entry = xp.nonzero(best_weight)[0]
        self._table = _roi.SampleTable(source[entry], entry // position.shape[-1],
                                       best_weight[entry], False, x.shape, (r, c, out_h, out_w))
        return y,


def roi_max_align_2d(x: Any, rois: Any, roi_indices: Any, outsize: Any, spatial_scale: Any,
                     sampling_ratio: Any = None) -> variable.Variable:
    """ROI max align: each of ``outsize`` bins of each ROI takes its largest bilinear sample.

    The samples are those of :func:`roi_average_align_2d`. A bin with no sample within one
    pixel of the image gives ``-inf``. The gradient reaches the four pixels around the
    largest sample, with their bilinear weights.

    Args:
        x: Input Variable or float32 array of shape ``(n, c, h, w)``.
        rois: float32 array of shape ``(R, 4)`` of rows ``(y_min, x_min, y_max, x_max)``. It
            gets no gradient.
        roi_indices: int32 array of shape ``(R,)``: the image of ``x`` each ROI belongs to.
        outsize: Output ``(height, width)``, or an int for both.
        spatial_scale: Positive factor from ROI coordinates to ``x``'s pixels.
        sampling_ratio: Samples per bin along each axis: None (automatic), an int >= 1, or a
            pair of them.

    Returns:
        A Variable of shape ``(R, c, outh, outw)``.

    Raises:
        TypeError: If ``outsize``, ``spatial_scale`` or ``sampling_ratio`` is out of range
            (a ``sampling_ratio`` of more than two entries too, which Chainer ignores).
        ValueError: If ``spatial_scale`` is infinite.
        chainer_compat.utils.type_check.InvalidType: If ``x`` or ``rois`` is not float32, or
            a shape does not fit.

    Compat: the result can be differentiated twice (Chainer's gradient is not differentiable).
    """
    return ROIMaxAlign2D(outsize, spatial_scale, sampling_ratio)(x, rois, roi_indices)
