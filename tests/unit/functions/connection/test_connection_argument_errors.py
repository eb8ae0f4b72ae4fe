"""Bad size arguments of the connection functions: each error is ours (a ValueError or a
TypeError saying what is wrong) and also the exception Chainer 7.8.1 raises there, and where
Chainer has a sentence of its own, the message starts with it."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat.functions as F
from chainer_compat.utils import type_check


def _f32(*shape):
    return numpy.random.RandomState(0).uniform(-1, 1, shape).astype(numpy.float32)


CONVOLUTIONS = {
    "convolution_2d": lambda **k: F.convolution_2d(_f32(1, 2, 4, 4), _f32(3, 2, 2, 2), **k),
    "dilated_convolution_2d": lambda **k: F.dilated_convolution_2d(
        _f32(1, 2, 4, 4), _f32(3, 2, 2, 2), **k),
    "convolution_1d": lambda **k: F.convolution_1d(_f32(1, 2, 4), _f32(3, 2, 2), **k),
    "convolution_3d": lambda **k: F.convolution_3d(_f32(1, 2, 4, 4, 4), _f32(3, 2, 2, 2, 2), **k),
    "convolution_nd": lambda **k: F.convolution_nd(_f32(1, 2, 4, 4), _f32(3, 2, 2, 2), **k),
    "deconvolution_2d": lambda **k: F.deconvolution_2d(_f32(1, 2, 3, 3), _f32(2, 3, 2, 2), **k),
    "deconvolution_1d": lambda **k: F.deconvolution_1d(_f32(1, 2, 3), _f32(2, 3, 2), **k),
    "deconvolution_3d": lambda **k: F.deconvolution_3d(
        _f32(1, 2, 3, 3, 3), _f32(2, 3, 2, 2, 2), **k),
    "deconvolution_nd": lambda **k: F.deconvolution_nd(_f32(1, 2, 3, 3), _f32(2, 3, 2, 2), **k),
}
ONE_D = ("convolution_1d", "deconvolution_1d")


@pytest.mark.parametrize("name", sorted(CONVOLUTIONS))
@pytest.mark.parametrize("argument", ["stride", "pad", "dilate"])
@pytest.mark.parametrize("value", [1.5, 2.0, "str", None])
def test_non_integer_size_raises_type_error(name, argument, value):
    if value == "str":
        # A str of the right length: Chainer reads it as a sequence of str.
        value = "2" * {"convolution_1d": 1, "deconvolution_1d": 1, "convolution_3d": 3,
                       "deconvolution_3d": 3}.get(name, 2)
    with pytest.raises(TypeError, match=f"^{argument} must be an int or a sequence of "):
        CONVOLUTIONS[name](**{argument: value})


@pytest.mark.parametrize("name", sorted(CONVOLUTIONS))
@pytest.mark.parametrize("value", [numpy.int64(1), numpy.int32(1), numpy.array(1)])
def test_integer_like_sizes_work(name, value):
    reference = CONVOLUTIONS[name]()
    y = CONVOLUTIONS[name](stride=value, pad=value * 0, dilate=value)
    numpy.testing.assert_array_equal(y.array, reference.array)


@pytest.mark.parametrize("name", sorted(set(CONVOLUTIONS) - set(ONE_D)))
def test_size_of_wrong_length_is_value_and_assertion_error(name):
    with pytest.raises(ValueError, match="^stride must be an int or a sequence of") as info:
        CONVOLUTIONS[name](stride="2")
    assert isinstance(info.value, AssertionError)


@pytest.mark.parametrize("name", sorted(CONVOLUTIONS))
def test_zero_stride_is_also_zero_division_error(name):
    with pytest.raises(ValueError, match="^stride must be positive, got 0") as info:
        CONVOLUTIONS[name](stride=0)
    assert isinstance(info.value, ZeroDivisionError)


# Chainer's deconvolutions accept a negative pad (ours refuse it), and its deconvolution_2d
# fails on a negative stride with a RuntimeError (next test).
@pytest.mark.parametrize("name, argument, value, message", [
    (name, "stride", -1, "^stride must be positive, got -1")
    for name in sorted(CONVOLUTIONS) if name != "deconvolution_2d"
] + [
    (name, "pad", -3, "^pad must be non-negative, got -3")
    for name in sorted(CONVOLUTIONS) if not name.startswith("deconvolution")
])
def test_negative_stride_or_pad_is_also_assertion_error(name, argument, value, message):
    with pytest.raises(ValueError, match=message) as info:
        CONVOLUTIONS[name](**{argument: value})
    assert isinstance(info.value, AssertionError)


def test_negative_stride_of_deconvolution_2d_is_also_runtime_error():
    with pytest.raises(ValueError, match="^stride must be positive, got -1") as info:
        CONVOLUTIONS["deconvolution_2d"](stride=-1)
    assert isinstance(info.value, RuntimeError)


@pytest.mark.parametrize("name", sorted(CONVOLUTIONS))
@pytest.mark.parametrize("dilate", [0, -1, (1, 0)])
def test_bad_dilate_message_starts_with_chainers_sentence(name, dilate):
    if isinstance(dilate, tuple):
        dilate = dilate[-1:] if name in ONE_D else dilate + (1,) * ("3d" in name)
    sentence = f"Dilate should be positive, but {dilate} is supplied."
    with pytest.raises(ValueError) as info:
        CONVOLUTIONS[name](dilate=dilate)
    assert str(info.value).startswith(sentence + "\n")
    assert isinstance(info.value, AssertionError)


@pytest.mark.parametrize("name, sentence", [
    ("convolution_2d", "Height in the output should be positive."),
    ("convolution_nd", "Output sizes should be positive."),
    ("deconvolution_nd", "Output sizes should be positive."),
])
def test_empty_output_message_starts_with_chainers_sentence(name, sentence):
    arguments = dict(pad=100) if name.startswith("de") else dict(dilate=100)
    with pytest.raises(RuntimeError) as info:
        CONVOLUTIONS[name](**arguments)
    assert str(info.value).startswith(sentence + "\n")
    assert isinstance(info.value, AssertionError)


def test_empty_output_of_deconvolution_2d_starts_with_chainers_sentence():
    with pytest.raises(RuntimeError, match=r"^Height in the output must be positive\.\n"):
        CONVOLUTIONS["deconvolution_2d"](pad=100)


@pytest.mark.parametrize("name", [n for n in CONVOLUTIONS if n.startswith("deconvolution")])
def test_zero_dimensional_bias_of_deconvolution_fails_the_type_check(name):
    with pytest.raises(type_check.InvalidType, match=r"in_types\[2\]\.ndim == 1"):
        CONVOLUTIONS[name](b=numpy.ones((), numpy.float32))


@pytest.mark.parametrize("name", [n for n in CONVOLUTIONS if n.startswith("deconvolution")])
def test_deconvolution_outsize_check_reads_as_chainers(name):
    ndim = {"deconvolution_1d": 1, "deconvolution_3d": 3}.get(name, 2)
    expect = (r"Expect: \(10 - \(in_types\[1\]\.shape\[2\] \+ \(in_types\[1\]\.shape\[2\] - 1\)"
              r" \* 0\)\) // 1 \+ 1 <= in_types\[0\]\.shape\[2\]")
    with pytest.raises(type_check.InvalidType, match=expect):
        CONVOLUTIONS[name](outsize=(10,) * ndim)


@pytest.mark.parametrize("name", [n for n in CONVOLUTIONS if n.startswith("deconvolution")])
def test_non_integer_deconvolution_outsize_raises_type_error(name):
    ndim = {"deconvolution_1d": 1, "deconvolution_3d": 3}.get(name, 2)
    with pytest.raises(TypeError, match="^outsize must be an int or a sequence of"):
        CONVOLUTIONS[name](outsize=(4.0,) * ndim)


def test_shift_rejects_a_negative_ksize():
    with pytest.raises(ValueError, match="^ksize of shift must be positive, got -1"):
        F.shift(_f32(1, 9, 4, 4), ksize=-1)


def test_shift_zero_dilate_is_also_zero_division_error():
    with pytest.raises(ValueError, match="^dilate of shift must not be zero, got 0") as info:
        F.shift(_f32(1, 9, 4, 4), ksize=3, dilate=0)
    assert isinstance(info.value, ZeroDivisionError)


@pytest.mark.parametrize("kwargs, error", [
    (dict(ksize=1.5), TypeError),
    (dict(dilate=1.5), TypeError),
    (dict(ksize="2"), ValueError),
    (dict(ksize=(3, 3, 3)), ValueError),
])
def test_shift_rejects_non_integer_sizes(kwargs, error):
    with pytest.raises(error, match=f"^{next(iter(kwargs))} must be an int or a sequence"):
        F.shift(_f32(1, 9, 4, 4), **kwargs)


def test_shift_takes_numpy_integers():
    expected = F.shift(_f32(1, 9, 4, 4), ksize=3, dilate=2)
    y = F.shift(_f32(1, 9, 4, 4), ksize=numpy.int64(3), dilate=numpy.int32(2))
    numpy.testing.assert_array_equal(y.array, expected.array)


@pytest.mark.parametrize("stride", [-1, (1, -3)])
def test_local_convolution_rejects_a_negative_stride(stride):
    with pytest.raises(ValueError, match="^stride of local_convolution_2d must be non-negative"):
        F.local_convolution_2d(_f32(1, 2, 4, 4), _f32(3, 3, 3, 2, 2, 2), stride=stride)


@pytest.mark.parametrize("stride, error", [(1.5, TypeError), ("2", ValueError)])
def test_local_convolution_rejects_a_non_integer_stride(stride, error):
    with pytest.raises(error, match="^stride must be an int or a sequence of 2 ints"):
        F.local_convolution_2d(_f32(1, 2, 4, 4), _f32(3, 3, 3, 2, 2, 2), stride=stride)


def test_linear_message_starts_with_chainers_sentence():
    with pytest.raises(ValueError, match=r"^n_batch_axes should be greater than 0\.\n"):
        F.linear(_f32(2, 3), _f32(4, 3), n_batch_axes=0)


def test_bilinear_message_starts_with_chainers_sentence():
    with pytest.raises(ValueError, match=r"^All coefficients and bias for bilinear\(\) must be "
                                         r"None, if at least one of them is None\.\n"):
        F.bilinear(_f32(2, 3), _f32(2, 4), _f32(3, 4, 5), _f32(3, 5))
