"""``copy``: moves an array to another device (CPU or a GPU), differentiably.

Layer 5: imports backend, backends.cuda, variable, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.backends import cuda
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class Copy(FunctionNode):
    """Sends its input to ``out_device``; backward sends the gradient back to ``in_device``."""

    def __init__(self, in_device: backend.Device, out_device: backend.Device) -> None:
        self._in_device = in_device
        self.out_device = out_device

    @property
    def label(self) -> str:
        return "Copy"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # compat: an array already on out_device is the output as it is, no copy (Chainer
        # documents that the result then holds a view of the input).
        return self.out_device.send(inputs[0]),

    def _check_output_array(self, y: Any, on_numpy: bool, in_data: tuple[Any, ...]) -> None:
        # The output lives on out_device by design, whatever backend the input is on.
        if not self.out_device.is_array_supported(y):
            raise TypeError(
                f"forward output of Copy must be on {self.out_device}, got {type(y)}")

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return Copy(self.out_device, self._in_device).apply(grad_outputs)


def copy(x: Any, dst: Any) -> variable.Variable:
    """Copies ``x`` to the device ``dst``; the gradient flows back to ``x``'s device.

    Args:
        x: Input Variable or array.
        dst: A device specifier as ``chainer.get_device`` takes (``'@numpy'``,
            ``'@cupy:0'``, a ``Device``), or a legacy integer (-1 for the CPU, N for GPU N).

    Returns:
        A Variable whose array lives on ``dst``: ``x``'s own array when ``x`` is already
        there, as in Chainer; a copy otherwise.

    Raises:
        RuntimeError: If ``dst`` names a GPU and CUDA is not available.
    """
    if dst is cuda.DummyDevice:
        dst = backend.CpuDevice()
    in_device = backend.get_device_from_array(x.array if isinstance(x, variable.Variable) else x)
    out_device = backend.get_device(dst)
    y, = Copy(in_device, out_device).apply((x,))
    return y
