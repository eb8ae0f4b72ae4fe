"""``roi_pooling_2d``: Fast R-CNN's ROI max pooling with ``(batch, x_min, y_min, x_max, y_max)``
ROI rows. Layer 5: imports backend, variable, function_node, type_check and
``functions.pooling._roi`` (see NOTE [ROI tables] there for the gradient).
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.pooling import _roi
from chainer_compat.utils import type_check


class ROIPooling2D(FunctionNode):
    """ROI max pooling of ``(n, c, h, w)`` planes. Use :func:`roi_pooling_2d`.

    Attributes:
        argmax_data: After forward, the flat pixel index ``h * width + w`` of each output's
            maximum, an int32 array of the output's shape (0 for an empty bin).
    """

    def __init__(self, outh: int, outw: int, spatial_scale: float) -> None:
        self.outh, self.outw = outh, outw
        self.spatial_scale = spatial_scale
        self.argmax_data: Any = None
        self._table: Any = None

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "rois"))
        x_type, roi_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 4,
            x_type.dtype == roi_type.dtype,
            roi_type.ndim == 2,
            roi_type.shape[1] == 5,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, rois = inputs
        xp = backend.get_array_module(x)
        _, _, height, width = x.shape
        # Chainer rounds the scaled corners half to even, in float64.
        corners = xp.rint(rois[:, 1:].astype(numpy.float64) * self.spatial_scale)
        x_min, y_min, x_max, y_max = (corners[:, i].astype(numpy.int64) for i in range(4))
        batch = rois[:, 0].astype(numpy.int64)
        # The corners are inclusive; a malformed ROI is pooled as one pixel.
        roi_h = xp.maximum(y_max - y_min + 1, 1)
        roi_w = xp.maximum(x_max - x_min + 1, 1)
        h_first, h_stop = _roi.integer_bins(y_min, roi_h, self.outh, height)
        w_first, w_stop = _roi.integer_bins(x_min, roi_w, self.outw, width)
        table, empty = _roi.max_table(x, batch, h_first, h_stop, w_first, w_stop)
        y = table.apply(x)
        self.argmax_data = xp.where(empty, 0, table.position.reshape(y.shape)).astype(numpy.int32)
        # compat: Chainer sends no gradient to a malformed ROI's pixel (it lies outside the
        # inclusive corners), though it pools its value.
        malformed = (y_max < y_min) | (x_max < x_min)
        per_roi = x.shape[1] * self.outh * self.outw
        table.weight = xp.where(xp.repeat(malformed, per_roi), 0.0, table.weight)
        self._table = table
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gx, = ROIPooling2DGrad(self._table).apply(grad_outputs)
        return gx, None


class ROIPooling2DGrad(_roi.TableTranspose):
    """The gradient of :class:`ROIPooling2D` with respect to ``x``: its table's transpose,
    under Chainer's name for the node."""


def roi_pooling_2d(x: Any, rois: Any, outh: int, outw: int,
                   spatial_scale: float) -> variable.Variable:
    """ROI max pooling (Fast R-CNN): the maximum of each of ``outh x outw`` bins of each ROI.

    Corners are scaled by ``spatial_scale`` and rounded to pixels (half to even); they are
    inclusive, so a ROI spans ``x_max - x_min + 1`` columns (at least one). Bin ``i`` of ``k``
    over ``n`` pixels covers ``[floor(i * n / k), ceil((i + 1) * n / k))`` from the ROI start,
    clipped to the image; a bin entirely outside it pools to 0.

    Args:
        x: Input Variable or array of shape ``(n, c, h, w)``.
        rois: Array of shape ``(R, 5)`` of rows ``(batch_index, x_min, y_min, x_max, y_max)``,
            of ``x``'s dtype. It gets no gradient.
        outh: Output height (bins per ROI column).
        outw: Output width (bins per ROI row).
        spatial_scale: Factor from ROI coordinates to ``x``'s pixels.

    Returns:
        A Variable of shape ``(R, c, outh, outw)``.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If ``x`` is not a 4-D float array or
            ``rois`` is not an ``(R, 5)`` array of ``x``'s dtype.

    Compat: the result can be differentiated twice (Chainer's raises NotImplementedError).
    """
    y: variable.Variable = ROIPooling2D(outh, outw, spatial_scale).apply((x, rois))[0]
    return y
