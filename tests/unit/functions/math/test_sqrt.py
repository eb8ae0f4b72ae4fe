"""sqrt and rsqrt: values, gradients, type errors, NaN for negative inputs."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.math.sqrt import Sqrt, rsqrt, sqrt
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_sqrt_values_and_gradients(shape, dtype, uniform, check_function):
    check_function(sqrt, (uniform(shape, dtype, 0.5, 2.0),), numpy.sqrt)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_rsqrt_values_and_gradients(shape, dtype, uniform, check_function):
    check_function(rsqrt, (uniform(shape, dtype, 0.5, 2.0),), lambda x: 1.0 / numpy.sqrt(x))


def test_negative_input_gives_nan_like_numpy():
    with numpy.errstate(invalid="ignore"):
        y = sqrt(numpy.array([-1.0, 4.0], numpy.float32))
    assert numpy.isnan(y.array[0])
    assert y.array[1] == 2.0


def test_label_and_type_check():
    assert Sqrt().label == "sqrt"
    with pytest.raises(type_check.InvalidType, match=r"sqrt \(Forward\)"):
        sqrt(numpy.arange(3))
    with pytest.raises(type_check.InvalidType):
        rsqrt(numpy.arange(3))


@pytest.mark.gpu
def test_rsqrt_on_gpu_is_one_fused_node():
    cupy = pytest.importorskip("cupy")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - without a driver CuPy raises its own error
        count = 0
    if count < 1:
        pytest.skip("needs a CUDA device")
    x = cupy.asarray(numpy.random.uniform(0.5, 2.0, 3).astype(numpy.float32))
    y = rsqrt(x)
    assert y.creator.label == "rsqrt"
    numpy.testing.assert_allclose(y.array.get(), 1.0 / numpy.sqrt(x.get()), rtol=1e-6)
