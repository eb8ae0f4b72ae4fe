"""Chainer-visible behaviour of the small top-level helpers: ``get_dtype`` and ``mixed16``,
``chainer.serializer``, ``chainer.warnings``, the array-type helpers, ``print_runtime_info`` and
``__version__``. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer 7.8.1 itself.
"""

from __future__ import annotations

import importlib
import io
import os
import warnings

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))


def test_get_dtype_defaults_to_config_dtype_and_normalizes_specifiers():
    assert chainer.get_dtype() == numpy.dtype(numpy.float32)
    assert chainer.get_dtype("float64") == numpy.dtype(numpy.float64)
    assert chainer.get_dtype(numpy.float16) == numpy.dtype(numpy.float16)
    with chainer.using_config("dtype", numpy.float64):
        assert chainer.get_dtype() == numpy.dtype(numpy.float64)
        # map_mixed16 only applies to the mixed16 default.
        assert chainer.get_dtype(map_mixed16=numpy.float32) == numpy.dtype(numpy.float64)


def test_mixed16_reads_as_float16_unless_mapped():
    assert repr(chainer.mixed16) == "dtype('mixed16')"
    assert numpy.dtype(chainer.mixed16) == numpy.dtype(numpy.float16)
    with chainer.using_config("dtype", chainer.mixed16):
        assert chainer.get_dtype() == numpy.dtype(numpy.float16)
        assert chainer.get_dtype(map_mixed16=numpy.float32) == numpy.dtype(numpy.float32)
        assert chainer.get_dtype(numpy.float64) == numpy.dtype(numpy.float64)


def test_serializer_module_holds_the_protocol_classes():
    serializer = importlib.import_module(chainer.__name__ + ".serializer")
    assert chainer.AbstractSerializer is serializer.AbstractSerializer
    assert issubclass(chainer.Serializer, chainer.AbstractSerializer)
    assert issubclass(chainer.Deserializer, chainer.AbstractSerializer)
    assert issubclass(chainer.serializers.DictionarySerializer, chainer.Serializer)
    assert issubclass(chainer.serializers.NpzDeserializer, chainer.Deserializer)


def test_performance_warning_is_a_runtime_warning():
    warnings_module = importlib.import_module(chainer.__name__ + ".warnings")
    assert issubclass(warnings_module.PerformanceWarning, RuntimeWarning)
    with pytest.warns(warnings_module.PerformanceWarning):
        warnings.warn("slow path", warnings_module.PerformanceWarning, stacklevel=1)


def test_array_type_helpers():
    assert chainer.get_cpu_array_types() == (numpy.ndarray,)
    assert chainer.is_arrays_compatible([])
    assert chainer.is_arrays_compatible([None, numpy.zeros(1), None, numpy.ones(2)])
    assert chainer.Initializer is chainer.initializer.Initializer


def test_print_runtime_info_names_the_libraries():
    out = io.StringIO()
    chainer.print_runtime_info(out)
    keys = [line.split(":", 1)[0] for line in out.getvalue().splitlines()]
    assert keys == ["Platform", "Chainer", "ChainerX", "NumPy", "CuPy", "iDeep"]
    assert f"NumPy: {numpy.__version__}" in out.getvalue()


def test_version_is_chainers_release():
    # Legacy code branches on it, e.g. ``if chainer.__version__ >= '2'``.
    assert chainer.__version__ == "7.8.1"
    assert chainer.get_compute_mode() is None
    assert chainer.disable_experimental_feature_warning is False
