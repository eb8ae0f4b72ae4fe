"""Checks and gradient plumbing shared by the 2-D and N-d (de)convolution nodes: their common
backward, the bias and ``outsize`` type checks, the empty-output error, and the crop of a
gradient to its input's size.

Layer 5: imports function_node, type_check, ``utils.conv`` and ``functions.math.sum``; no array
work beyond a view.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import conv, type_check
from chainer_compat.utils._assertions import AssertValueError

_CONVOLUTION_ADVICE = "Use a larger input, more padding, or a smaller kernel or dilation."
_DECONVOLUTION_ADVICE = "Use less padding or a larger kernel."


class ConvolutionNode(FunctionNode):
    """Base of the (de)convolution nodes, whose inputs are ``(x, W)`` or ``(x, W, b)``: one
    backward that asks the subclass for x's and W's gradients, each only when wanted.

    A subclass retains ``x`` and ``W`` in forward and defines :meth:`_x_grad` and
    :meth:`_w_grad`; the bias's gradient is ``gy`` summed over all axes but the channels.
    """

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, w = self.get_retained_inputs()
        gy, = grad_outputs
        grads: list[Any] = []
        if 0 in indexes:
            grads.append(self._x_grad(x, w, gy))
        if 1 in indexes:
            grads.append(self._w_grad(x, w, gy))
        if 2 in indexes:
            grads.append(_sum(gy, axis=(0,) + tuple(range(2, gy.ndim))))
        return tuple(grads)

    def _x_grad(self, x: Any, w: Any, gy: Any) -> Any:
        """The gradient for ``x``, a Variable differentiable again."""
        raise NotImplementedError

    def _w_grad(self, x: Any, w: Any, gy: Any) -> Any:
        """The gradient for ``W``, a Variable differentiable again."""
        raise NotImplementedError


def check_geometry(strides: tuple[int, ...], pads: tuple[int, ...], dilates: tuple[int, ...],
                   stride: Any, pad: Any, dilate: Any,
                   negative_stride_error: type[Exception] = AssertValueError) -> None:
    """Checks the strides, paddings and dilations read from the arguments ``stride``, ``pad``
    and ``dilate``.

    Raises:
        ValueError: If a dilation or stride is below 1 or a padding is negative; each error
            is also the exception Chainer fails with there (see ``conv._check_sizes``), a
            negative stride ``negative_stride_error``.
    """
    if min(dilates) >= 1 and min(strides) >= 1 and min(pads) >= 0:
        return
    for size in dilates:
        if size < 1:
            # compat: Chainer's sentence first, which users may match on.
            raise AssertValueError(
                f"Dilate should be positive, but {dilate} is supplied.\n"
                f"dilate must be at least 1 (1 means no dilation), got {dilate!r}")
    conv._check_sizes("stride", strides, stride, negative_error=negative_stride_error)
    conv._check_sizes("pad", pads, pad, minimum=0)


def expect_x_and_w(in_types: Any, ndim: int) -> tuple[Any, Any]:
    """Type-checks that there are two or three inputs and that ``x`` and ``W`` are float arrays
    of ``ndim`` axes; returns their types for the checks that differ per function."""
    n_in = in_types.size()
    type_check.expect(2 <= n_in, n_in <= 3)
    x_type, w_type = in_types[:2]
    type_check.expect(
        x_type.dtype.kind == "f",
        w_type.dtype.kind == "f",
        x_type.ndim == ndim,
        w_type.ndim == ndim,
    )
    return x_type, w_type


def expect_bias(in_types: Any, out_channels: Any, x_type: Any = None) -> None:
    """Type-checks the optional third input, the bias: one axis of ``out_channels`` entries.

    Args:
        in_types: The node's input types.
        out_channels: The output channel count, as a type-check expression.
        x_type: ``x``'s type where the bias must share its dtype (the 2-D functions); None
            where any float dtype will do (the N-d functions).
    """
    if type_check.eval(in_types.size()) != 3:
        return
    b_type = in_types[2]
    type_check.expect(
        b_type.dtype.kind == "f" if x_type is None else b_type.dtype == x_type.dtype,
        b_type.ndim == 1,
    )
    # Only once the bias is known to have an axis: a 0-d one fails the check above.
    type_check.expect(b_type.shape[0] == out_channels)


def expect_outsize_fits(x_type: Any, w_type: Any, outsize: tuple[Any, ...],
                        stride: tuple[int, ...], pad: tuple[int, ...],
                        dilate: tuple[int, ...]) -> None:
    """Type-checks that a convolution maps each given deconvolution output size back to x's.

    A size of None (to be computed by forward) is skipped. The convolution may or may not
    use ``cover_all``, so x's size must lie between the two results.
    """
    for axis, (size, s, p, d) in enumerate(zip(outsize, stride, pad, dilate), start=2):
        if size is None:
            continue
        # compat: the bounds stay expressions of W's shape, so that the Expect line reads as
        # Chainer's does.
        kernel = w_type.shape[axis]
        lower = conv.get_conv_outsize(size, kernel, s, p, d=d)
        upper = conv.get_conv_outsize(size, kernel, s, p, cover_all=True, d=d)
        type_check.expect(lower <= x_type.shape[axis], x_type.shape[axis] <= upper)


def empty_output_error(function: str, outs: tuple[int, ...], spatial: tuple[int, ...],
                       ksize: tuple[int, ...], stride: tuple[int, ...], pad: tuple[int, ...],
                       dilate: tuple[int, ...], transposed: bool) -> conv._EmptyOutputError:
    """The error for a (de)convolution whose output would be empty, with its geometry.

    Args:
        function: The public function's name, e.g. ``"convolution_2d"``.
        outs: The output's spatial sizes, one of them not positive.
        spatial: The input's spatial sizes.
        ksize: The kernel's spatial sizes.
        stride: The strides.
        pad: The paddings.
        dilate: The dilations.
        transposed: Whether it is a deconvolution, which changes the advice.
    """
    advice = _DECONVOLUTION_ADVICE if transposed else _CONVOLUTION_ADVICE
    return conv._EmptyOutputError(
        f"{conv._chainer_empty_output_sentence(outs, transposed, function.endswith('2d'))}\n"
        f"output size of {function} must be positive, got {outs}\n"
        f"Input size: {spatial}\nKernel size: {ksize}\n"
        f"Stride: {stride}\nPad: {pad}\nDilate: {dilate}\n{advice}")


def crop_to(y: Any, shape: tuple[int, ...]) -> Any:
    """``y`` without the trailing entries past ``shape`` on each spatial axis (a view).

    ``cover_all`` is one flag for all axes, so where only some axes of a deconvolution's
    ``outsize`` need it, the convolution that is its gradient adds a last window on the others
    too; the windows before it are the same, so dropping it gives the exact result (Chainer
    fails there instead).
    """
    if y.shape[2:] == tuple(shape[2:]):
        return y
    return y[(slice(None), slice(None)) + tuple(slice(0, s) for s in shape[2:])]
