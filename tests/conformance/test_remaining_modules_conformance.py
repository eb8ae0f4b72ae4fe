"""Conformance of the remaining small public modules with Chainer 7.8.1: chainer.types,
chainer.memory_layouts, chainer.utils.{array, imgproc, precision, error, cache},
chainer.iterators.dali_iterator (over a fake pipeline) and what of
chainer.training.updaters.multiprocess_parallel_updater runs without NCCL.
Runs on Chainer itself with CHAINER_CONFORMANCE_TARGET=chainer."""

from __future__ import annotations

import collections.abc
import importlib
import numbers
import os
import typing

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))


def _module(name):
    return importlib.import_module(f"{chainer.__name__}.{name}")


types = _module("types")
layouts = _module("memory_layouts")
array_utils = _module("utils.array")
imgproc = _module("utils.imgproc")
precision = _module("utils.precision")
error = _module("utils.error")
cache = _module("utils.cache")
dali_iterator = _module("iterators.dali_iterator")
mpu = _module("training.updaters.multiprocess_parallel_updater")


def _concrete_args(alias):
    """The arguments of a Union alias that are not forward references."""
    return {arg for arg in typing.get_args(alias) if not isinstance(arg, typing.ForwardRef)}


# ------------------------------------------------------------------------------------ types
def test_types_shape_aliases():
    assert typing.get_origin(types.Shape) is tuple
    assert typing.get_args(types.Shape) == (int, Ellipsis)
    one_int, sequence = typing.get_args(types.ShapeSpec)
    assert one_int is int
    assert typing.get_origin(sequence) is collections.abc.Sequence


def test_types_any_aliases():
    assert types.DTypeSpec is typing.Any
    assert types.Xp is typing.Any


def test_types_scalar_and_device_aliases():
    assert {bytes, str, memoryview, numbers.Number} <= _concrete_args(types.ScalarValue)
    assert str in _concrete_args(types.DeviceSpec)
    pairs = [arg for arg in _concrete_args(types.DeviceSpec) if typing.get_origin(arg) is tuple]
    assert (str, int) in [typing.get_args(arg) for arg in pairs]
    assert int in _concrete_args(types.CudaDeviceSpec)


def test_types_ndarray_alias_names_numpy_ndarray():
    names = {arg.__forward_arg__ if isinstance(arg, typing.ForwardRef) else arg
             for arg in typing.get_args(types.NdArray)}
    assert numpy.ndarray in names or "numpy.ndarray" in names


def test_types_abstract_initializer_is_a_static_protocol_in_initializer_spec():
    assert types.AbstractInitializer in typing.get_args(types.InitializerSpec)
    assert getattr(types.AbstractInitializer, "_is_protocol", False)
    assert types.AbstractInitializer.dtype is None
    with pytest.raises(TypeError):
        isinstance(object(), types.AbstractInitializer)


# ---------------------------------------------------------------------------- memory_layouts
def test_layout_constants():
    assert layouts.CUDNN_CHANNEL_FIRST_X is None
    assert layouts.CUDNN_CHANNEL_FIRST_W is None
    assert layouts.CUDNN_CHANNEL_LAST_X == "CUDNN_CHANNEL_LAST_X"
    assert layouts.CUDNN_CHANNEL_LAST_W == "CUDNN_CHANNEL_LAST_W"


@pytest.mark.parametrize("ndim", [3, 4, 5])
@pytest.mark.parametrize("inverse", [False, True])
def test_layout_transpose_axes(ndim, inverse):
    last = layouts.CUDNN_CHANNEL_LAST_X
    to_last = (0, *range(2, ndim), 1)
    to_first = (0, ndim - 1, *range(1, ndim - 1))
    assert layouts._get_layout_transpose_axes(ndim, None, last, inverse) == (
        to_first if inverse else to_last)
    assert layouts._get_layout_transpose_axes(ndim, last, None, inverse) == (
        to_last if inverse else to_first)
    assert layouts._get_layout_transpose_axes(ndim, last, last, inverse) is None


def test_layout_unknown_conversion_raises_value_error():
    with pytest.raises(ValueError, match="Unknown layout conversion: from 'NHWC' to 'None'"):
        layouts._get_layout_transpose_axes(4, "NHWC", None)


def test_layout_shapes_of_arrays():
    last = layouts.CUDNN_CHANNEL_LAST_W
    x = numpy.empty((2, 4, 5, 3))
    assert layouts.get_raw_shape(x) == (2, 4, 5, 3)
    assert layouts.get_semantic_shape(x) == (2, 4, 5, 3)
    assert layouts.get_semantic_shape(x, assumed_layout=last) == (2, 3, 4, 5)
    assert layouts._transpose_shape((2, 3, 4, 5), None, last) == (2, 4, 5, 3)
    numpy.testing.assert_array_equal(
        layouts._transpose_array(numpy.arange(24).reshape(2, 3, 4), None, last),
        numpy.moveaxis(numpy.arange(24).reshape(2, 3, 4), 1, -1))


def test_as_layout_output_is_stored_channel_last():
    x = numpy.random.RandomState(0).randn(2, 3, 4, 5)
    y, = layouts.AsLayout(layouts.CUDNN_CHANNEL_LAST_X).apply((chainer.Variable(x),))
    assert layouts.get_raw_shape(y) == (2, 4, 5, 3)
    numpy.testing.assert_array_equal(y.raw_array, numpy.moveaxis(x, 1, -1))


# ------------------------------------------------------------------------------ utils.array
def test_array_deprecated_helpers_warn_and_work():
    x = numpy.arange(24).reshape(2, 3, 4)
    with pytest.warns(DeprecationWarning, match="as_vec is deprecated"):
        numpy.testing.assert_array_equal(array_utils.as_vec(x), x.ravel())
    with pytest.warns(DeprecationWarning, match="as_mat is deprecated"):
        numpy.testing.assert_array_equal(array_utils.as_mat(x), x.reshape(2, 12))
    with pytest.warns(DeprecationWarning, match="empty_like is deprecated"):
        empty = array_utils.empty_like(x)
    assert (type(empty), empty.shape, empty.dtype) == (numpy.ndarray, x.shape, x.dtype)


@pytest.mark.parametrize("shape", [(), (0, 3), (2, 3, 4)])
def test_array_size_of_shape(shape):
    assert array_utils.size_of_shape(shape) == int(numpy.prod(shape))


@pytest.mark.parametrize("source, target", [((2, 3, 4), (3, 1)), ((2, 3), ()),
                                            ((4, 1, 2), (1, 1, 2))])
def test_array_sum_to(source, target):
    x = numpy.random.RandomState(1).randn(*source)
    lead = len(source) - len(target)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(target) if s == 1)
    numpy.testing.assert_allclose(array_utils.sum_to(x, target),
                                  x.sum(axis=axes, keepdims=True).reshape(target))


def test_array_sum_to_rejects_variables():
    with pytest.raises(TypeError, match="does not support Variable input"):
        array_utils.sum_to(chainer.Variable(numpy.ones((2, 3))), (3,))


# ---------------------------------------------------------------------------- utils.imgproc
def test_oversample_ten_crops_per_image():
    images = [numpy.random.RandomState(i).randn(2, 7, 9).astype(numpy.float32)
              for i in range(2)]
    crops = imgproc.oversample(images, (4, 5))
    assert crops.shape == (20, 2, 4, 5) and crops.dtype == numpy.float32
    top, left = int(3.5 - 2.0), int(4.5 - 2.5)
    for index, image in enumerate(images):
        expected = [image[:, :4, :5], image[:, :4, 4:], image[:, 3:, :5], image[:, 3:, 4:],
                    image[:, top:top + 4, left:left + 5]]
        expected += [crop[:, :, ::-1] for crop in expected]
        for offset, crop in enumerate(expected):
            numpy.testing.assert_array_equal(crops[10 * index + offset], crop)


# ------------------------------------------------------------------- utils.precision, .error
class _Forward:
    @precision._fp16_mixed_precision_helper
    def forward(self, in_data):
        self.seen = [x.dtype for x in in_data]
        return in_data[0] + 1, None


def test_fp16_helper_computes_in_float32():
    function = _Forward()
    y, nothing = function.forward((numpy.ones(3, numpy.float16), numpy.ones(3, numpy.int32)))
    assert function.seen == [numpy.float32, numpy.int32]
    assert y.dtype == numpy.float16 and nothing is None
    y, _ = function.forward((numpy.ones(3, numpy.float16), numpy.ones(3, numpy.float64)))
    assert y.dtype == numpy.float32


def test_format_array_props():
    arrays = (numpy.zeros((2, 3), numpy.float32), numpy.zeros((), numpy.int8))
    assert error._format_array_props(arrays) == "(2, 3):float32, ():int8"


# ---------------------------------------------------------------------------- utils.cache
class _Cached:
    def __init__(self):
        self.calls = 0

    @cache.cached_property
    def value(self):
        self.calls += 1
        return [self.calls]


def test_cached_property_once_per_backprop_mode_and_read_only():
    obj = _Cached()
    first = obj.value
    assert obj.value is first and obj.calls == 1
    with chainer.no_backprop_mode():
        assert obj.value is not first
    assert obj.value is first and obj.calls == 2
    assert set(obj.__dict__["value"]) == {True, False}
    with pytest.raises(AttributeError):
        obj.value = 1
    assert isinstance(_Cached.value, cache.cached_property)


# ------------------------------------------------------------------------- DaliIterator
class _Pipeline:
    batch_size = 3

    def __init__(self):
        self.builds = 0
        self.runs = 0

    def build(self):
        self.builds += 1

    def epoch_size(self):
        return {"Reader": 7}

    def run(self):
        self.runs += 1
        return self.runs


class _Serializer:
    def __init__(self, target=None):
        self.saving = target is None
        self.target = {} if target is None else target

    def __call__(self, key, value):
        if self.saving:
            self.target[key] = value
            return value
        return self.target[key]  # KeyError for a missing key, as Chainer's deserializers


def _dali(repeat=True):
    with pytest.warns(FutureWarning):
        return dali_iterator.DaliIterator(_Pipeline(), repeat=repeat)


def test_dali_iterator_bookkeeping():
    iterator = _dali()
    assert iterator.pipeline.builds == 0 and iterator.previous_epoch_detail is None
    states = []
    for _ in range(6):
        batch = next(iterator)
        states.append((batch, iterator.epoch, iterator.current_position, iterator.is_new_epoch,
                       round(iterator.epoch_detail, 6),
                       round(iterator.previous_epoch_detail, 6)))
    assert iterator.pipeline.builds == 1
    assert [state[:4] for state in states] == [
        (1, 0, 3, False), (2, 0, 6, False), (3, 1, 2, True), (4, 1, 5, False),
        (5, 2, 1, True), (6, 2, 4, False)]
    for (_, epoch, position, _, detail, _), (*_, previous) in zip(states, states[1:]):
        assert detail == round(epoch + position / 7, 6) == previous


def test_dali_iterator_without_repeat_stops():
    iterator = _dali(repeat=False)
    assert list(iterator) == [1, 2, 3]
    assert (iterator.epoch, iterator.current_position) == (1, 0)
    with pytest.raises(StopIteration):
        iterator.next()


def test_dali_iterator_serialize_and_old_snapshot():
    source = _dali()
    for _ in range(4):
        next(source)
    saved = _Serializer()
    source.serialize(saved)
    assert sorted(saved.target) == ["current_position", "epoch", "is_new_epoch",
                                     "previous_epoch_detail"]
    target = _dali()
    next(target)
    target.serialize(_Serializer(dict(saved.target)))
    assert target.previous_epoch_detail == source.previous_epoch_detail
    del saved.target["previous_epoch_detail"]
    old = _dali()
    next(old)
    old.serialize(_Serializer(saved.target))
    assert old.previous_epoch_detail == pytest.approx(1 + (5 - 3) / 7)


# ---------------------------------------------------------- MultiprocessParallelUpdater
def _nccl_importable():
    try:
        from cupy.cuda import nccl  # noqa: F401
    except Exception:
        return False
    return True


def test_mpu_available_is_nccl_importability():
    assert bool(mpu.MultiprocessParallelUpdater.available()) is _nccl_importable()


@pytest.mark.skipif(_nccl_importable(), reason="CuPy with NCCL is installed here")
def test_mpu_without_nccl_raises_exception():
    iterators = _module("iterators")
    optimizer = _module("optimizers").SGD()
    with pytest.raises(Exception, match="NCCL is not enabled") as info:
        mpu.MultiprocessParallelUpdater([iterators.SerialIterator([1, 2], 1)], optimizer,
                                        devices=[0])
    assert type(info.value) is Exception


class _Params(chainer.Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.ones((2, 3), numpy.float32))
            self.b = chainer.Parameter(numpy.ones((4,), numpy.float32))
            self.empty = chainer.Parameter(numpy.ones((0,), numpy.float32))


def test_mpu_flat_buffer_helpers_on_cpu():
    link = _Params()
    assert tuple(mpu.size_num_grads(link)) == (10, 2)
    with pytest.raises(RuntimeError, match="gather_grads works only on GPU"):
        mpu.gather_grads(link)
    with pytest.raises(RuntimeError, match="gather_params works only on GPU"):
        mpu.gather_params(link)
