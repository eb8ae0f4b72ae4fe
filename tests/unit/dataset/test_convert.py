"""Unit tests of chainer_compat.dataset.convert: our messages, the legacy-converter call path,
padding edge cases, ConcatWithAsyncTransfer and the CuPy paths."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import backend
from chainer_compat.dataset import convert


def test_converter_of_a_non_callable_is_a_type_error_naming_the_fix():
    with pytest.raises(TypeError, match="converter must wrap a callable, got int"):
        convert.converter()(3)


def test_decorated_converter_keeps_the_function_name_and_doc():
    @convert.converter()
    def my_converter(batch, device):
        """Doc of my converter."""
        return batch

    assert my_converter.__name__ == "my_converter"
    assert my_converter.__doc__ == "Doc of my converter."
    assert my_converter.base_callable.__name__ == "my_converter"


def test_call_converter_gives_a_converter_the_device_and_a_function_the_legacy_id():
    seen = []

    def legacy(batch, device):
        seen.append(device)
        return batch

    @convert.converter()
    def modern(batch, device):
        seen.append(device)
        return batch

    cpu = backend.CpuDevice()
    assert convert._call_converter(legacy, [1], cpu) == [1]
    convert._call_converter(legacy, [1], None)
    convert._call_converter(modern, [1], cpu)
    convert._call_converter(modern, [1], None)
    assert seen == [-1, None, cpu, None]


def test_call_converter_refuses_other_devices_for_a_plain_function():
    class OtherDevice(backend.Device):
        name = "@other"

    with pytest.raises(RuntimeError, match="@chainer.dataset.converter"):
        convert._call_converter(lambda batch, device: batch, [1], OtherDevice())


def test_padding_arrays_of_different_ranks_is_a_value_error_naming_the_shapes():
    with pytest.raises(ValueError, match=r"same number of dimensions, got shapes \(2,\) and"):
        convert.concat_examples([numpy.zeros(2), numpy.zeros((1, 2))], padding=0)


@pytest.mark.parametrize("shapes", [[(3,), (1,), (0,)], [(2, 2), (1, 3)], [(), ()], [(4,)]])
def test_padding_matches_a_reference_built_in_the_test(shapes):
    rng = numpy.random.default_rng(0)
    arrays = [rng.standard_normal(shape).astype(numpy.float32) for shape in shapes]
    result = convert.concat_examples(arrays, padding=numpy.nan)
    target = tuple(max(sizes) for sizes in zip(*shapes, strict=True)) if shapes[0] else ()
    assert result.shape == (len(arrays), *target)
    assert result.dtype == numpy.float32
    for array, row in zip(arrays, result, strict=True):
        corner = tuple(slice(0, size) for size in array.shape)
        numpy.testing.assert_array_equal(row[corner], array)
        assert numpy.isnan(row).sum() == row.size - array.size


@pytest.mark.parametrize(("padding", "expected"), [(-1, 255), (300, 44), (7, 7)])
def test_padding_out_of_the_dtypes_range_wraps_as_numpy_1_did(padding, expected):
    # uint8 masks padded with -1 are common in legacy converters; NumPy 2 refuses the Python int.
    batch = convert.concat_examples([numpy.ones(2, numpy.uint8), numpy.ones(3, numpy.uint8)],
                                    padding=padding)
    assert batch.dtype == numpy.uint8
    numpy.testing.assert_array_equal(batch, [[1, 1, expected], [1, 1, 1]])


def test_padding_python_lists_goes_through_asarray():
    result = convert.concat_examples([[1, 2], [3, 4]], padding=0)
    numpy.testing.assert_array_equal(result, numpy.asarray([[1, 2], [3, 4]]))


def test_concat_examples_of_one_field_tuples_and_a_short_padding_tuple():
    batch = [(numpy.zeros(1), numpy.zeros(2))]
    with pytest.raises(IndexError):
        convert.concat_examples(batch, padding=(0,))
    (only,) = convert.concat_examples([(numpy.ones(2),)])
    numpy.testing.assert_array_equal(only, [[1.0, 1.0]])


def test_concat_with_async_transfer_on_the_cpu_equals_concat_examples():
    transfer = convert.ConcatWithAsyncTransfer()
    batch = [(numpy.arange(2), numpy.arange(3) * i) for i in range(3)]
    for result, expected in zip(transfer(batch), convert.concat_examples(batch), strict=True):
        numpy.testing.assert_array_equal(result, expected)
    padded = transfer([numpy.arange(1), numpy.arange(2)], None, 7)
    numpy.testing.assert_array_equal(padded, [[0, 7], [0, 1]])


def test_concat_with_async_transfer_keeps_the_device_of_its_first_tuple_batch():
    transfer = convert.ConcatWithAsyncTransfer()
    transfer([(numpy.zeros(1),)], -1)
    with pytest.raises(ValueError, match="device is different: .* tuple or dict examples, -1"):
        transfer([(numpy.zeros(1),)], None)
    # Even a batch of plain arrays must now use the bound device.
    with pytest.raises(ValueError, match="device is different"):
        transfer([numpy.zeros(1)], None)
    with pytest.raises(ValueError, match="batch is empty"):
        transfer([], -1)


def test_to_device_refuses_a_variable_with_a_hint():
    from chainer_compat import Variable

    with pytest.raises(TypeError, match="Variable.array"):
        convert.to_device(-1, Variable(numpy.zeros(1)))


@pytest.mark.gpu
def test_concat_examples_sends_to_and_pads_on_the_gpu(cupy):
    batch = [(numpy.arange(2), numpy.int32(i)) for i in range(3)]
    x, t = convert.concat_examples(batch, 0)
    assert isinstance(x, cupy.ndarray) and isinstance(t, cupy.ndarray)
    cupy.testing.assert_array_equal(x, cupy.asarray(numpy.stack([b[0] for b in batch])))
    on_gpu = [cupy.arange(2), cupy.arange(1)]
    padded = convert.concat_examples(on_gpu, padding=-1)
    assert isinstance(padded, cupy.ndarray)
    cupy.testing.assert_array_equal(padded, cupy.asarray([[0, 1], [0, -1]]))
    back = convert.concat_examples(on_gpu, "@numpy", padding=-1)
    assert isinstance(back, numpy.ndarray)
    numpy.testing.assert_array_equal(back, [[0, 1], [0, -1]])


@pytest.mark.gpu
def test_call_converter_gives_a_legacy_function_the_gpu_id(cupy):
    seen = []
    convert._call_converter(lambda batch, device: seen.append(device), [1],
                            backend.get_device("@cupy:0"))
    assert seen == [0]


@pytest.mark.gpu
def test_concat_with_async_transfer_sends_to_the_gpu_on_its_stream(cupy):
    transfer = convert.ConcatWithAsyncTransfer(stream=cupy.cuda.Stream(non_blocking=True))
    x, t = transfer([(numpy.arange(2), numpy.int32(1)), (numpy.arange(2), numpy.int32(2))], 0)
    assert isinstance(x, cupy.ndarray) and int(x.device.id) == 0
    cupy.testing.assert_array_equal(t, cupy.asarray([1, 2], dtype=numpy.int32))
