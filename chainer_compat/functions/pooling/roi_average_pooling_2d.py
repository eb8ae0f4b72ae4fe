"""``roi_average_pooling_2d``: the mean of each bin of each ROI given as
``(y_min, x_min, y_max, x_max)`` rows with separate image indices. Layer 5: imports variable and
``functions.pooling._roi`` (NOTE [ROI tables] there).
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import variable
from chainer_compat.functions.pooling import _roi


class ROIAveragePooling2D(_roi.IndexedROINode):
    """ROI average pooling of ``(n, c, h, w)`` planes. Use :func:`roi_average_pooling_2d`."""

    def check_type_forward(self, in_types: Any) -> None:
        _roi.check_roi_types(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, rois, roi_indices = inputs
        _, _, height, width = x.shape
        bins = _roi.pooling_bins(rois, self.spatial_scale, self.outh, self.outw, height, width)
        batch = roi_indices.astype(numpy.int64)
        self._table = _roi.average_table(x.shape, batch, *bins)
        return _roi.average_pooling(x, batch, *bins),


def roi_average_pooling_2d(x: Any, rois: Any, roi_indices: Any, outsize: Any,
                           spatial_scale: Any) -> variable.Variable:
    """ROI average pooling: the mean of each of ``outsize`` bins of each ROI, per channel.

    The bins are those of :func:`roi_max_pooling_2d`, clipped to the image; each averages the
    pixels inside the image, and a bin entirely outside it gives 0.

    Args:
        x: Input Variable or array of shape ``(n, c, h, w)``.
        rois: Array of shape ``(R, 4)`` of rows ``(y_min, x_min, y_max, x_max)``, of ``x``'s
            dtype. It gets no gradient.
        roi_indices: int32 array of shape ``(R,)``: the image of ``x`` each ROI belongs to.
        outsize: Output ``(height, width)``, or an int for both.
        spatial_scale: Positive factor from ROI coordinates to ``x``'s pixels.

    Returns:
        A Variable of shape ``(R, c, outh, outw)``.

    Raises:
        TypeError: If ``outsize`` or ``spatial_scale`` is not positive.
        ValueError: If ``spatial_scale`` is infinite.
        chainer_compat.utils.type_check.InvalidType: If the inputs' dtypes or shapes do not
            fit.

    Compat: the result can be differentiated twice (Chainer's gradient is not differentiable).
    """
    return ROIAveragePooling2D(outsize, spatial_scale)(x, rois, roi_indices)
