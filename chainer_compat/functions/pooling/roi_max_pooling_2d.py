"""``roi_max_pooling_2d``: the maximum of each bin of each ROI given as
``(y_min, x_min, y_max, x_max)`` rows with separate image indices. Layer 5: imports backend,
variable and ``functions.pooling._roi`` (NOTE [ROI tables] there).
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.functions.pooling import _roi


class ROIMaxPooling2D(_roi.IndexedROINode):
    """ROI max pooling of ``(n, c, h, w)`` planes. Use :func:`roi_max_pooling_2d`.

    Attributes:
        argmax_data: After forward, the flat pixel index ``h * width + w`` of each output's
            maximum, an int32 array of the output's shape (-1 for an empty bin).
    """

    def __init__(self, outsize: Any, spatial_scale: Any) -> None:
        super().__init__(outsize, spatial_scale)
        self.argmax_data: Any = None

    def check_type_forward(self, in_types: Any) -> None:
        _roi.check_roi_types(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, rois, roi_indices = inputs
        xp = backend.get_array_module(x)
        _, _, height, width = x.shape
        bins = _roi.pooling_bins(rois, self.spatial_scale, self.outh, self.outw, height, width)
        batch = roi_indices.astype(numpy.int64)
        # An empty bin (entirely outside the image) pools to -inf and passes no gradient, as
        # in Chainer.
        y, position, empty = _roi.max_pooling(x, batch, *bins, -numpy.inf)
        self.argmax_data = xp.where(empty, -1, position).astype(numpy.int32)
        self._table = _roi.max_table(x.shape, batch, position,
                                     xp.broadcast_to(~empty, position.shape))
        return y,


def roi_max_pooling_2d(x: Any, rois: Any, roi_indices: Any, outsize: Any,
                       spatial_scale: Any) -> variable.Variable:
    """ROI max pooling: the maximum of each of ``outsize`` bins of each ROI, per channel.

    Corners are scaled by ``spatial_scale`` and rounded to pixels (half to even); a ROI spans
    ``y_max - y_min`` rows (at least one). Bin ``i`` of ``k`` over ``n`` pixels covers
    ``[floor(i * n / k), ceil((i + 1) * n / k))`` from the ROI start, clipped to the image; a
    bin entirely outside it pools to ``-inf``.

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
    return ROIMaxPooling2D(outsize, spatial_scale)(x, rois, roi_indices)
