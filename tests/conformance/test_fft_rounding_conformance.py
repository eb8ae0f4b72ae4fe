"""fft and ifft of float32 parts round once, from a double-precision transform, as Chainer's
CPU code did under NumPy 1 (NumPy 2 keeps single precision throughout). Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


@pytest.mark.parametrize("method", ["fft", "ifft"])
@pytest.mark.parametrize("length", [8, 100, 1000])
def test_float32_transform_rounds_once_from_double(method, length):
    rng = numpy.random.RandomState(0)
    real, imag = (rng.standard_normal((4, length)).astype(numpy.float32) for _ in range(2))
    y_real, y_imag = getattr(F, method)((real, imag))
    reference = getattr(numpy.fft, method)(real.astype(numpy.float64)
                                           + 1j * imag.astype(numpy.float64))
    numpy.testing.assert_array_equal(y_real.array, reference.real.astype(numpy.float32))
    numpy.testing.assert_array_equal(y_imag.array, reference.imag.astype(numpy.float32))
