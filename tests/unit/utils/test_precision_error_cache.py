"""Unit tests of chainer_compat.utils.precision (float16 forward in float32),
chainer_compat.utils.error (array property formatting) and chainer_compat.utils.cache
(cached_property keyed by enable_backprop)."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat.utils import cache, error, precision


class _Recorder:
    """An old-style forward that records the dtypes it sees and returns (x * 2, None)."""

    def __init__(self, out_dtype=None):
        self.seen = None
        self.out_dtype = out_dtype

    @precision._fp16_mixed_precision_helper
    def forward(self, in_data):
        self.seen = [x.dtype for x in in_data]
        y = in_data[0] * 2
        if self.out_dtype is not None:
            y = y.astype(self.out_dtype)
        return y, None


def test_fp16_inputs_run_in_float32_and_come_back_as_float16():
    recorder = _Recorder()
    x = numpy.array([1.5, 2.0], dtype=numpy.float16)
    y, nothing = recorder.forward((x, numpy.array([1, 2], dtype=numpy.int32)))
    assert recorder.seen == [numpy.float32, numpy.int32]
    assert y.dtype == numpy.float16 and nothing is None
    numpy.testing.assert_array_equal(y, (x.astype(numpy.float32) * 2).astype(numpy.float16))


def test_a_wider_float_input_keeps_float32_outputs():
    recorder = _Recorder(out_dtype=numpy.float32)
    y, _ = recorder.forward((numpy.ones(2, numpy.float16), numpy.ones(2, numpy.float64)))
    assert recorder.seen == [numpy.float32, numpy.float64]
    assert y.dtype == numpy.float32


def test_only_float32_outputs_are_cast_back():
    recorder = _Recorder(out_dtype=numpy.float64)
    y, _ = recorder.forward((numpy.ones(2, numpy.float16),))
    assert y.dtype == numpy.float64


def test_helper_keeps_the_wrapped_name():
    assert _Recorder.forward.__name__ == "forward"


def test_format_array_props():
    arrays = [numpy.zeros((2, 3), numpy.float32), None, numpy.zeros((), numpy.int64)]
    assert error._format_array_props(arrays) == "(2, 3):float32, None, ():int64"
    assert error._format_array_props(()) == ""
    with pytest.raises(TypeError, match="arrays must be a list or tuple"):
        error._format_array_props(numpy.zeros(3))


class _Model:
    def __init__(self, x):
        self.x = x
        self.calls = 0

    @cache.cached_property
    def y(self):
        """Twice x."""
        self.calls += 1
        return self.x * 2


def test_cached_property_computes_once_per_backprop_mode():
    model = _Model(chainer.Variable(numpy.array([1.0, 2.0])))
    first = model.y
    assert model.y is first
    assert model.calls == 1
    with chainer.no_backprop_mode():
        without_graph = model.y
        assert model.y is without_graph
    assert without_graph is not first and without_graph.creator is None
    assert model.calls == 2
    assert model.y is first and model.calls == 2


def test_cached_property_is_read_only_and_described_like_the_method():
    model = _Model(numpy.ones(1))
    with pytest.raises(AttributeError, match="readonly"):
        model.y = 3
    assert _Model.y.__doc__ == "Twice x."
    assert _Model.y.__name__ == "y"
    assert isinstance(_Model.__dict__["y"], cache.cached_property)


def test_cached_property_keeps_its_caches_under_its_name():
    model = _Model(numpy.ones(1))
    model.y
    assert set(model.__dict__["y"]) == {True}


def test_outputs_pass_through_unchanged_when_nothing_is_cast_back():
    class _ListForward:
        @precision._fp16_mixed_precision_helper
        def forward(self, in_data):
            self.result = [in_data[0] * 2]
            return self.result

    function = _ListForward()
    assert function.forward((numpy.ones(2, numpy.float32),)) is function.result
