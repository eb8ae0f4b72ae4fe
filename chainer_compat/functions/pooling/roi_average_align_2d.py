"""``roi_average_align_2d``: Mask R-CNN's ROI align, the mean of bilinear samples on a grid
in each bin of each ROI. Layer 5: imports backend, variable and ``functions.pooling._roi``
(NOTE [ROI tables] there).
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.functions.pooling import _roi


class ROIAverageAlign2D(_roi.IndexedROINode):
    """ROI average align of ``(n, c, h, w)`` planes. Use :func:`roi_average_align_2d`."""

    def __init__(self, outsize: Any, spatial_scale: Any, sampling_ratio: Any = None) -> None:
        super().__init__(outsize, spatial_scale)
        self.sampling_ratio = _roi.check_sampling_ratio(sampling_ratio)

    def check_type_forward(self, in_types: Any) -> None:
        _roi.check_roi_types(in_types, float32_only=True)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, rois, roi_indices = inputs
        xp = backend.get_array_module(x)
        n, c, height, width = x.shape
        samples = _roi.align_samples(rois, self.spatial_scale, self.outh, self.outw,
                                     self.sampling_ratio, height, width)
        r = rois.shape[0]
        weight = samples["weight"]
        taps = weight.shape[3] * weight.shape[4]
        # Every grid sample counts in the mean, also one outside the image (which adds 0).
        # Chainer sums the taps in float64 and divides the sum by the count.
        count = xp.broadcast_to(samples["count"][:, None, None], (r, self.outh, self.outw))
        self._table = _roi.shared_table(
            roi_indices.astype(numpy.int64),
            samples["position"].reshape(r, self.outh, self.outw, taps),
            weight.reshape(r, self.outh, self.outw, taps), x.shape, (r, c, self.outh, self.outw),
            divisors=(count,))
        return self._table.apply(x),


def roi_average_align_2d(x: Any, rois: Any, roi_indices: Any, outsize: Any, spatial_scale: Any,
                         sampling_ratio: Any = None) -> variable.Variable:
    """ROI average align: each of ``outsize`` bins of each ROI averages bilinear samples.

    Corners are scaled by ``spatial_scale`` and not rounded; a ROI is at least one pixel
    each way. A bin is sampled at the centres of a ``grid_h x grid_w`` grid, where the grid
    is ``sampling_ratio`` or, when it is None, ``ceil(roi_extent / bins)`` per ROI. A sample
    beyond one pixel outside the image reads 0 (it still counts in the mean); one within a
    pixel of the border reads the border.

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
    node = ROIAverageAlign2D(outsize, spatial_scale, sampling_ratio)
    return node(x, rois, roi_indices)
