"""Internal classes and helpers called the way Chainer 7.8.1 defines them: gradient nodes built
with Chainer's constructor arguments, ``im2col``'s positional parameters, the debug-mode
assertion of ``bias`` and ``scale``, ``get_types``' assertion and ``einsum``'s refusal to
broadcast ellipses. Found by running Chainer's own test suite against
chainer_compat (its tests build ``TanhGrad(x)`` and ``SigmoidGrad((x,))`` directly). Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer 7.8.1 itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
conv = importlib.import_module(chainer.__name__ + ".utils.conv")
conv_nd = importlib.import_module(chainer.__name__ + ".utils.conv_nd")


def _module(path):
    return importlib.import_module(f"{chainer.__name__}.functions.{path}")


def _uniform(shape, seed=0, low=-1.0, high=1.0, dtype=numpy.float64):
    return numpy.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


# ------------------------------------------------------------- gradient nodes, Chainer's way
def test_tanh_grad_takes_the_forward_input():
    tanh = _module("activation.tanh")
    x = _uniform((3, 2))
    y, gy = numpy.tanh(x), _uniform((3, 2), seed=1)
    gx, = tanh.TanhGrad(x).apply((y, gy))
    numpy.testing.assert_allclose(gx.array, gy * (1 - y * y), rtol=1e-12)


def test_sigmoid_grad_takes_a_tuple_of_the_forward_input():
    sigmoid = _module("activation.sigmoid")
    x = _uniform((4,))
    y, gy = 1 / (1 + numpy.exp(-x)), _uniform((4,), seed=1)
    gx, = sigmoid.SigmoidGrad((x,)).apply((y, gy))
    numpy.testing.assert_allclose(gx.array, gy * y * (1 - y), rtol=1e-12)


def test_softplus_grad_takes_a_tuple_of_beta():
    softplus = _module("activation.softplus")
    x, gy = _uniform((5,)), _uniform((5,), seed=1)
    gx, = softplus.SoftplusGrad((2.0,)).apply((x, gy))
    numpy.testing.assert_allclose(gx.array, gy / (1 + numpy.exp(-2.0 * x)), rtol=1e-12)


def test_repeat_grad_takes_the_input_dtype_fourth():
    repeat = _module("array.repeat")
    gy = numpy.arange(6, dtype=numpy.float32)
    gx, = repeat.RepeatGrad((2,), 0, (3,), numpy.float32).apply((gy,))
    numpy.testing.assert_array_equal(gx.array, numpy.array([1, 5, 9], numpy.float32))


def test_elu_grad_names_its_mask_cond():
    elu = _module("activation.elu")
    node = elu.ELUGrad(alpha=0.5, cond=numpy.array([True, False]))
    assert node.alpha == 0.5


# ------------------------------------------------------------------------------ im2col
def test_im2col_eighth_positional_argument_is_cover_all():
    img = _uniform((1, 1, 4, 4), dtype=numpy.float32)
    covered = conv.im2col(img, 3, 3, 2, 2, 0, 0, True)
    assert covered.shape == (1, 1, 3, 3, 2, 2)
    assert conv.im2col(img, 3, 3, 2, 2, 0, 0, False).shape == (1, 1, 3, 3, 1, 1)
    numpy.testing.assert_array_equal(
        covered, conv.im2col_cpu(img, 3, 3, 2, 2, 0, 0, cover_all=True))


def test_im2col_cpu_eighth_positional_argument_is_the_padding_value():
    img = numpy.ones((1, 1, 1, 1), numpy.float32)
    col = conv.im2col_cpu(img, 3, 3, 1, 1, 1, 1, 7)
    assert col.shape == (1, 1, 3, 3, 1, 1)
    assert col[0, 0, 1, 1, 0, 0] == 1
    assert (col.sum() - 1) == 8 * 7


def test_im2col_nd_fifth_positional_argument_is_cover_all():
    img = _uniform((1, 1, 4, 4, 4), dtype=numpy.float32)
    covered = conv_nd.im2col_nd(img, (3, 3, 3), (2, 2, 2), (0, 0, 0), True)
    assert covered.shape == (1, 1, 3, 3, 3, 2, 2, 2)
    numpy.testing.assert_array_equal(
        covered,
        conv_nd.im2col_nd_cpu(img, (3, 3, 3), (2, 2, 2), (0, 0, 0), cover_all=True))


# --------------------------------------------------------------- bias and scale in debug mode
@pytest.mark.parametrize("function", ["bias", "scale"])
def test_debug_mode_asserts_an_exact_run_of_x_axes(function):
    x = numpy.zeros((3, 2, 3), numpy.float32)
    with chainer.using_config("debug", True):
        with pytest.raises(AssertionError):
            getattr(F, function)(x, numpy.ones((2,), numpy.float32), 0)
        # a y that would broadcast (1 on an axis) is refused in debug mode too
        with pytest.raises(AssertionError):
            getattr(F, function)(x, numpy.ones((1, 3), numpy.float32), 1)
        out = getattr(F, function)(x, numpy.ones((2, 3), numpy.float32), 1)
    assert out.shape == (3, 2, 3)


@pytest.mark.parametrize("function, expected", [("bias", 1.0), ("scale", 0.0)])
def test_outside_debug_mode_y_broadcasts(function, expected):
    x = numpy.zeros((3, 2, 3), numpy.float32)
    out = getattr(F, function)(x, numpy.ones((1, 3), numpy.float32), 1)
    numpy.testing.assert_array_equal(out.array, numpy.full((3, 2, 3), expected, numpy.float32))


# --------------------------------------------------------------------------- type_check
@pytest.mark.parametrize("data", [1, [numpy.zeros(2)]])
def test_get_types_refuses_what_it_cannot_describe_with_an_assertion_error(data):
    type_check = importlib.import_module(chainer.__name__ + ".utils.type_check")
    with pytest.raises(AssertionError):
        type_check.get_types(data, "in_types", False)
    if chainer.__name__ == "chainer_compat":
        with pytest.raises(TypeError, match="in_types|tuple"):
            type_check.get_types(data, "in_types", False)


# ------------------------------------------------------------------------------- einsum
@pytest.mark.parametrize("shapes", [((2,), (1, 2)), ((2, 2), (1, 2)), ((3, 2), (2,))])
def test_einsum_ellipses_must_cover_the_same_shape(shapes):
    type_check = importlib.import_module(chainer.__name__ + ".utils.type_check")
    arrays = [numpy.zeros(shape, numpy.float32) for shape in shapes]
    with pytest.raises(type_check.InvalidType):
        F.einsum("...i,...i->...i", *arrays)


def test_einsum_ellipses_of_one_shape_multiply_elementwise():
    a, b = _uniform((3, 2), dtype=numpy.float32), _uniform((3, 2), seed=1, dtype=numpy.float32)
    y = F.einsum("...i,...i->...i", a, b)
    numpy.testing.assert_allclose(y.array, a * b, rtol=1e-6)
