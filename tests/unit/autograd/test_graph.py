"""allow_mutation_on_saved_tensors: saved values are preserved, so gradients stay right."""

from __future__ import annotations

import numpy
import pytest
from sample_functions import CtxCube, CtxExp, ExpNode, OldStyleSquare, SquareNode

import chainer_compat as C
from chainer_compat import Variable
from chainer_compat import functions as F
from chainer_compat.autograd import (
    SMALL_NBYTES,
    Function,
    VersionMismatch,
    _saved_arrays,
    allow_mutation_on_saved_tensors,
    graph,
)


def arr(*values):
    return numpy.array(values, dtype=numpy.float64)


@pytest.fixture(autouse=True)
def _no_block_left_open():
    yield
    assert _saved_arrays._Preserve.depth == 0


def test_graph_module_exports_the_context_manager():
    assert graph.allow_mutation_on_saved_tensors is allow_mutation_on_saved_tensors


def test_ctx_saved_input_keeps_its_forward_value():
    with allow_mutation_on_saved_tensors():
        x = Variable(arr(1.0, 2.0))
        y = CtxCube.apply(x)
        x.array[...] = [10.0, 20.0]  # the write itself succeeds
    F.sum(y).backward()
    numpy.testing.assert_array_equal(x.array, [10.0, 20.0])
    numpy.testing.assert_array_equal(x.grad, [3.0, 12.0])  # 3 x^2 at the forward's x


def test_ctx_saved_output_keeps_its_forward_value():
    with allow_mutation_on_saved_tensors():
        x = Variable(arr(0.0, 1.0))
        y = CtxExp.apply(x)
    y.array[...] = 0.0
    F.sum(y).backward()
    numpy.testing.assert_allclose(x.grad, numpy.exp([0.0, 1.0]))


def test_unchanged_saved_arrays_are_handed_out_as_themselves():
    captured = []

    class Keep(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, gy):
            captured.extend(ctx.saved_tensors)
            return gy * 2

    with allow_mutation_on_saved_tensors():
        x = Variable(arr(1.0))
        y = Keep.apply(x)
    y.backward()
    assert captured[0] is x


def test_double_backward_through_a_preserved_input_reaches_the_input():
    with allow_mutation_on_saved_tensors():
        x = Variable(arr(1.0, 2.0))
        y = CtxCube.apply(x)
    x.array[...] = [5.0, 5.0]
    gx, = C.grad([F.sum(y)], [x], enable_double_backprop=True)
    numpy.testing.assert_array_equal(gx.array, [3.0, 12.0])
    F.sum(gx).backward()
    numpy.testing.assert_array_equal(x.grad, [6.0, 12.0])  # 6 x at the forward's x


def test_large_arrays_are_preserved_too():
    with allow_mutation_on_saved_tensors():
        x = Variable(numpy.full(SMALL_NBYTES // 8 + 1, 2.0))
        y = CtxCube.apply(x)
    x.array[...] = 0.0
    F.sum(y).backward()
    assert (x.grad == 12.0).all()


def test_arrays_saved_outside_the_block_are_still_checked():
    x = Variable(arr(1.0, 2.0))
    y = CtxCube.apply(x)
    with allow_mutation_on_saved_tensors():
        x.array[0] = 3.0
        with pytest.raises(VersionMismatch):
            F.sum(y).backward()


def test_blocks_nest_and_checks_come_back_after_the_block():
    with allow_mutation_on_saved_tensors():
        with allow_mutation_on_saved_tensors():
            pass
        x = Variable(arr(1.0))
        preserved = CtxCube.apply(x)
    x2 = Variable(arr(1.0))
    checked = CtxCube.apply(x2)
    x.array[0] = 2.0
    x2.array[0] = 2.0
    preserved.backward()
    numpy.testing.assert_array_equal(x.grad, [3.0])
    with pytest.raises(VersionMismatch):
        checked.backward()


def test_the_block_is_left_on_an_exception():
    with pytest.raises(KeyError), allow_mutation_on_saved_tensors():
        raise KeyError("boom")
    assert _saved_arrays._Preserve.depth == 0


def test_function_node_retained_input_keeps_its_forward_value():
    with allow_mutation_on_saved_tensors():
        x = Variable(arr(1.0, 2.0))
        y = SquareNode().apply((x,))[0]
    x.array += 10.0
    F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])


def test_function_node_retained_output_keeps_its_forward_value():
    with allow_mutation_on_saved_tensors():
        x = Variable(arr(0.0, 1.0))
        y = ExpNode().apply((x,))[0]
    y.array[...] = -1.0
    F.sum(y).backward()
    numpy.testing.assert_allclose(x.grad, numpy.exp([0.0, 1.0]))


def test_old_style_retained_input_keeps_its_forward_value():
    with allow_mutation_on_saved_tensors():
        x = Variable(arr(1.0, 2.0))
        y = OldStyleSquare()(x)
    x.array += 10.0
    F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])


@pytest.mark.parametrize("make", [lambda x: OldStyleSquare()(x),
                                  lambda x: SquareNode().apply((x,))[0]])
def test_every_backward_gets_the_preserved_value(make):
    # NOTE [checked once] retires records once read, except those holding a preserved copy.
    with allow_mutation_on_saved_tensors():
        x = Variable(arr(1.0, 2.0))
        y = make(x)
    x.array += 10.0
    for _ in range(2):
        x.cleargrad()
        F.sum(y).backward()
        numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])
