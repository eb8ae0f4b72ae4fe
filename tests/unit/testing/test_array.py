"""Tests for chainer_compat.testing.array: assert_allclose and its failure report."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import testing
from chainer_compat.testing import attr
from chainer_compat.testing.array import _as_noncontiguous_array


class ArrayHolder:
    """Stands in for a Variable: the array is its ``.array``."""

    def __init__(self, array):
        self.array = array


def test_passes_within_tolerance():
    x = numpy.array([1.0, 2.0, 3.0], dtype=numpy.float32)
    testing.assert_allclose(x, x + 1e-6)
    testing.assert_allclose(x, x * (1 + 5e-5), atol=0)


def test_accepts_scalars_lists_and_array_holders():
    testing.assert_allclose(1.0, 1.0 + 1e-7)
    testing.assert_allclose([1, 2], numpy.array([1.0, 2.0]))
    testing.assert_allclose(ArrayHolder(numpy.ones(3)), ArrayHolder(numpy.ones(3)))
    with pytest.raises(AssertionError):
        testing.assert_allclose(ArrayHolder(numpy.ones(3)), numpy.zeros(3))


def test_failure_reports_worst_element_errors_and_both_arrays():
    x = numpy.array([[1.0, 2.0], [3.0, 4.0]])
    y = numpy.array([[1.0, 2.5], [3.0, 4.1]])
    with pytest.raises(AssertionError) as info:
        testing.assert_allclose(x, y)
    message = str(info.value)
    assert "Not equal to tolerance" in message  # NumPy's own report comes first
    assert "assert_allclose failed:" in message
    assert "shape: (2, 2) (2, 2)" in message
    assert "dtype: float64 float64" in message
    assert "i: (0, 1)" in message  # 0.5 off beats 0.1 off
    assert "x[i]: 2.0" in message and "y[i]: 2.5" in message
    assert "relative error[i]: 0.2" in message
    assert "absolute error[i]: 0.5" in message
    # Chainer's breakdown of that element's tolerance: 1e-4 * 2.5 + 1e-5
    assert "relative tolerance * |y[i]|: 0.00025" in message
    assert "absolute tolerance: 1e-05" in message
    assert "total tolerance: 0.00026" in message
    assert "assert_allclose failed: " not in message  # no trailing space, as in Chainer
    assert "x: [[1. 2.]\n    [3. 4.]]" in message
    assert "y: [[1.  2.5]\n    [3.  4.1]]" in message


def test_failure_against_zero_reports_infinite_relative_error():
    with pytest.raises(AssertionError, match=r"relative error\[i\]: inf"):
        testing.assert_allclose(numpy.array([1.0]), numpy.array([0.0]))


def test_respects_given_tolerances():
    x = numpy.array([1.0])
    y = numpy.array([1.01])
    with pytest.raises(AssertionError):
        testing.assert_allclose(x, y)
    testing.assert_allclose(x, y, atol=0.02, rtol=0)
    testing.assert_allclose(x, y, atol=0, rtol=0.02)


def test_nan_is_reported_first():
    with pytest.raises(AssertionError) as info:
        testing.assert_allclose(numpy.array([1.0, numpy.nan, 5.0]), numpy.array([1.0, 1.0, 1.0]))
    message = str(info.value)
    assert "i: (1,)" in message and "x[i]: nan" in message
    assert "absolute error[i]: nan" in message


def test_shape_mismatch_reports_both_shapes():
    with pytest.raises(AssertionError, match=r"shape: \(2,\) \(3,\)"):
        testing.assert_allclose(numpy.zeros(2), numpy.zeros(3))


def test_integer_and_boolean_arrays_do_not_wrap_around():
    x = numpy.array([0, 200], dtype=numpy.uint8)
    y = numpy.array([0, 100], dtype=numpy.uint8)
    with pytest.raises(AssertionError, match=r"absolute error\[i\]: 100"):
        testing.assert_allclose(x, y)
    with pytest.raises(AssertionError, match=r"i: \(1,\)"):
        testing.assert_allclose(numpy.array([True, False]), numpy.array([True, True]))


def test_noncontiguous_copy_keeps_values():
    x = numpy.arange(6.0).reshape(2, 3)
    copy = _as_noncontiguous_array(x)
    assert not copy.flags.c_contiguous
    numpy.testing.assert_array_equal(copy, x)
    pair = _as_noncontiguous_array((x, None))
    assert isinstance(pair, tuple) and pair[1] is None


@attr.gpu
def test_compares_cupy_with_numpy():
    cupy = pytest.importorskip("cupy")
    x = numpy.arange(4.0)
    testing.assert_allclose(cupy.asarray(x), x)
    with pytest.raises(AssertionError, match=r"absolute error\[i\]: 1.0"):
        testing.assert_allclose(cupy.asarray(x) + 1, x)
