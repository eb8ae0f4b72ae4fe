"""``fft`` and ``ifft``: the discrete Fourier transform (and its inverse) over the last axis
of a complex array given as a ``(real, imag)`` pair.

Layer 5: imports numpy, backend, function_node and type_check.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class FFT(FunctionNode):
    """Fourier transform of a ``(real, imag)`` pair. Use :func:`fft` or :func:`ifft`.

    Args:
        method: ``'fft'`` or ``'ifft'``.
    """

    def __init__(self, method: str) -> None:
        self._method = method

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("real", "imag"))
        real_type, imag_type = in_types
        type_check.expect(
            real_type.dtype.kind == "f",
            real_type.ndim > 0,
            real_type.shape == imag_type.shape,
            real_type.dtype == imag_type.dtype,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        real, imag = inputs
        xp = backend.get_array_module(real)
        x = real + 1j * imag
        if xp is numpy:
            # compat: NumPy 1, under Chainer, transformed single precision in double and rounded
            # once; NumPy 2 keeps complex64 and rounds at every stage.
            x = x.astype(numpy.complex128, copy=False)
        y = getattr(xp.fft, self._method)(x)
        return (y.real.astype(real.dtype, copy=False), y.imag.astype(imag.dtype, copy=False))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        g_real, g_imag = grad_outputs
        if g_real is None:
            g_real = variable.Variable(g_imag.xp.zeros_like(g_imag.array))
        if g_imag is None:
            g_imag = variable.Variable(g_real.xp.zeros_like(g_real.array))
        # The transform matrix M is symmetric, so the gradient conj(M) g equals
        # i * conj(M (i * conj(g))): transform the swapped pair and swap the result back.
        swapped_imag, swapped_real = FFT(self._method).apply((g_imag, g_real))
        grads = {0: swapped_real, 1: swapped_imag}
        return tuple(grads[i] for i in indexes)


def fft(x: tuple[Any, Any]) -> tuple[variable.Variable, variable.Variable]:
    """Fast Fourier transform over the last axis.

    Args:
        x: ``(real, imag)``: float arrays or Variables of one shape and dtype, holding the
            real and imaginary parts of the input.

    Returns:
        ``(real, imag)`` of the transform, as Variables of the input's shape and dtype.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On mismatched or non-float parts.
    """
    real, imag = x
    return FFT("fft").apply((real, imag))  # type: ignore[return-value]


def ifft(x: tuple[Any, Any]) -> tuple[variable.Variable, variable.Variable]:
    """Inverse fast Fourier transform over the last axis (normalized by ``1 / n``).

    Args:
        x: ``(real, imag)``: float arrays or Variables of one shape and dtype.

    Returns:
        ``(real, imag)`` of the inverse transform, as Variables.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On mismatched or non-float parts.
    """
    real, imag = x
    return FFT("ifft").apply((real, imag))  # type: ignore[return-value]
