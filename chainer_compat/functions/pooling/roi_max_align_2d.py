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
        values = _roi.sample_values(x, batch, position, weight).transpose(0, 4, 1, 2, 3)
        values = xp.where(valid[:, None], values, -numpy.inf)
        # argmax takes the first of equal samples, as Chainer's strict comparison does.
        best = values.argmax(axis=-1)
        empty = ~valid.any(axis=-1)[:, None]
        y = values.max(axis=-1).astype(x.dtype)
        # Chainer's index counts samples in the ROI's own grid: iy * grid_w + ix.
        grid_w = samples["grid_w"][:, None, None, None]
        most_w = samples["most_w"]
        self.argmax_data = xp.where(empty, -1, best // most_w * grid_w + best % most_w).astype(
            numpy.int32)
        roi = xp.arange(r).reshape(r, 1, 1, 1)
        row = xp.arange(out_h).reshape(1, 1, out_h, 1)
        col = xp.arange(out_w).reshape(1, 1, 1, out_w)
        # The four taps of each output's best sample: (R, C, OH, OW, 4).
        best_weight = xp.where(empty[..., None], 0.0, weight[roi, row, col, best])
        best_position = position[roi, row, col, best]
        # Taps of weight 0 (all four of an empty bin's) pass no gradient at all, as in
        # Chainer: kept, they would turn an infinite output gradient into 0 * inf = nan.
        # The entries stay in output order, then tap order (NOTE [ROI gradient order]).
        entry = xp.nonzero(best_weight.reshape(-1) != 0)[0]
        target = entry // best_weight.shape[-1]
        self._table = _roi.SampleTable(
            batch[target // (c * out_h * out_w)], best_position.reshape(-1)[entry], target,
            best_weight.reshape(-1)[entry], (target // (out_h * out_w)) % c, x.shape,
            (r, c, out_h, out_w))
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
        TypeError: If ``outsize``, ``spatial_scale`` or ``sampling_ratio`` is out of range.
        chainer_compat.utils.type_check.InvalidType: If ``x`` or ``rois`` is not float32, or
            a shape does not fit.

    Compat: the result can be differentiated twice (Chainer's gradient is not differentiable).
    """
    return ROIMaxAlign2D(outsize, spatial_scale, sampling_ratio)(x, rois, roi_indices)
