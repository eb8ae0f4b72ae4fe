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
from chainer_compat.utils.conv import _as_size, _check_sizes


class ROIPooling2D(FunctionNode):
    """ROI max pooling of ``(n, c, h, w)`` planes. Use :func:`roi_pooling_2d`.

    Attributes:
        argmax_data: After forward, the flat pixel index ``h * width + w`` of each output's
            maximum, an int32 array of the output's shape (0 for an empty bin).
    """

    def __init__(self, outh: int, outw: int, spatial_scale: float) -> None:
        self.outh = _as_size(outh, "outh", outh)
        self.outw = _as_size(outw, "outw", outw)
        # compat: Chainer divides by a zero size and fails on a negative one with a ValueError.
        _check_sizes("outh", (self.outh,), outh, negative_error=ValueError)
        _check_sizes("outw", (self.outw,), outw, negative_error=ValueError)
        # compat: any other real scale works, as in Chainer (which does not check it).
        _roi.check_finite_scale(spatial_scale)
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
        y, position, _ = _roi.max_pooling(x, batch, h_first, h_stop, w_first, w_stop, 0.0)
        self.argmax_data = position.astype(numpy.int32)
        keep = self._gradient_reaches(position, (y_min, x_min, y_max, x_max), roi_h, roi_w,
                                      height, width)
        self._table = _roi.max_table(x.shape, batch, position, keep)
        return y,

    def _gradient_reaches(self, position: Any, corners: tuple[Any, Any, Any, Any], roi_h: Any,
                          roi_w: Any, height: int, width: int) -> Any:
        """Which outputs pass their gradient to their maximum's pixel.

        compat: Chainer's CPU gradient walks each ROI's pixels between its inclusive corners
        and maps each pixel back to the bins around it (floor and ceil of its offset over
        the bin stride); an output's gradient reaches its maximum only when that walk meets
        it. So a malformed ROI (max < min) passes none, and a pixel the bins' rounding puts
        in a bin that the walk's rounding does not passes none from that bin. (Where the walk
        leaves the image's columns, Chainer's pixel index aliases a pixel of the next or
        previous row: it fails or adds to a wrong pixel; that is not reproduced.)
        """
        xp = backend.get_array_module(position)
        r, c, out_h, out_w = position.shape
        y_min, x_min, y_max, x_max = corners

        def walk_meets(size: int, first: Any, last: Any, extent: Any, bins: int) -> Any:
            # (R, bins, size): whether the walk visits the pixel (between the inclusive
            # corners) and maps it back to the bin.
            pixel = xp.arange(size)[None, :]
            offset = (pixel - first[:, None]).astype(numpy.float64)
            stride = (extent.astype(numpy.float64) / bins)[:, None]
            bin_first = xp.clip(xp.floor(offset / stride), 0, bins)
            bin_stop = xp.clip(xp.ceil((offset + 1) / stride), 0, bins)
            visited = (first[:, None] <= pixel) & (pixel <= last[:, None])
            index = xp.arange(bins)[None, :, None]
            return (visited[:, None, :] & (bin_first[:, None, :] <= index)
                    & (index < bin_stop[:, None, :]))

        rows_meet = walk_meets(height, y_min, y_max, roi_h, out_h)
        cols_meet = walk_meets(width, x_min, x_max, roi_w, out_w)
        roi = xp.arange(r)[:, None, None, None]
        return (rows_meet[roi, xp.arange(out_h)[:, None], position // width]
                & cols_meet[roi, xp.arange(out_w), position % width])

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
        TypeError: If ``outh`` or ``outw`` is not an integer.
        ValueError: If ``outh`` or ``outw`` is not positive (a zero is also the
            ZeroDivisionError Chainer raises), or ``spatial_scale`` is not finite.
        chainer_compat.utils.type_check.InvalidType: If ``x`` is not a 4-D float array or
            ``rois`` is not an ``(R, 5)`` array of ``x``'s dtype.

    Compat: the result can be differentiated twice (Chainer's raises NotImplementedError).
    """
    y: variable.Variable = ROIPooling2D(outh, outw, spatial_scale).apply((x, rois))[0]
    return y
