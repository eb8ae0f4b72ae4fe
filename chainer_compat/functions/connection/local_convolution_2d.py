"""``local_convolution_2d``: a convolution whose filters are not shared, one filter bank per
output position, with its two gradient nodes.

Layer 5: imports backend, variable, function_node, utils (type_check, conv) and
functions.math.sum.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.math.sum import sum as sum_
from chainer_compat.utils import type_check
from chainer_compat.utils.conv import _check_sizes, _size_tuple

# NOTE [local convolution as a bilinear map]
# y[n, o, i, j] = sum_{c, p, q} W[o, i, j, c, p, q] x[n, c, i sy + p, j sx + q] is linear in
# x and in W separately. Its gradients are two more bilinear maps, ``gx = _GradX(gy, W)`` and
# ``gW = _GradW(x, gy)``, and the gradients of those three maps are the same three maps with
# other arguments; so three FunctionNodes give gradients of any order.


def _patches(x: Any, out_size: tuple[int, ...], kernel: tuple[int, ...],
             stride: tuple[int, int]) -> Any:
    """A read-only view ``(n, c, out_h, out_w, k_h, k_w)`` of the windows of ``x``."""
    xp = backend.get_array_module(x)
    x = xp.ascontiguousarray(x)
    n_stride, c_stride, h_stride, w_stride = x.strides
    shape = x.shape[:2] + out_size + kernel
    strides = (n_stride, c_stride, h_stride * stride[0], w_stride * stride[1],
               h_stride, w_stride)
    return xp.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)


def _forward_array(x: Any, W: Any, stride: tuple[int, int]) -> Any:
    xp = backend.get_array_module(x)
    windows = _patches(x, W.shape[1:3], W.shape[4:6], stride)
    if xp is not numpy:
        y = xp.einsum("ncijpq,oijcpq->noij", windows, W, optimize=True)
        return utils.force_array(y, x.dtype)
    # compat: Chainer's CPU order, one product per output position (NumPy's dot of a single
    # row takes another BLAS routine than the batched products would, with other bits).
    n, out_channels, out_h, out_w = x.shape[0], W.shape[0], W.shape[1], W.shape[2]
    features = W.shape[3] * W.shape[4] * W.shape[5]
    y = numpy.empty((n, out_channels, out_h, out_w), dtype=x.dtype)
    for i in range(out_h):
        for j in range(out_w):
            y[:, :, i, j] = windows[:, :, i, j].reshape(n, features).dot(
                W[:, i, j].reshape(out_channels, features).T)
    return y


def _grad_x_array(gy: Any, W: Any, x_shape: tuple[int, ...], stride: tuple[int, int],
                  dtype: Any) -> Any:
    xp = backend.get_array_module(gy)
    out_h, out_w, _, kh, kw = W.shape[1:]
    sy, sx = stride
    gx = xp.zeros(x_shape, dtype=dtype)
    if xp is numpy:
        # compat: Chainer's CPU order: each window's product added whole, windows row-major.
        for i in range(out_h):
            for j in range(out_w):
                gx[:, :, i * sy:i * sy + kh, j * sx:j * sx + kw] += numpy.tensordot(
                    gy[:, :, i, j], W[:, i, j], axes=((1,), (0,)))
        return gx
    per_window = xp.einsum("noij,oijcpq->ncijpq", gy, W, optimize=True)
    # Windows overlap when the stride is smaller than the kernel, so add one offset at a time.
    for p in range(kh):
        for q in range(kw):
            gx[:, :, p:p + sy * out_h:sy, q:q + sx * out_w:sx] += per_window[..., p, q]
    return gx


def _grad_w_array(x: Any, gy: Any, w_shape: tuple[int, ...], stride: tuple[int, int],
                  dtype: Any) -> Any:
    xp = backend.get_array_module(x)
    windows = _patches(x, w_shape[1:3], w_shape[4:6], stride)
    if xp is numpy:
        # compat: Chainer's CPU order, one product per output position.
        gW = numpy.empty(w_shape, dtype=dtype)  # noqa: N806
        for i in range(w_shape[1]):
            for j in range(w_shape[2]):
                gW[:, i, j] = numpy.tensordot(gy[:, :, i, j], windows[:, :, i, j],
                                              axes=((0,), (0,)))
        return gW
    gW = xp.einsum("noij,ncijpq->oijcpq", gy, windows, optimize=True)  # noqa: N806
    return utils.force_array(gW, dtype)


class LocalConvolution2DFunction(FunctionNode):
    """Local (unshared) 2-D convolution; use :func:`local_convolution_2d`.

    Args:
        stride: Stride ``s`` or ``(s_Y, s_X)``.
    """

    def __init__(self, stride: Any = 1) -> None:
        self.sy, self.sx = _size_tuple(stride, 2, "stride")
        # A negative stride would read outside x. compat: a zero one (every output position
        # reads the first window) works, as in Chainer.
        _check_sizes("stride of local_convolution_2d", (self.sy, self.sx), stride, minimum=0,
                     negative_error=ValueError)

    def check_type_forward(self, in_types: Any) -> None:
        count = in_types.size()
        type_check.expect(2 <= count, count <= 3)
        x_type, w_type = in_types[:2]
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype.kind == "f",
            x_type.ndim == 4,
            w_type.ndim == 6,
            x_type.shape[1] == w_type.shape[3],
        )
        if type_check.eval(count) == 3:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 3,
                b_type.shape == w_type.shape[:3],
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        out_h, out_w, _, kh, kw = W.shape[1:]
        need_h, need_w = (out_h - 1) * self.sy + kh, (out_w - 1) * self.sx + kw
        if x.shape[2] < need_h or x.shape[3] < need_w:
            # compat: a ValueError, which is what Chainer's reshape raises here.
            raise ValueError(
                f"x must be at least {need_h}x{need_w} for an output of {out_h}x{out_w} "
                f"with filters {kh}x{kw} and stride ({self.sy}, {self.sx}), got "
                f"{x.shape[2]}x{x.shape[3]}; check W's shape against the input size")
        y = _forward_array(x, W, (self.sy, self.sx))
        if len(inputs) == 3:
            y += inputs[2][None]
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        stride = (self.sy, self.sx)
        grads: list[Any] = []
        if 0 in indexes:
            grads.append(_GradX(stride, x.shape, x.dtype).apply((gy, W))[0])
        if 1 in indexes:
            grads.append(_GradW(stride, W.shape, W.dtype).apply((x, gy))[0])
        if 2 in indexes:
            grads.append(sum_(gy, axis=0))
        return tuple(grads)


class _GradX(FunctionNode):
    """``(gy, W) -> gx`` of a local convolution; see NOTE [local convolution as a bilinear
    map]."""

    def __init__(self, stride: tuple[int, int], x_shape: tuple[int, ...], x_dtype: Any) -> None:
        self.stride = stride
        self.x_shape = x_shape
        self.x_dtype = x_dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        gy, W = inputs
        return _grad_x_array(gy, W, self.x_shape, self.stride, self.x_dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, W = self.get_retained_inputs()
        ggx, = grad_outputs
        grads: list[Any] = []
        if 0 in indexes:
            grads.append(LocalConvolution2DFunction(self.stride).apply((ggx, W))[0])
        if 1 in indexes:
            grads.append(_GradW(self.stride, W.shape, W.dtype).apply((ggx, gy))[0])
        return tuple(grads)


class _GradW(FunctionNode):
    """``(x, gy) -> gW`` of a local convolution; see NOTE [local convolution as a bilinear
    map]."""

    def __init__(self, stride: tuple[int, int], w_shape: tuple[int, ...], w_dtype: Any) -> None:
        self.stride = stride
        self.w_shape = w_shape
        self.w_dtype = w_dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return _grad_w_array(x, gy, self.w_shape, self.stride, self.w_dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        ggW, = grad_outputs
        grads: list[Any] = []
        if 0 in indexes:
            grads.append(_GradX(self.stride, x.shape, x.dtype).apply((gy, ggW))[0])
        if 1 in indexes:
            grads.append(LocalConvolution2DFunction(self.stride).apply((x, ggW))[0])
        return tuple(grads)


def local_convolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1) -> variable.Variable:
    """Two-dimensional local convolution: a convolution with a separate filter bank for each
    output position (no weight sharing) and no padding.

    ``y[n, o, i, j] = sum_{c, p, q} W[o, i, j, c, p, q] x[n, c, i s_Y + p, j s_X + q]
    (+ b[o, i, j])``.

    Args:
        x: Input ``(n, c_I, h, w)``.
        W: Filters ``(c_O, h_O, w_O, c_I, k_H, k_W)``; ``h_O`` and ``w_O`` are the output size,
            normally ``(h - k_H) // s_Y + 1`` and ``(w - k_W) // s_X + 1``.
        b: Bias ``(c_O, h_O, w_O)`` of ``x``'s dtype, or None.
        stride: Stride ``s`` or ``(s_Y, s_X)``.

    Returns:
        The output ``(n, c_O, h_O, w_O)``.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On mismatched shapes or dtypes.
        ValueError: If ``x`` is too small for the output size ``W`` implies (a larger ``x``
            is used from its top-left corner), or ``stride`` is negative or has more than two
            entries.
        TypeError: If ``stride`` is not an int or a pair of ints.
    """
    node = LocalConvolution2DFunction(stride)
    inputs = (x, W) if b is None else (x, W, b)
    y, = node.apply(inputs)
    return y
