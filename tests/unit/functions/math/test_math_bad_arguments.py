"""Error paths and constant operands of the math functions, as a differential fuzz against
Chainer 7.8.1 found them: raw arrays are constants that Chainer's operators cast, and Chainer's
own messages come first."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat.functions as F
from chainer_compat import Variable
from chainer_compat.utils import type_check

_RNG = numpy.random.default_rng(0)
_X = _RNG.uniform(-1, 1, (2, 3)).astype(numpy.float32)
_W = _RNG.uniform(0.5, 1, 3).astype(numpy.float32)
_X3 = _RNG.uniform(-1, 1, (2, 3, 4)).astype(numpy.float32)


@pytest.mark.parametrize("function", [F.average, F.mean])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float64, numpy.int32, numpy.bool_])
def test_average_casts_a_raw_array_x_to_the_weights_dtype(function, dtype):
    x = _X.astype(dtype)
    y = function(x, axis=1, weights=_W)
    assert y.dtype == numpy.float32
    expected = (x.astype(numpy.float32) * _W).sum(axis=1) / _W.sum()
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)
    # A Variable x of another dtype still raises, as in Chainer.
    with pytest.raises(type_check.InvalidType):
        function(Variable(x), axis=1, weights=_W)


def test_average_weights_get_their_gradient_with_a_raw_array_x():
    weights = Variable(_W.copy())
    F.sum(F.average(_X.astype(numpy.float16), axis=1, weights=weights)).backward()
    assert weights.grad.dtype == numpy.float32
    assert weights.grad.shape == (3,)


@pytest.mark.parametrize(("function", "op"), [(F.bias, numpy.add), (F.scale, numpy.multiply)])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float64, numpy.int32, numpy.bool_])
def test_bias_and_scale_cast_a_raw_array_x_to_ys_dtype(function, op, dtype):
    x = _X3.astype(dtype)
    y = function(x, _W)
    assert y.dtype == numpy.float32
    numpy.testing.assert_allclose(
        y.array, op(x.astype(numpy.float32), _W[None, :, None]), rtol=1e-6)
    # A Variable x of another dtype still raises, as in Chainer.
    with pytest.raises(type_check.InvalidType, match=r"lhs\.dtype"):
        function(Variable(x), _W)


@pytest.mark.parametrize("function", [F.sum, F.max, F.min, F.prod, F.logsumexp, F.mean])
def test_axis_of_wrong_type_message_starts_with_chainers(function):
    with pytest.raises(TypeError, match=r"^None, int or tuple of int are required\n"):
        function(_X, axis=1.5)


@pytest.mark.parametrize("function", [F.argmax, F.argmin])
def test_argmax_axis_of_wrong_type_message_starts_with_chainers(function):
    with pytest.raises(TypeError, match=r"^None or int are required\n"):
        function(_X, axis=1.5)


@pytest.mark.parametrize("axis", [(1, 1), (-1, 1, 1)])
def test_weighted_average_repeated_axis_message_is_chainers(axis):
    with pytest.raises(ValueError, match="^duplicate value in 'axis'"):
        F.average(_X, axis=axis, weights=_W)


@pytest.mark.parametrize(("a_shape", "b_shape", "axes", "message"), [
    ((2, 3), (4, 5), 1, "^shape mismatch\n"),
    ((), (3, 4), 2, r"^dimension of input tensors must be greater equal to dot-axes count "
                    r"\(2\)\n"),
    ((2, 3), (3, 4), ([1], [0, 1]), "^axes count mismatch\n"),
    ((2, 3), (3, 4), (1, 2, 3), r"^axes must be a pair of sequence of integers when it is a "
                                r"list or tuple\.\n"),
    ((2, 3), (3, 4), "2", r"^axes must be a pair of sequence of integers when it is a "
                          r"list or tuple\.\n"),
])
def test_tensordot_messages_start_with_chainers(a_shape, b_shape, axes, message):
    a = numpy.ones(a_shape, numpy.float32)
    b = numpy.ones(b_shape, numpy.float32)
    with pytest.raises(ValueError, match=message):
        F.tensordot(a, b, axes=axes)


@pytest.mark.parametrize("operand", [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 1.5])
def test_einsum_operand_that_is_no_array_is_chainers_type_error(operand):
    with pytest.raises(TypeError, match=r"^incompatible array types are mixed in the forward "
                                        r"input \(EinSum\)\.\nActual: "):
        F.einsum("ij,jk->ik", operand, numpy.ones((3, 4), numpy.float32))
