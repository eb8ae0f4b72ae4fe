"""Unit tests of chainer_compat.types: the aliases resolve, and importing them loads no CuPy."""

from __future__ import annotations

import collections.abc
import subprocess
import sys
import typing

import numpy
import pytest

from chainer_compat import initializers, types


def test_aliases_resolve_to_runtime_types_where_no_forward_reference_is_needed():
    assert types.Shape == tuple[int, ...]
    one_int, sequence = typing.get_args(types.ShapeSpec)
    assert one_int is int
    assert typing.get_origin(sequence) is collections.abc.Sequence
    assert typing.get_args(sequence) == (int,)
    assert numpy.ndarray in typing.get_args(types.NdArray)
    assert numpy.generic in typing.get_args(types.ScalarValue)
    assert types.AbstractInitializer in typing.get_args(types.InitializerSpec)
    assert numpy.ndarray in typing.get_args(types.InitializerSpec)
    assert str in typing.get_args(types.DeviceSpec)
    assert int in typing.get_args(types.CudaDeviceSpec)


def test_cupy_names_are_forward_references_only():
    references = [arg for arg in typing.get_args(types.NdArray)
                  if isinstance(arg, typing.ForwardRef)]
    assert [ref.__forward_arg__ for ref in references] == ["cupy.ndarray"]


def test_abstract_initializer_is_a_static_protocol():
    # compat: not runtime-checkable, as in Chainer.
    with pytest.raises(TypeError):
        isinstance(initializers.Constant(1.0), types.AbstractInitializer)


def test_importing_types_loads_no_cupy():
    code = ("import sys, chainer_compat.types; "
            "sys.exit(1 if 'cupy' in sys.modules else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
