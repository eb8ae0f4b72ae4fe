"""Bad size arguments of the poolings, unpoolings, upsampling and ROI functions: each error is
ours (a ValueError or a TypeError saying what is wrong) and also the exception Chainer 7.8.1
raises there, and where Chainer has a sentence of its own, the message starts with it."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat.functions as F
from chainer_compat.utils import type_check


def _f32(*shape):
    return numpy.random.RandomState(0).uniform(-1, 1, shape).astype(numpy.float32)


POOLINGS = {
    "max_pooling_1d": lambda ksize=2, **k: F.max_pooling_1d(_f32(1, 2, 4), ksize, **k),
    "max_pooling_2d": lambda ksize=2, **k: F.max_pooling_2d(_f32(1, 2, 4, 4), ksize, **k),
    "max_pooling_3d": lambda ksize=2, **k: F.max_pooling_3d(_f32(1, 2, 4, 4, 4), ksize, **k),
    "max_pooling_nd": lambda ksize=2, **k: F.max_pooling_nd(_f32(1, 2, 4, 4), ksize, **k),
    "average_pooling_1d": lambda ksize=2, **k: F.average_pooling_1d(_f32(1, 2, 4), ksize, **k),
    "average_pooling_2d": lambda ksize=2, **k: F.average_pooling_2d(
        _f32(1, 2, 4, 4), ksize, **k),
    "average_pooling_3d": lambda ksize=2, **k: F.average_pooling_3d(
        _f32(1, 2, 4, 4, 4), ksize, **k),
    "average_pooling_nd": lambda ksize=2, **k: F.average_pooling_nd(
        _f32(1, 2, 4, 4), ksize, **k),
    "unpooling_1d": lambda ksize=2, **k: F.unpooling_1d(_f32(1, 2, 2), ksize, **k),
    "unpooling_2d": lambda ksize=2, **k: F.unpooling_2d(_f32(1, 2, 2, 2), ksize, **k),
    "unpooling_3d": lambda ksize=2, **k: F.unpooling_3d(_f32(1, 2, 2, 2, 2), ksize, **k),
    "unpooling_nd": lambda ksize=2, **k: F.unpooling_nd(_f32(1, 2, 2, 2), ksize, **k),
    "upsampling_2d": lambda ksize=2, **k: F.upsampling_2d(
        _f32(1, 1, 2, 2), numpy.zeros((1, 1, 2, 2), numpy.int32), ksize, **k),
}
ONE_D = ("max_pooling_1d", "average_pooling_1d", "unpooling_1d")
ROIS = numpy.array([[0, 0, 3, 3]], numpy.float32)
ROI_INDICES = numpy.array([0], numpy.int32)
ROI_FUNCTIONS = ["roi_max_pooling_2d", "roi_average_pooling_2d", "roi_max_align_2d",
                 "roi_average_align_2d"]


def _roi_pooling_2d(outh=2, outw=2, spatial_scale=1.0):
    return F.roi_pooling_2d(_f32(1, 2, 6, 6), numpy.array([[0, 0, 0, 3, 3]], numpy.float32),
                            outh, outw, spatial_scale)


def _roi(name, outsize=2, spatial_scale=1.0, **kwargs):
    return getattr(F, name)(_f32(1, 2, 6, 6), ROIS, ROI_INDICES, outsize, spatial_scale,
                            **kwargs)


@pytest.mark.parametrize("name", sorted(POOLINGS))
@pytest.mark.parametrize("argument", ["ksize", "stride", "pad"])
@pytest.mark.parametrize("value", [1.5, 2.0, "str"])
def test_non_integer_size_raises_type_error(name, argument, value):
    if value == "str":
        # A str of the right length: Chainer reads it as a sequence of str.
        value = "2" * (1 if name in ONE_D else 3 if "3d" in name else 2)
    with pytest.raises(TypeError, match=f"^{argument} must be an int or a sequence of "):
        POOLINGS[name](**{argument: value})


@pytest.mark.parametrize("name", sorted(POOLINGS))
@pytest.mark.parametrize("value", [numpy.int64(2), numpy.int32(2), numpy.float64(2.0)])
def test_integer_like_sizes_work(name, value):
    expected = POOLINGS[name](ksize=2, stride=2)
    y = POOLINGS[name](ksize=value, stride=value)
    numpy.testing.assert_array_equal(y.array, expected.array)


@pytest.mark.parametrize("name", sorted(set(POOLINGS) - set(ONE_D)))
def test_size_of_wrong_length_is_value_and_assertion_error(name):
    with pytest.raises(ValueError, match="^ksize must be an int or a sequence of") as info:
        POOLINGS[name](ksize="2")
    assert isinstance(info.value, AssertionError)


@pytest.mark.parametrize("name", sorted(POOLINGS))
@pytest.mark.parametrize("argument", ["ksize", "stride"])
def test_zero_size_is_also_zero_division_error(name, argument):
    with pytest.raises(ValueError, match=f"^{argument} must be positive, got 0") as info:
        POOLINGS[name](**{argument: 0})
    assert isinstance(info.value, ZeroDivisionError)


@pytest.mark.parametrize("name", sorted(POOLINGS))
@pytest.mark.parametrize("argument, value", [("ksize", -1), ("stride", -1), ("pad", -3)])
def test_negative_size_is_also_assertion_error(name, argument, value):
    with pytest.raises(ValueError, match=f"^{argument} must be ") as info:
        POOLINGS[name](**{argument: value})
    assert isinstance(info.value, AssertionError)


@pytest.mark.parametrize("name", ["max_pooling_2d", "max_pooling_nd", "average_pooling_nd"])
def test_empty_output_of_max_and_nd_pooling_starts_with_chainers_sentence(name):
    with pytest.raises(ValueError, match=r"^Output sizes should be positive\.\n"):
        POOLINGS[name](ksize=100, **({} if name.startswith("average") else {"cover_all": False}))


def test_empty_output_of_average_pooling_2d_starts_with_chainers_sentence():
    with pytest.raises(ValueError, match=r"^Height in the output should be positive\.\n"):
        POOLINGS["average_pooling_2d"](ksize=100)


@pytest.mark.parametrize("name", ["unpooling_1d", "unpooling_nd", "unpooling_2d"])
def test_non_integer_unpooling_outsize_raises_type_error(name):
    outsize = (5.0,) if name == "unpooling_1d" else (5.0, 5.0)
    with pytest.raises(TypeError, match="^outsize must be an int or a sequence of"):
        POOLINGS[name](outsize=outsize)


def test_unpooling_nd_outsize_check_reads_as_chainers():
    with pytest.raises(type_check.InvalidType, match=r"Expect: in_types\[0\]\.shape\[2:\] == "):
        POOLINGS["unpooling_nd"](outsize=(6, 6))


@pytest.mark.parametrize("index", [-1, 4, 7])
def test_upsampling_index_outside_the_window_raises_index_error(index):
    indexes = numpy.full((1, 1, 2, 2), index, numpy.int32)
    with pytest.raises(IndexError, match=rf"^indexes of upsampling_2d must be in \[0, 4\) .*"
                                         rf"got {index}"):
        F.upsampling_2d(_f32(1, 1, 2, 2), indexes, 2, stride=2)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.bool_])
def test_upsampling_non_integer_indexes_raise_index_error(dtype):
    indexes = numpy.zeros((1, 1, 2, 2), dtype)
    with pytest.raises(IndexError, match="^indexes of upsampling_2d must be an integer array"):
        F.upsampling_2d(_f32(1, 1, 2, 2), indexes, 2, stride=2)


@pytest.mark.parametrize("argument", ["outh", "outw"])
@pytest.mark.parametrize("value", [1.5, "2", None, (2, 2)])
def test_roi_pooling_non_integer_size_raises_type_error(argument, value):
    with pytest.raises(TypeError, match=f"^{argument} must be an int, got "):
        _roi_pooling_2d(**{argument: value})


@pytest.mark.parametrize("argument", ["outh", "outw"])
def test_roi_pooling_zero_size_is_also_zero_division_error(argument):
    with pytest.raises(ValueError, match=f"^{argument} must be positive, got 0") as info:
        _roi_pooling_2d(**{argument: 0})
    assert isinstance(info.value, ZeroDivisionError)


def test_roi_pooling_negative_size_raises_value_error():
    with pytest.raises(ValueError, match="^outh must be positive, got -1"):
        _roi_pooling_2d(outh=-1)


@pytest.mark.parametrize("scale", [float("inf"), float("nan"), numpy.float32("inf")])
def test_roi_pooling_non_finite_scale_raises_value_error(scale):
    with pytest.raises(ValueError, match="^spatial_scale must be finite"):
        _roi_pooling_2d(spatial_scale=scale)


@pytest.mark.parametrize("name", ROI_FUNCTIONS)
def test_roi_infinite_scale_raises_value_error(name):
    with pytest.raises(ValueError, match="^spatial_scale must be finite, got inf"):
        _roi(name, spatial_scale=float("inf"))


@pytest.mark.parametrize("name", ROI_FUNCTIONS)
@pytest.mark.parametrize("outsize, sentence", [
    (0, "outsize[0] must be positive integer: <class 'int'>, 0"),
    ((2, 1.5), "outsize[1] must be positive integer: <class 'float'>, 1.5"),
])
def test_roi_outsize_message_starts_with_chainers_sentence(name, outsize, sentence):
    with pytest.raises(TypeError) as info:
        _roi(name, outsize=outsize)
    assert str(info.value).startswith(sentence + "\n")


@pytest.mark.parametrize("name", ROI_FUNCTIONS)
def test_roi_spatial_scale_message_starts_with_chainers_sentence(name):
    with pytest.raises(TypeError) as info:
        _roi(name, spatial_scale=-1.0)
    assert str(info.value).startswith(
        "spatial_scale must be a positive float number: <class 'float'>, -1.0\n")


@pytest.mark.parametrize("name", ["roi_max_align_2d", "roi_average_align_2d"])
@pytest.mark.parametrize("sampling_ratio, shown", [
    (0, "(0, 0)"), ("2", "2"), ((2, 2, 2, 2, 2), "(2, 2, 2, 2, 2)"), ((2,), "(2,)"),
])
def test_bad_sampling_ratio_raises_chainers_type_error(name, sampling_ratio, shown):
    with pytest.raises(TypeError) as info:
        _roi(name, sampling_ratio=sampling_ratio)
    assert str(info.value).startswith(
        f"sampling_ratio must be integer >= 1 or a pair of it: {shown}\n")
