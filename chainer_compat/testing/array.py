"""``assert_allclose``: NumPy's closeness check for NumPy/CuPy arrays, Variables and scalars, with
Chainer's detailed failure report.

Layer 8: imports only numpy and `backend` (layer 1).
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend


def _to_numpy(value: Any) -> numpy.ndarray:
    # Variables (and anything else wrapping an array) expose it as `.array`.
    if not isinstance(value, numpy.ndarray) and hasattr(value, "array"):
        value = value.array
    if backend.is_cupy_array(value):
        value = value.get()
    return numpy.asarray(value)


def _error_arithmetic(a: numpy.ndarray) -> numpy.ndarray:
    # Booleans and integers are compared as float64 so that differences cannot wrap around.
    return a.astype(numpy.float64) if a.dtype.kind in "biu" else a


def _worst_element_report(x: numpy.ndarray, y: numpy.ndarray, atol: float, rtol: float) -> str:
    x = numpy.atleast_1d(x)
    y = numpy.atleast_1d(y)
    xx = _error_arithmetic(x)
    yy = _error_arithmetic(y)
    with numpy.errstate(invalid="ignore", over="ignore"):
        error = numpy.abs(xx - yy)
        relative_tolerance = rtol * numpy.abs(yy).astype(numpy.float64)
        tolerance = atol + relative_tolerance
        # The element that exceeds its own tolerance the most, NaNs first.
        flat_index = numpy.argmax(error.astype(numpy.float64) - tolerance)
        index = tuple(int(i) for i in numpy.unravel_index(flat_index, error.shape))
        relative: Any = "inf" if yy[index] == 0 else error[index] / numpy.abs(yy[index])
    # compat: Chainer's lines, which show how the failing element's tolerance adds up.
    return (
        f"  i: {index}\n"
        f"  x[i]: {x[index]}\n"
        f"  y[i]: {y[index]}\n"
        f"  relative error[i]: {relative}\n"
        f"  absolute error[i]: {error[index]}\n"
        f"  relative tolerance * |y[i]|: {relative_tolerance[index]}\n"
        f"  absolute tolerance: {atol}\n"
        f"  total tolerance: {tolerance[index]}\n")


def assert_allclose(x: Any, y: Any, atol: float = 1e-5, rtol: float = 1e-4,
                    verbose: bool = True) -> None:
    """Asserts that ``x`` and ``y`` agree elementwise within ``atol + rtol * |y|``.

    Accepts NumPy and CuPy arrays (even mixed), Variables and Python scalars; everything is
    compared on the CPU.

    Args:
        x: Left-hand side (the actual value).
        y: Right-hand side (the expected value).
        atol: Absolute tolerance.
        rtol: Relative tolerance.
        verbose: Whether NumPy's part of the message lists the conflicting values.

    Raises:
        AssertionError: If some elements differ too much, or the shapes do not broadcast. The
            message gives NumPy's report, the shapes and dtypes, the worst element's index, values,
            errors and tolerance (relative part, absolute part, total), and both arrays in full.
    """
    x = _to_numpy(x)
    y = _to_numpy(y)
    try:
        numpy.testing.assert_allclose(x, y, rtol=rtol, atol=atol, verbose=verbose)
    except AssertionError as error:
        report = [
            f"{error}\n\n",
            "assert_allclose failed:\n",
            f"  shape: {x.shape} {y.shape}\n",
            f"  dtype: {x.dtype} {y.dtype}\n",
        ]
        if x.shape == y.shape:
            report.append(_worst_element_report(x, y, atol, rtol))
        with numpy.printoptions(threshold=10000):
            report.append("x: " + numpy.array2string(x, prefix="x: ") + "\n")
            report.append("y: " + numpy.array2string(y, prefix="y: ") + "\n")
        raise AssertionError("".join(report)) from None


def _as_noncontiguous_array(array: Any) -> Any:
    """Returns a non-contiguous copy of an array (or of each array in a list or tuple).

    Used by tests to check that functions accept strided inputs; None and arrays of at most one
    element are returned as they are.
    """
    if isinstance(array, (list, tuple)):
        return type(array)([_as_noncontiguous_array(item) for item in array])
    if array is None or array.size <= 1:
        return array
    xp = backend.get_array_module(array)
    every_other = (slice(None, None, 2),) * array.ndim
    spread = xp.empty(tuple(2 * length for length in array.shape), dtype=array.dtype)
    spread[every_other] = array
    return spread[every_other]
