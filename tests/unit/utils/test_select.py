"""utils._select (NOTE [branch-free selection]): ``where`` and ``select`` give NumPy's ``where``
bits on either of their paths, NaN payloads and signed zeros included."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.utils import _select

# A NaN with a payload and a sign, to tell a copied NaN from a made one.
ODD_NAN = numpy.frombuffer(numpy.array([0xFFF0000000000123], numpy.uint64).tobytes(),
                           numpy.float64)[0]
SPECIAL = numpy.array([0.0, -0.0, numpy.inf, -numpy.inf, ODD_NAN, 1.5, -2.0])
# Below and above the size where the branch-free path takes over.
SIZES = [_select._MIN_SIZE - 1, _select._MIN_SIZE, 3 * _select._MIN_SIZE + 5]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _draw(rng, size, dtype):
    with numpy.errstate(invalid="ignore"):  # the NaN narrowed
        special = SPECIAL.astype(dtype)
    return special[rng.integers(0, len(SPECIAL), size)].reshape(-1, 1)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_where_gives_numpy_where_bits(size, dtype):
    rng = numpy.random.default_rng(size)
    chosen, other = _draw(rng, size, dtype), _draw(rng, size, dtype)
    condition = rng.random((size, 1)) < 0.5
    result = _select.where(condition, chosen, other)
    expected = numpy.where(condition, chosen, other)
    assert result.dtype == expected.dtype and result.shape == expected.shape
    assert result.flags.c_contiguous
    assert result.tobytes() == expected.tobytes()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_select_gives_where_with_zero_bits_even_for_infinities_and_nans(size, dtype):
    rng = numpy.random.default_rng(size + 1)
    values = _draw(rng, size, dtype)
    mask = rng.random((size, 1)) < 0.5
    result = _select.select(mask, values)
    expected = numpy.where(mask, values, dtype(0))
    assert result.dtype == dtype and result.tobytes() == expected.tobytes()
    assert not numpy.isnan(result[~mask]).any()  # a product with the mask would have NaNs


def test_select_reads_a_strided_view():
    rng = numpy.random.default_rng(5)
    values = _draw(rng, 4 * _select._MIN_SIZE, numpy.float32).reshape(-1, 4)[:, ::2]
    mask = rng.random(values.shape) < 0.5
    assert _select.select(mask, values).tobytes() == numpy.where(
        mask, values, numpy.float32(0)).tobytes()


@pytest.mark.parametrize("case", ["broadcast", "mixed dtypes", "strided", "integer mask",
                                  "long double"])
def test_where_falls_back_to_numpy_where_for_what_its_bits_cannot_do(case):
    size = 2 * _select._MIN_SIZE
    rng = numpy.random.default_rng(7)
    chosen = rng.standard_normal(size)
    other = -chosen
    condition = rng.random(size) < 0.5
    if case == "broadcast":
        other = numpy.float64(3.0) * numpy.ones(1)
    elif case == "mixed dtypes":
        other = other.astype(numpy.float32)
    elif case == "strided":
        chosen = numpy.repeat(chosen, 2)[::2]
    elif case == "integer mask":
        condition = condition.astype(numpy.int64) * 3
    else:
        chosen, other = chosen.astype(numpy.longdouble), other.astype(numpy.longdouble)
    result = _select.where(condition, chosen, other)
    expected = numpy.where(condition, chosen, other)
    assert result.dtype == expected.dtype
    assert result.tobytes() == expected.tobytes()


@pytest.mark.parametrize("mask_order", ["C", "F"])
@pytest.mark.parametrize("values_order", ["C", "F"])
def test_select_lays_its_result_out_as_where_does(mask_order, values_order):
    # A sum in memory order over the result (sum_to, say) rounds by its layout.
    rng = numpy.random.default_rng(9)
    shape = (_select._MIN_SIZE // 16, 32)
    mask = numpy.asarray(rng.random(shape) < 0.5, order=mask_order)
    values = numpy.asarray(rng.standard_normal(shape), order=values_order)
    result = _select.select(mask, values)
    expected = numpy.where(mask, values, 0.0)
    assert result.strides == expected.strides
    assert result.tobytes(order="A") == expected.tobytes(order="A")
