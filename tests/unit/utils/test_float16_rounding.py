"""round_to_float16 against NumPy's own cast to float16 and back, on float32 bit patterns
chosen to cover every exponent, the rounding ties, the overflow edge and the subnormals; and
float16_steps against NumPy's float16 loops."""

from __future__ import annotations

import warnings

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from chainer_compat.utils._float16_rounding import float16_steps, round_to_float16


def _cast_round_trip(values):
    with numpy.errstate(over="ignore"):
        return values.astype(numpy.float16).astype(numpy.float32)


def _same(a, b) -> bool:
    """Equal bits, or NaN in both (the payload of a NaN is not specified)."""
    same_bits = a.view(numpy.uint32) == b.view(numpy.uint32)
    return bool(numpy.all(same_bits | (numpy.isnan(a) & numpy.isnan(b))))


def _rounded(values):
    values = values.copy()
    with numpy.errstate(over="ignore"):
        round_to_float16(values)
    return values


def test_every_float32_in_the_edge_ranges_rounds_as_the_cast():
    # Every float32 magnitude near zero, around float16's smallest subnormal (2**-24) and
    # smallest normal (2**-14), around 65504 and 65520 (the first that rounds to inf), inf and
    # the NaNs next to it and the largest NaN payloads (which a carry would wrap), both signs.
    ranges = [(0, 0x0010_0000), (0x3370_0000, 0x3390_0000), (0x3870_0000, 0x3890_0000),
              (0x477F_0000, 0x4790_0000), (0x7F80_0000, 0x7F88_0000), (0x7FF8_0000, 0x8000_0000)]
    for low, high in ranges:
        magnitudes = numpy.arange(low, high, dtype=numpy.uint64).astype(numpy.uint32)
        for sign in (0, 0x8000_0000):
            values = (magnitudes | numpy.uint32(sign)).view(numpy.float32)
            assert _same(_rounded(values), _cast_round_trip(values)), (hex(low), sign)


def test_random_float32_bit_patterns_round_as_the_cast():
    rng = numpy.random.default_rng(0)
    values = rng.integers(0, 2**32, 2**22, dtype=numpy.uint64).astype(numpy.uint32)
    values = values.view(numpy.float32)
    assert _same(_rounded(values), _cast_round_trip(values))


def test_rounds_a_strided_view_in_place_and_leaves_the_rest():
    base = numpy.linspace(-3, 3, 40, dtype=numpy.float32).reshape(5, 8) + numpy.float32(1e-4)
    expected = base.copy()
    expected[:, ::3] = _cast_round_trip(base[:, ::3])
    view = base[:, ::3]
    round_to_float16(view)
    assert _same(base, expected)
    assert not _same(base, base.astype(numpy.float16).astype(numpy.float32))


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_a_few_values_outside_the_normal_range_among_many_inside(layout):
    # Fewer than an eighth outside: those are cast one by one, the rest rounded by bits.
    rng = numpy.random.default_rng(7)
    values = (rng.standard_normal((6, 50, 40)) * 100).astype(numpy.float32)
    specials = numpy.array([1e-6, -3e-8, 1e-45, 65519.0, 65520.0, -7e4, numpy.inf, -numpy.inf,
                            numpy.nan, 0.0, -0.0, 6.1e-5], numpy.float32)
    flat = values.reshape(-1)
    flat[rng.choice(flat.size, 300, replace=False)] = rng.choice(specials, 300)
    if layout == "F":
        values = numpy.asfortranarray(values)
    elif layout == "strided":
        values = values[:, ::2, 1::3]
    expected = _cast_round_trip(values)
    with numpy.errstate(over="ignore"):
        round_to_float16(values)
    assert _same(values, expected)


OPERATIONS = st.sampled_from([numpy.subtract, numpy.multiply, numpy.add])


@settings(max_examples=200, deadline=None)
@given(data=st.data(), operations=st.lists(OPERATIONS, min_size=1, max_size=4))
def test_steps_match_numpy_float16_loops(data, operations):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=6))
    elements = st.floats(width=16, allow_nan=True, allow_infinity=True)
    first = data.draw(hnp.arrays(numpy.float16, shape, elements=elements))
    steps = []
    for operation in operations:
        # Operands broadcast into the first array's shape, as the normalizations' do.
        kept = tuple(data.draw(st.sampled_from([1, side])) for side in shape)
        operand_shape = kept[data.draw(st.integers(0, len(shape))):]
        steps.append((operation, data.draw(hnp.arrays(numpy.float16, operand_shape,
                                                      elements=elements))))
    expected = first
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for operation, operand in steps:
            expected = operation(expected, operand)
        result = float16_steps(first, *steps)
    assert result.dtype == numpy.float16
    assert result.shape == expected.shape
    assert _same(result.astype(numpy.float32), expected.astype(numpy.float32))


def test_normalization_steps_round_after_each_step_as_numpy_does():
    # x - mean, * inv_std, * gamma, + beta on ordinary data: skipping a rounding between the
    # steps changes almost half of these results.
    rng = numpy.random.default_rng(3)
    x = (rng.standard_normal((64, 8, 5)) * 3 + 1).astype(numpy.float16)
    mean, inv_std, gamma, beta = (
        (rng.standard_normal((1, 8, 1)) * scale).astype(numpy.float16)
        for scale in (1.0, 2.0, 1.5, 0.5))
    expected = (((x - mean) * inv_std) * gamma) + beta
    result = float16_steps(x, (numpy.subtract, mean), (numpy.multiply, inv_std),
                           (numpy.multiply, gamma), (numpy.add, beta))
    assert result.dtype == numpy.float16
    assert numpy.array_equal(result, expected)


@pytest.mark.parametrize("operation", [numpy.subtract, numpy.multiply, numpy.add])
def test_an_overflowing_step_gives_inf_as_numpy_does(operation):
    big = numpy.full(3, 60000, numpy.float16)
    with numpy.errstate(over="ignore"):
        expected = operation(operation(big, big), big)
        result = float16_steps(big, (operation, big), (operation, big))
    assert _same(result.astype(numpy.float32), expected.astype(numpy.float32))


@pytest.mark.parametrize("operation", [numpy.subtract, numpy.multiply, numpy.add])
def test_an_overflow_warns_or_raises_under_numpys_errstate(operation):
    big = numpy.full(3, 60000, numpy.float16)
    other = -big if operation is numpy.subtract else big
    with pytest.warns(RuntimeWarning, match="overflow"):
        result = float16_steps(big, (operation, other), (numpy.add, big))
    assert numpy.isinf(result).all()
    with numpy.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow"):
        float16_steps(big, (operation, other), (numpy.add, big))


def test_results_are_plain_ndarrays_with_numpys_layout(tmp_path):
    data = numpy.arange(24, dtype=numpy.float16).reshape(2, 3, 4) / numpy.float16(7)
    mapped = numpy.memmap(tmp_path / "x.bin", numpy.float16, "w+", shape=data.shape)
    mapped[...] = data
    result = float16_steps(mapped, (numpy.multiply, numpy.float16(3)))
    assert type(result) is numpy.ndarray
    assert numpy.array_equal(result, data * numpy.float16(3))
    transposed = data.transpose(2, 0, 1)
    result = float16_steps(transposed, (numpy.add, numpy.float16(1)))
    expected = transposed + numpy.float16(1)
    assert result.strides == expected.strides
    assert numpy.array_equal(result, expected)
