"""einsum: values against numpy.einsum for string and sublist forms, ellipses and implicit
outputs; gradients of two orders, including diagonals and broadcasts; argument errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import LabelRecorder, gradients_under_a_hook

import chainer_compat
from chainer_compat import Variable
from chainer_compat.functions.math.einsum import EinSum, einsum
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]

CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iij->ij", [(3, 3, 2)]),
    ("ii,i->i", [(3, 3), (3,)]),
    ("ij->", [(2, 3)]),
    ("ji", [(2, 3)]),
    ("i,i", [(3,), (3,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)]),
    ("ij...->ji...", [(2, 3, 4)]),
    ("...", [(2, 3)]),
    ("i...,i...", [(2, 3), (2, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("Ab,bA->", [(2, 3), (3, 2)]),
    (" i j , j k -> i k ", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("subscripts, shapes", CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(subscripts, shapes, dtype, uniform, check_function):
    inputs = tuple(uniform(shape, dtype) for shape in shapes)
    tolerance = {"atol": 2e-2, "rtol": 2e-2} if dtype == numpy.float16 else None
    check_function(lambda *xs: einsum(subscripts, *xs), inputs,
                   lambda *xs: numpy.einsum(subscripts, *xs), forward_tolerance=tolerance)


@pytest.mark.parametrize("sublists, expected", [
    (lambda a, b: (a, [0, 1], b, [1, 2], [0, 2]), "ij,jk->ik"),
    (lambda a, b: (a, [0, 1], b, [1, 2]), "ij,jk"),
    (lambda a, b: (a, [Ellipsis, 1], b, [1, 2], [Ellipsis, 2]), "...j,jk->...k"),
    (lambda a, b: (a, [26, 27], b, [27, 28], [26, 28]), "ab,bc->ac")])
def test_sublist_form_matches_the_string_form(sublists, expected, uniform, check_function):
    a, b = uniform((2, 3), numpy.float64), uniform((3, 4), numpy.float64)
    check_function(lambda a, b: einsum(*sublists(a, b)), (a, b),
                   lambda a, b: numpy.einsum(expected, a, b))


def test_mixed_dtypes_give_the_result_dtype():
    y = einsum("i,i->i", numpy.ones(2, numpy.float32), numpy.ones(2, numpy.float64))
    assert y.dtype == numpy.float64


def test_single_operand_result_owns_its_memory():
    x = numpy.arange(9.0).reshape(3, 3)
    y = einsum("ij->ji", x)
    y.array[0, 0] = 100.0
    assert x[0, 0] == 0.0


@pytest.mark.parametrize("operands, error, match", [
    ((), ValueError, "No input operands"),
    (("i$j",), ValueError, r"Character \$ is not a valid symbol"),
    (("i->j->k",), ValueError, "Subscripts can only contain one '->'"),
    (("i-j",), ValueError, "Subscripts can only contain one '->'"),
    (("i..j",), ValueError, "Invalid Ellipses"),
    (("i->j",), ValueError, "Output character j did not appear in the input"),
    (("i->...",), ValueError, r"Output character \.\.\. did not appear"),
    (("i->ii",), ValueError, "output subscripts must name each axis once"),
    (("i,j",), ValueError, "Number of einsum subscripts must be equal to the number of operands"),
    ((numpy.ones(2), ["i"]), TypeError, "lists must contain either int or Ellipsis"),
    ((numpy.ones(2), [0], [1.5]), TypeError, "lists must contain either int or Ellipsis")])
def test_malformed_subscripts_raise(operands, error, match):
    # A subscript string gets one operand: enough for every check but the count one.
    args = (operands[0], numpy.ones(2)) if operands and isinstance(operands[0], str) else operands
    with pytest.raises(error, match=match):
        einsum(*args)


def test_summing_over_a_nonempty_ellipsis_is_refused():
    with pytest.raises(ValueError, match="summing over Ellipsis"):
        einsum("...i->i", numpy.ones((2, 3)))
    # An ellipsis that covers no axis may be dropped.
    assert einsum("...i->i", numpy.ones(3)).shape == (3,)


def test_operand_with_too_few_axes_for_its_subscript():
    with pytest.raises(ValueError, match="operand 0 must have at least 2 axes"):
        einsum("ij...->i", numpy.ones(3))


@pytest.mark.parametrize("subscripts, shapes, match", [
    ("ij,jk->ik", [(2, 3), (4, 5)], r"EinSum \(Forward\)"),
    ("ij->i", [(2,)], r"x0\.ndim == 2"),
    ("ii->i", [(2, 3)], r"x0\.shape")])
def test_type_check_rejects_mismatched_axes(subscripts, shapes, match):
    with pytest.raises(type_check.InvalidType, match=match):
        einsum(subscripts, *[numpy.ones(s) for s in shapes])


def test_type_check_rejects_integer_inputs():
    with pytest.raises(type_check.InvalidType, match=r"x0\.dtype\.kind == f"):
        einsum("i->i", numpy.arange(3))


def test_node_keeps_chainers_attribute_names():
    node = EinSum("ij,jk", "ik")
    assert (node.in_subs, node.out_sub) == ("ij,jk", "ik")


@pytest.mark.parametrize("subscripts, shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("iij,jk->ik", [(3, 3, 2), (2, 4)]), ("ij->i", [(2, 3)])])
def test_a_hook_sees_chainers_gradient_nodes(subscripts, shapes):
    rng = numpy.random.default_rng(9)
    arrays = [rng.standard_normal(shape).astype(numpy.float32) for shape in shapes]
    gy = rng.standard_normal(einsum(subscripts, *arrays).shape).astype(numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(
        lambda *xs: einsum(subscripts, *xs), arrays, gy)
    # Chainer 7.8.1's sequence: one DiagEinSum per input.
    assert labels == ["DiagEinSum"] * len(shapes)
    for gradient, under_hook in zip(plain, hooked):
        numpy.testing.assert_array_equal(gradient, under_hook)


def test_gradient_fills_a_diagonal_and_broadcasts_as_numpy_would():
    x = Variable(numpy.arange(18.0).reshape(3, 3, 2))
    y = einsum("iij->j", x)
    y.grad = numpy.array([1.0, 2.0])
    y.backward()
    numpy.testing.assert_array_equal(
        x.grad, numpy.eye(3)[:, :, None] * numpy.array([1.0, 2.0]))


def test_second_order_gradients_pass_through_diag_einsum():
    rng = numpy.random.default_rng(10)
    a, b = (Variable(rng.standard_normal(shape)) for shape in ((2, 3), (3, 4)))
    ga, = chainer_compat.grad([einsum("ij,jk->ik", a, b)], [a], enable_double_backprop=True)
    assert ga.creator.label == "DiagEinSum"
    with LabelRecorder() as recorder:
        gb, = chainer_compat.grad([ga * ga], [b])
    assert recorder.labels[-1] == "DiagEinSum" and recorder.labels.count("DiagEinSum") == 1
    # ga[i, j] is the sum of b's row j (the output gradient is ones).
    expected = numpy.repeat(2 * ga.array.sum(axis=0)[:, None], 4, axis=1)
    numpy.testing.assert_allclose(gb.array, expected, rtol=1e-12)
