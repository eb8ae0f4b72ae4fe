"""Exception types Chainer 7.8.1 users catch: errors that Chainer leaves to NumPy (ValueError,
AxisError) or to Python (ZeroDivisionError) must not surface as ``InvalidType``, which is no
ValueError. Each case was checked against Chainer 7.8.1.
"""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import functions as F
from chainer_compat.utils import type_check

AxisError = numpy.exceptions.AxisError


def _x(*shape):
    return numpy.ones(shape, numpy.float32)


CASES = [
    # (name, call, exact type Chainer raises)
    ("transpose repeated axes", lambda: F.transpose(_x(2, 3), (0, 0)), ValueError),
    ("transpose too few axes", lambda: F.transpose(_x(2, 3), (0,)), ValueError),
    ("transpose axis out of range", lambda: F.transpose(_x(2, 3), (0, 2)), AxisError),
    ("swapaxes axis out of range", lambda: F.swapaxes(_x(2, 3), 0, 5), AxisError),
    ("normalize default axis on 1-d x", lambda: F.normalize(_x(3)), AxisError),
    ("normalize axis out of range", lambda: F.normalize(_x(2, 3), axis=-3), AxisError),
    ("layer_normalization gamma too short",
     lambda: F.layer_normalization(_x(2, 3), _x(2), _x(2)), ValueError),
    ("layer_normalization gamma too long",
     lambda: F.layer_normalization(_x(2, 3), _x(4), _x(4)), ValueError),
    ("mean of an empty array", lambda: F.mean(_x(0)), ZeroDivisionError),
    ("mean over a zero-length axis", lambda: F.mean(_x(0, 3), axis=0), ZeroDivisionError),
    ("average without weights of an empty array", lambda: F.average(_x(0, 3)), ZeroDivisionError),
]


@pytest.mark.parametrize("name, call, error", CASES, ids=[case[0] for case in CASES])
def test_raises_chainers_exception_type(name, call, error):
    with pytest.raises(Exception) as info:
        call()
    assert type(info.value) is error
    assert not isinstance(info.value, type_check.InvalidType)


@pytest.mark.parametrize("name, call, error",
                         [case for case in CASES if case[2] is not ZeroDivisionError],
                         ids=[case[0] for case in CASES if case[2] is not ZeroDivisionError])
def test_except_value_error_catches_it(name, call, error):
    try:
        call()
    except ValueError:
        return
    pytest.fail(f"{name} raised no ValueError")


@pytest.mark.parametrize("call", [
    lambda: F.swapaxes(_x(2, 3), 0, 5), lambda: F.normalize(_x(3)),
    lambda: F.transpose(_x(2, 3), (0, 2))])
def test_axis_errors_are_also_index_errors(call):
    with pytest.raises(IndexError):
        call()


@pytest.mark.parametrize("name, call, error", CASES, ids=[case[0] for case in CASES])
def test_same_type_with_type_check_off(name, call, error):
    # Chainer raises these from forward, so turning type checks off changes nothing.
    with chainer_compat.using_config("type_check", False):
        with pytest.raises(error):
            call()


@pytest.mark.parametrize("call, match", [
    (lambda: F.transpose(_x(2, 3), (0, 0)), "repeated axis in transpose"),
    (lambda: F.transpose(_x(2, 3), (0,)), "axes don't match array"),
    (lambda: F.swapaxes(_x(2, 3), 0, 5),
     "axis2: axis 5 is out of bounds for array of dimension 2"),
    (lambda: F.normalize(_x(3)), "axis 1 is out of bounds for array of dimension 1"),
    (lambda: F.layer_normalization(_x(2, 3), _x(2), _x(2)), "could not be broadcast together"),
    (lambda: F.mean(_x(0)), "float division by zero"),
])
def test_message_keeps_the_wording_chainer_users_see(call, match):
    with pytest.raises(Exception, match=match):
        call()


def test_other_invalid_inputs_still_raise_invalid_type():
    with pytest.raises(type_check.InvalidType):
        F.normalize(numpy.ones((2, 3), numpy.int32))
    with pytest.raises(type_check.InvalidType):
        F.layer_normalization(_x(2, 3), _x(3), _x(2))
    with pytest.raises(type_check.InvalidType):
        F.mean(numpy.zeros((0,), numpy.int32))
