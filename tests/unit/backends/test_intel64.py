"""chainer.backends.intel64 behaves as Chainer's own module does where iDeep is not installed."""

from __future__ import annotations

import re

import numpy
import pytest

import chainer_compat
from chainer_compat import backend
from chainer_compat.backends import intel64


def test_nothing_is_available_so_legacy_checks_take_the_cpu_path():
    assert intel64.is_ideep_available() is False
    assert intel64.should_use_ideep("==always") is False
    assert intel64.should_use_ideep(">=auto") is False
    x = chainer_compat.Variable(numpy.ones((2, 3), numpy.float32))
    assert intel64.inputs_all_ready((x, x.array)) is False
    assert intel64.inputs_all_ready((x.array,), supported_ndim=(2,)) is False


def test_checking_availability_raises_with_chainers_first_line():
    with pytest.raises(RuntimeError) as info:
        intel64.check_ideep_available()
    assert str(info.value).splitlines()[0] == "iDeep is not available."
    assert "@numpy" in str(info.value)


def test_a_wrong_use_level_is_refused_with_the_levels_to_use():
    expected = "invalid iDeep use level: 'auto' (must be either of \"==always\" or \">=auto\")"
    with pytest.raises(ValueError, match=re.escape(expected)):
        intel64.should_use_ideep("auto")


def test_no_array_is_an_mdarray_and_the_device_class_is_the_backends():
    assert not isinstance(numpy.ones(3), intel64.mdarray)
    assert intel64.Intel64Device is backend.Intel64Device
    with pytest.raises(RuntimeError, match="not available"):
        intel64.Intel64Device()


def test_the_package_serves_the_module_as_an_attribute():
    import chainer_compat.backends as backends

    assert backends.intel64 is intel64
