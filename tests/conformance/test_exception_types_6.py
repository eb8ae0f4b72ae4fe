"""Exception types Chainer 7.8.1 users catch for a bad axis: AxisError, IndexError or ValueError
where Chainer leaves the axis to NumPy or to Python, and InvalidType where Chainer type-checks
the axis itself. (softmax, log_softmax and gumbel_softmax differ on purpose: Chainer's own check
breaks there and raises RuntimeError; ours raises InvalidType, pinned in test_softmax.py.)
Each case was checked against Chainer 7.8.1; set CHAINER_CONFORMANCE_TARGET=chainer to run this
file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = chainer.functions
InvalidType = chainer.utils.type_check.InvalidType
AxisError = numpy.exceptions.AxisError


def _x(*shape):
    return numpy.arange(numpy.prod(shape), dtype=numpy.float32).reshape(shape)


def _i(*shape):
    return numpy.zeros(shape, numpy.int32)


# (name, call, exact type Chainer raises) where ours raised InvalidType (or another type).
CHANGED = [
    ("repeat axis out of range", lambda: F.repeat(_x(2, 3), 2, 5), AxisError),
    ("repeat negative axis out of range", lambda: F.repeat(_x(2, 3), 2, -3), AxisError),
    ("split_axis negative axis out of range", lambda: F.split_axis(_x(2, 4), 2, -3), IndexError),
    ("split_axis indices, negative axis out of range",
     lambda: F.split_axis(_x(2, 4), [1], -3), IndexError),
    ("maxout axis out of range", lambda: F.maxout(_x(2, 4), 2, 5), IndexError),
    ("maxout negative axis out of range", lambda: F.maxout(_x(2, 4), 2, -3), IndexError),
    ("get_item too many indices", lambda: F.get_item(_x(2, 3), (0, 0, 0)), IndexError),
    ("get_item too many slices with an Ellipsis",
     lambda: F.get_item(_x(2, 3), (0, Ellipsis, 0, 0)), IndexError),
    ("Variable indexed past its ndim", lambda: chainer.Variable(_x(3))[0, 0], IndexError),
    ("tensordot axis of a out of range",
     lambda: F.tensordot(_x(2, 3), _x(3, 2), axes=([5], [0])), IndexError),
    ("tensordot axis of b out of range",
     lambda: F.tensordot(_x(2, 3), _x(3, 2), axes=([1], [-3])), IndexError),
    ("tensordot scalar axis pair out of range",
     lambda: F.tensordot(_x(2, 3), _x(3, 2), axes=(5, 0)), IndexError),
    ("tensordot axis counts differ before a range error",
     lambda: F.tensordot(_x(2, 3), _x(3, 2), axes=([5], [0, 1])), ValueError),
]

# Where Chainer type-checks the axis itself: InvalidType, which must stay.
KEPT_INVALID_TYPE = [
    ("rollaxis axis", lambda: F.rollaxis(_x(2, 3), 5)),
    ("rollaxis start", lambda: F.rollaxis(_x(2, 3), 0, 5)),
    ("moveaxis source", lambda: F.moveaxis(_x(2, 3), 5, 0)),
    ("moveaxis destination", lambda: F.moveaxis(_x(2, 3), 0, -3)),
    ("flip", lambda: F.flip(_x(2, 3), 5)),
    ("squeeze", lambda: F.squeeze(_x(1, 3), 5)),
    ("separate", lambda: F.separate(_x(2, 3), -3)),
    ("concat", lambda: F.concat([_x(2, 3), _x(2, 3)], 5)),
    ("stack", lambda: F.stack([_x(2, 3), _x(2, 3)], 5)),
    ("split_axis positive axis", lambda: F.split_axis(_x(2, 4), 2, 5)),
    ("expand_dims", lambda: F.expand_dims(_x(2, 3), 5)),
    ("diagonal", lambda: F.diagonal(_x(2, 3), 0, 0, 5)),
    ("permutate", lambda: F.permutate(_x(2, 3), numpy.array([1, 0], numpy.int32), 5)),
    ("cumsum", lambda: F.cumsum(_x(2, 3), 5)),
    ("sum", lambda: F.sum(_x(2, 3), (0, 5))),
    ("prod", lambda: F.prod(_x(2, 3), 5)),
    ("max", lambda: F.max(_x(2, 3), -3)),
    ("min", lambda: F.min(_x(2, 3), 5)),
    ("argmax", lambda: F.argmax(_x(2, 3), 5)),
    ("argmin", lambda: F.argmin(_x(2, 3), -3)),
    ("logsumexp", lambda: F.logsumexp(_x(2, 3), 5)),
    ("mean", lambda: F.mean(_x(2, 3), 5)),
    ("crelu", lambda: F.crelu(_x(2, 3), 5)),
    ("broadcast_to with fewer axes", lambda: F.broadcast_to(_x(2, 3), (3,))),
]

# Repeated or mismatched axes: NumPy's ValueError in Chainer, and ours already.
KEPT_VALUE_ERROR = [
    ("moveaxis repeated source", lambda: F.moveaxis(_x(2, 3, 4), (0, 0), (1, 2))),
    ("moveaxis lengths differ", lambda: F.moveaxis(_x(2, 3, 4), (0, 1), (2,))),
    ("squeeze an axis longer than one", lambda: F.squeeze(_x(1, 3), 1)),
    ("squeeze repeated axis", lambda: F.squeeze(_x(1, 1, 3), (0, 0))),
    ("sum repeated axis", lambda: F.sum(_x(2, 3), (1, -1))),
    ("max repeated axis", lambda: F.max(_x(2, 3), (0, 0))),
    ("diagonal same axes", lambda: F.diagonal(_x(2, 3), 0, 1, 1)),
    ("tensordot lengths differ", lambda: F.tensordot(_x(2, 3), _x(3, 2), axes=([0], [0]))),
]

# With type checks off Chainer reaches NumPy, which raises AxisError.
TYPE_CHECK_OFF = [
    ("rollaxis axis", lambda: F.rollaxis(_x(2, 3), 5)),
    ("rollaxis start", lambda: F.rollaxis(_x(2, 3), 0, 5)),
    ("moveaxis source", lambda: F.moveaxis(_x(2, 3), 5, 0)),
    ("moveaxis destination", lambda: F.moveaxis(_x(2, 3), 0, 5)),
    ("squeeze", lambda: F.squeeze(_x(1, 3), 5)),
    ("concat", lambda: F.concat([_x(2, 3), _x(2, 3)], 5)),
    ("repeat", lambda: F.repeat(_x(2, 3), 2, 5)),
]


def _ids(cases):
    return [case[0] for case in cases]


@pytest.mark.parametrize("name, call, error", CHANGED, ids=_ids(CHANGED))
def test_raises_chainers_exception_type(name, call, error):
    with pytest.raises(Exception) as info:
        call()
    assert type(info.value) is error
    assert not isinstance(info.value, InvalidType)


_CATCHES = [(name, call, clause) for name, call, error in CHANGED
            for clause in ((ValueError, IndexError) if error is AxisError else (error,))]


@pytest.mark.parametrize("name, call, clause", _CATCHES,
                         ids=[f"{name} / except {clause.__name__}"
                              for name, _, clause in _CATCHES])
def test_chainers_except_clause_catches_it(name, call, clause):
    try:
        call()
    except clause:
        return
    except Exception as error:  # pragma: no cover - the failure message names it
        pytest.fail(f"{name} raised {type(error).__name__}, not a {clause.__name__}")
    pytest.fail(f"{name} raised nothing")


@pytest.mark.parametrize("name, call", KEPT_INVALID_TYPE, ids=_ids(KEPT_INVALID_TYPE))
def test_axis_type_checked_by_chainer_still_raises_invalid_type(name, call):
    with pytest.raises(InvalidType):
        call()


@pytest.mark.parametrize("name, call", KEPT_VALUE_ERROR, ids=_ids(KEPT_VALUE_ERROR))
def test_repeated_or_mismatched_axes_raise_value_error(name, call):
    with pytest.raises(ValueError) as info:
        call()
    assert not isinstance(info.value, InvalidType)


@pytest.mark.parametrize("name, call", TYPE_CHECK_OFF, ids=_ids(TYPE_CHECK_OFF))
def test_with_type_check_off_numpys_axis_error_surfaces(name, call):
    with chainer.using_config("type_check", False):
        with pytest.raises(AxisError):
            call()


@pytest.mark.parametrize("call, match", [
    (lambda: F.repeat(_x(2, 3), 2, 5), "axis 5 is out of bounds for array of dimension 2"),
    (lambda: F.get_item(_x(2, 3), (0, 0, 0)),
     "too many indices for array: array is 2-dimensional, but 3 were indexed"),
    (lambda: F.moveaxis(_x(2, 3, 4), (0, 0), (1, 2)), "repeated axis in `source` argument"),
    (lambda: F.moveaxis(_x(2, 3, 4), (0, 1), (2, 2)),
     "repeated axis in `destination` argument"),
    (lambda: F.moveaxis(_x(2, 3, 4), (0, 1), (2,)),
     "`source` and `destination` arguments must have the same number of elements"),
    (lambda: F.squeeze(_x(1, 3), 1),
     "cannot select an axis to squeeze out which has size not equal to one"),
    (lambda: F.tensordot(_x(2, 3), _x(3, 2), axes=([5], [0, 1])), "axes count mismatch"),
])
def test_message_keeps_the_wording_chainer_users_see(call, match):
    with pytest.raises(Exception, match=match):
        call()


def test_moveaxis_with_type_check_off_names_the_argument_as_numpy():
    with chainer.using_config("type_check", False):
        with pytest.raises(AxisError, match="source: axis 5 is out of bounds"):
            F.moveaxis(_x(2, 3), 5, 0)


def test_valid_axes_still_work():
    x = _x(2, 4)
    numpy.testing.assert_array_equal(F.repeat(x, 2, -1).array, numpy.repeat(x, 2, -1))
    assert [y.shape for y in F.split_axis(x, 2, -2)] == [(1, 4), (1, 4)]
    numpy.testing.assert_allclose(F.softmax(x, -1).array.sum(axis=-1), 1.0, rtol=1e-6)
    numpy.testing.assert_array_equal(F.maxout(x, 2, 1).array, x.reshape(2, 2, 2).max(axis=2))
    numpy.testing.assert_array_equal(F.get_item(x, (None, 1, Ellipsis)).array, x[None, 1, ...])
    numpy.testing.assert_array_equal(
        F.tensordot(x, _x(4, 3), axes=([1], [0])).array, numpy.tensordot(x, _x(4, 3), 1))
    numpy.testing.assert_array_equal(F.rollaxis(_x(2, 3, 4), 2, 3).array,
                                     numpy.rollaxis(_x(2, 3, 4), 2, 3))


def test_a_list_given_to_a_function_starts_with_chainers_two_lines():
    with pytest.raises(TypeError) as info:
        F.pad_sequence([[1, 2], [3]])
    lines = str(info.value).split("\n")
    assert lines[0] == "incompatible array types are mixed in the forward input (PadSequence)."
    assert lines[1] == "Actual: <class 'list'>, <class 'list'>"
