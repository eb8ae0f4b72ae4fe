"""VersionMismatch: in-place writes to arrays kept for backward, for every kind of function."""

from __future__ import annotations

import weakref

import numpy
import pytest
from sample_functions import CtxExp, ExpNode, MulNode, OldStyleSquare, SquareNode

import chainer_compat as C
from chainer_compat import FunctionNode, Variable
from chainer_compat import function_node as function_node_module
from chainer_compat import functions as F
from chainer_compat.autograd import (
    SMALL_NBYTES,
    Function,
    FunctionCtx,
    VersionMismatch,
    _saved_arrays,
    increment_version,
)


def arr(*values):
    return numpy.array(values, dtype=numpy.float64)


def large(value=1.0):
    """A float64 array above the size that is always fingerprinted."""
    return numpy.full(SMALL_NBYTES // 8 + 1, value)


class CtxSquare(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, gy):
        x, = ctx.saved_tensors
        return 2 * x.array * gy.array


class CtxScratch(Function):
    """Saves an array that is neither an input nor an output, and exposes it."""

    last_scratch = None

    @staticmethod
    def forward(ctx, x):
        scratch = x * 3.0
        CtxScratch.last_scratch = scratch
        ctx.save_for_backward(scratch)
        return x * 3.0

    @staticmethod
    def backward(ctx, gy):
        scratch, = ctx.saved_tensors
        return gy.array * scratch.array / scratch.array * 3.0


def square_by(kind, x):
    if kind == "ctx":
        return CtxSquare.apply(x)
    if kind == "node":
        return SquareNode().apply((x,))[0]
    return OldStyleSquare()(x)


KINDS = ["ctx", "node", "old-style"]
LABELS = {"ctx": "CtxSquare", "node": "SquareNode", "old-style": "OldStyleSquare"}


@pytest.fixture(autouse=True)
def _checker_installed():
    assert function_node_module._saved_arrays is _saved_arrays.SavedArrayChecker
    yield
    _saved_arrays._versions.clear()
    _saved_arrays._update_lone_records()


def test_version_mismatch_is_a_runtime_error():
    assert issubclass(VersionMismatch, RuntimeError)


# ------------------------------------------------------------------------------------ detection
@pytest.mark.parametrize("kind", KINDS)
def test_saved_input_written_in_place_raises_naming_function_and_array(kind):
    x = Variable(arr(1.0, 2.0, 3.0))
    y = square_by(kind, x)
    x.array[1] = 10.0
    with pytest.raises(VersionMismatch) as info:
        F.sum(y).backward()
    message = str(info.value)
    assert f"input 0 of {LABELS[kind]}, saved for its backward, must not be modified" in message
    assert "saved array: input 0, shape=(3,), dtype=float64" in message
    assert "allow_mutation_on_saved_tensors" in message


@pytest.mark.parametrize("kind", KINDS)
def test_augmented_assignment_on_the_array_is_detected(kind):
    x = Variable(arr(1.0, 2.0))
    y = square_by(kind, x)
    data = x.array
    data += 1
    with pytest.raises(VersionMismatch):
        F.sum(y).backward()


@pytest.mark.parametrize("apply", [CtxExp.apply, lambda x: ExpNode().apply((x,))[0]])
def test_saved_output_written_in_place_raises(apply):
    x = Variable(arr(0.0, 1.0))
    y = apply(x)
    y.array *= 2.0
    with pytest.raises(VersionMismatch, match=r"output 0 of (CtxExp|ExpNode), saved for its"):
        F.sum(y).backward()


class ExpPairNode(FunctionNode):
    """Outputs (exp(x), 2 exp(x)); keeps only the second for backward."""

    def forward(self, inputs):
        self.retain_outputs((1,))
        y = numpy.exp(inputs[0])
        return y, y * 2.0

    def backward(self, indexes, grad_outputs):
        doubled, = self.get_retained_outputs()
        g0, g1 = grad_outputs
        total = g0 * doubled * 0.5
        return (total if g1 is None else total + g1 * doubled),


class CtxExpPair(Function):
    @staticmethod
    def forward(ctx, x):
        y = numpy.exp(x)
        doubled = y * 2.0
        ctx.save_for_backward(doubled)
        return y, doubled

    @staticmethod
    def backward(ctx, g0, g1):
        doubled, = ctx.saved_tensors
        return (g0.array * 0.5 + g1.array) * doubled.array


def _first_of_pair_keeping_second_array(apply, x):
    """Applies a pair function, keeps output 0 and only the array of output 1 (its Variable
    and node are dropped, so backward has to resurrect it from the retained array)."""
    first, second = apply(x)
    data = second.array
    del second
    return first, data


@pytest.mark.parametrize("apply", [
    CtxExpPair.apply,
    lambda x: ExpPairNode().apply((x,)),
])
def test_saved_output_whose_node_was_dropped_is_still_checked(apply):
    x = Variable(arr(0.0, 1.0))
    first, data = _first_of_pair_keeping_second_array(apply, x)
    F.sum(first).backward()  # resurrected and unchanged: fine
    numpy.testing.assert_allclose(x.grad, numpy.exp([0.0, 1.0]))
    first, data = _first_of_pair_keeping_second_array(apply, x)
    data[0] = 7.0
    with pytest.raises(VersionMismatch, match=r"output 1 of (CtxExpPair|ExpPairNode)"):
        F.sum(first).backward()


def test_saved_array_that_is_neither_input_nor_output_is_checked():
    x = Variable(arr(1.0, 2.0))
    y = CtxScratch.apply(x)
    CtxScratch.last_scratch[0] = -1.0
    with pytest.raises(VersionMismatch, match=r"saved tensor 0 of CtxScratch"):
        F.sum(y).backward()


@pytest.mark.parametrize("kind", KINDS)
def test_no_error_without_a_write(kind):
    x = Variable(arr(1.0, 2.0))
    F.sum(square_by(kind, x)).backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])


@pytest.mark.parametrize("kind", KINDS)
def test_write_through_the_base_of_a_saved_view_is_detected(kind):
    base = arr(1.0, 2.0, 3.0, 4.0)
    x = Variable(base[1:3])
    y = square_by(kind, x)
    base[2] = 0.0
    with pytest.raises(VersionMismatch):
        F.sum(y).backward()


def test_write_through_a_view_of_a_saved_base_is_detected():
    base = arr(1.0, 2.0, 3.0)
    x = Variable(base)
    y = CtxSquare.apply(x)
    view = base[::2]
    view[1] = 7.0
    with pytest.raises(VersionMismatch):
        F.sum(y).backward()


def test_writes_inside_forward_are_fine():
    class WritesAfterSaving(Function):
        @staticmethod
        def forward(ctx, x):
            out = x * 2.0
            ctx.save_for_backward(out)
            out += 1.0  # forward still owns it: the value at return is what is saved
            return out

        @staticmethod
        def backward(ctx, gy):
            out, = ctx.saved_tensors
            return gy.array * (out.array - 1.0)

    class RetainThenWrite(FunctionNode):
        def forward(self, inputs):
            self.retain_outputs((0,))
            out = inputs[0] * 2.0
            out += 1.0
            return out,

        def backward(self, indexes, grad_outputs):
            out, = self.get_retained_outputs()
            return grad_outputs[0] * (out - 1.0),

    x = Variable(arr(1.0, 2.0))
    F.sum(WritesAfterSaving.apply(x)).backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])
    x.cleargrad()
    F.sum(RetainThenWrite().apply((x,))[0]).backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])


@pytest.mark.parametrize("kind", KINDS)
def test_writes_after_backward_succeed_as_in_a_legacy_sgd_loop(kind):
    w = Variable(arr(1.0, -2.0))
    for _ in range(3):
        w.cleargrad()
        loss = F.sum(square_by(kind, w))
        loss.backward()
        w.array -= 0.25 * w.grad  # in place into the retained parameter
    assert w.array.flags.writeable
    numpy.testing.assert_allclose(w.array, arr(1.0, -2.0) * 0.5 ** 3)


def test_saved_arrays_that_backward_never_reads_are_exempt():
    class RetainsButIgnores(FunctionNode):
        def forward(self, inputs):
            self.retain_inputs((0,))
            return inputs[0] * 3.0,

        def backward(self, indexes, grad_outputs):
            return grad_outputs[0] * 3.0,

    class SavesButIgnores(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 3.0

        @staticmethod
        def backward(ctx, gy):
            return gy.array * 3.0

    for apply in (lambda x: RetainsButIgnores().apply((x,))[0], SavesButIgnores.apply):
        x = Variable(arr(1.0, 2.0))
        y = apply(x)
        x.array[0] = 5.0
        F.sum(y).backward()
        numpy.testing.assert_array_equal(x.grad, [3.0, 3.0])


def test_a_write_that_stores_the_same_values_is_not_reported():
    x = Variable(arr(1.0, 2.0))
    y = CtxSquare.apply(x)
    x.array[...] = x.array.copy()
    F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])


def test_nan_values_left_alone_are_not_reported():
    x = Variable(arr(numpy.nan, 2.0))
    y = CtxSquare.apply(x)
    F.sum(y).backward()
    assert numpy.isnan(x.grad[0]) and x.grad[1] == 4.0


def test_each_function_compares_with_its_own_forward():
    x = Variable(arr(1.0, 2.0))
    first = SquareNode().apply((x,))[0]
    x.array[0] = 3.0
    second = SquareNode().apply((x,))[0]  # saved after the write: fine for this one
    F.sum(second).backward()
    numpy.testing.assert_array_equal(x.grad, [6.0, 4.0])
    with pytest.raises(VersionMismatch):
        F.sum(first).backward()


class KeepsBoth(FunctionNode):
    """Keeps its input and its output: the lone first record must become a pair."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return numpy.exp(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        return grad_outputs[0] * y * (x / x),


@pytest.mark.parametrize("written", ["input", "output", "neither"])
def test_a_function_keeping_an_input_and_an_output_checks_both(written):
    x = Variable(arr(0.5, 1.0))
    y, = KeepsBoth().apply((x,))
    target = {"input": x.array, "output": y.array, "neither": None}[written]
    if target is not None:
        target[0] += 1.0
    if written == "neither":
        y.grad = numpy.ones(2)
        y.backward()
        numpy.testing.assert_allclose(x.grad, numpy.exp([0.5, 1.0]))
    else:
        with pytest.raises(VersionMismatch, match=f"{written} 0"):
            y.grad = numpy.ones(2)
            y.backward()


def _apply_again(kind, node, x):
    if kind == "old-style":
        return node(x)  # reuses its adapter while the first output lives
    if kind == "two inputs":
        return node.apply((x, Variable(arr(1.0, 1.0))))[0]
    return node.apply((x,))[0]


@pytest.mark.parametrize("kind", ["node", "old-style", "two inputs", "input and output"])
def test_a_node_applied_again_compares_with_its_latest_forward(kind):
    node = {"node": SquareNode, "old-style": OldStyleSquare, "two inputs": MulNode,
            "input and output": KeepsBoth}[kind]()
    x = Variable(arr(1.0, 2.0))
    first = _apply_again(kind, node, x)
    x.array[...] = 3.0  # before the second forward: that forward saw these values
    second = _apply_again(kind, node, x)
    if kind == "old-style":
        assert second.creator_node is first.creator_node
    F.sum(second).backward()
    expected = {"node": 6.0, "old-style": 6.0, "two inputs": 1.0,
                "input and output": float(numpy.exp(3.0))}[kind]
    numpy.testing.assert_allclose(x.grad, [expected, expected])
    third = _apply_again(kind, node, x)
    x.array[0] = 4.0  # after the latest forward: still caught
    with pytest.raises(VersionMismatch):
        F.sum(third).backward()


@pytest.mark.parametrize("kind", KINDS)
def test_a_write_after_the_first_backward_that_read_it_is_not_reported(kind):
    # NOTE [checked once]: Chainer's DCGAN example updates the discriminator's parameters in
    # place between two backwards through the same nodes; the second reads them as they are.
    x = Variable(arr(1.0, 2.0))
    y = square_by(kind, x)
    C.grad([F.sum(y)], [x])  # the first backward that reads the saved array: it is unchanged
    x.array[...] = [3.0, 4.0]
    F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, [6.0, 8.0])  # as Chainer computes it


@pytest.mark.parametrize("kind", KINDS)
def test_each_saved_array_is_checked_by_the_first_backward_that_reads_it(kind):
    x = Variable(arr(1.0, 2.0))
    y = square_by(kind, x)
    x.array[0] = 5.0
    with pytest.raises(VersionMismatch):
        C.grad([F.sum(y)], [x])
    with pytest.raises(VersionMismatch):  # a failed check retires nothing
        F.sum(y).backward()


def test_a_checked_record_no_longer_keeps_its_array():
    node = SquareNode()
    x = Variable(large())
    y, = node.apply((x,))
    F.sum(y).backward()
    assert node._saved_records is None and node._saved_lone_array is None


class ExpByOutputData(FunctionNode):
    """Reads its kept output through output_data, as code ported from old-style does."""

    def forward(self, inputs):
        self.retain_outputs((0,))
        return numpy.exp(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.output_data
        return grad_outputs[0] * y,


def test_function_node_output_data_is_checked():
    x = Variable(arr(0.0, 1.0))
    y = ExpByOutputData().apply((x,))[0]
    y.array[...] = 5.0
    with pytest.raises(VersionMismatch, match="output 0 of ExpByOutputData"):
        F.sum(y).backward()
    fine = ExpByOutputData().apply((x,))[0]
    F.sum(fine).backward()
    numpy.testing.assert_allclose(x.grad, numpy.exp([0.0, 1.0]))


def test_unchain_lets_the_kept_arrays_go():
    node = SquareNode()
    x = Variable(large())
    y, = node.apply((x,))
    kept = weakref.ref(x.array)
    node.unchain()
    del x
    assert kept() is None
    assert node._saved_records is None


def test_a_node_applied_again_keeps_no_array_of_its_earlier_forward():
    node = ExpNode()
    x = Variable(arr(1.0, 2.0))
    y, = node.apply((x,))
    earlier = weakref.ref(y.array)
    del y
    y, = node.apply((x,))
    assert earlier() is None
    numpy.testing.assert_allclose(y.array, numpy.exp(arr(1.0, 2.0)))


def test_one_small_saved_array_is_recorded_without_a_tuple():
    # NOTE [saved records]: the commonest record leaves no tuple for the garbage collector.
    x = Variable(arr(1.0, 2.0))
    y = OldStyleSquare()(x)
    adapter = y.creator_node
    assert type(adapter._saved_records) is bytes and adapter._saved_lone_array is x.array
    x.array[1] = 5.0
    with pytest.raises(VersionMismatch, match="OldStyleSquare"):
        F.sum(y).backward()


def test_lone_records_are_handled_inline_only_while_nothing_else_needs_checking():
    from chainer_compat.autograd import graph

    checker = _saved_arrays.SavedArrayChecker
    assert checker.lone_records
    with graph.allow_mutation_on_saved_tensors():
        assert not checker.lone_records
    assert checker.lone_records
    written = arr(1.0)
    increment_version(written)
    assert not checker.lone_records
    del written  # its version entry goes with it
    assert checker.lone_records


def test_an_explicit_version_bump_after_an_inline_lone_record_is_caught():
    # Saved while lone records are inline, bumped (not written) before backward: the adapter's
    # inline verification must hand over to the checker, which sees the version.
    x = Variable(arr(1.0, 2.0))
    y = OldStyleSquare()(x)
    assert type(y.creator_node._saved_records) is bytes
    increment_version(x.array)
    with pytest.raises(VersionMismatch, match="OldStyleSquare"):
        F.sum(y).backward()


def test_inside_allow_mutation_an_old_style_input_is_preserved_not_inlined():
    from chainer_compat.autograd import graph

    x = Variable(arr(1.0, 2.0))
    with graph.allow_mutation_on_saved_tensors():
        y = OldStyleSquare()(x)
    assert type(y.creator_node._saved_records) is tuple
    x.array[0] = 10.0
    F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])  # from the preserved 1.0, 2.0


@pytest.mark.parametrize("kind", KINDS)
def test_a_replaced_array_is_not_a_write_and_backward_reads_the_new_one(kind):
    # NOTE [saved-array checks]: replacing an array is not writing it. The node that keeps it
    # follows the replacement (as Chainer's does), and the old buffer may then be reused.
    old = arr(1.0, 2.0)
    x = Variable(old)
    y = square_by(kind, x)
    x.array = arr(7.0, 8.0)
    old[...] = 0.0  # the old buffer reused: no longer anything backward reads
    F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, [14.0, 16.0])


# ------------------------------------------------------------------------------------ large
@pytest.mark.parametrize("kind", KINDS)
def test_large_arrays_are_not_fingerprinted_by_default(kind):
    x = Variable(large())
    y = square_by(kind, x)
    x.array[0] = 5.0
    F.sum(y).backward()  # documented: not detected without check_saved_arrays
    assert x.grad[0] == 10.0


@pytest.mark.parametrize("key", ["check_saved_arrays", "debug"])
@pytest.mark.parametrize("kind", KINDS)
def test_large_arrays_are_checked_under_the_config_key_or_debug(kind, key):
    x = Variable(large())
    with C.using_config(key, True):
        y = square_by(kind, x)
    x.array[-1] = 5.0
    with pytest.raises(VersionMismatch):
        F.sum(y).backward()


def test_large_non_contiguous_arrays_are_checked_under_the_config_key():
    base = numpy.ones((2, SMALL_NBYTES // 8 + 1))
    x = Variable(base.T)
    with C.using_config("check_saved_arrays", True):
        unchanged = CtxSquare.apply(x)
        written = CtxSquare.apply(x)
    F.sum(unchanged).backward()  # unchanged: fine
    base[1, 0] = 3.0
    with pytest.raises(VersionMismatch):
        F.sum(written).backward()


# ------------------------------------------------------------------------------------ versions
@pytest.mark.parametrize("kind", KINDS)
def test_increment_version_catches_writes_the_fingerprint_cannot(kind):
    x = Variable(large())
    y = square_by(kind, x)
    x.array[0] = 1.0  # same value, and a large array: invisible to the fingerprint
    increment_version(x)
    with pytest.raises(VersionMismatch, match=r"marked as modified"):
        F.sum(y).backward()


def test_increment_version_through_a_view_counts():
    base = large()
    x = Variable(base)
    y = CtxSquare.apply(x)
    increment_version(base[:3])
    with pytest.raises(VersionMismatch):
        F.sum(y).backward()


def test_increment_version_before_forward_does_not_affect_that_forward():
    x = Variable(large())
    increment_version(x.array)
    y = CtxSquare.apply(x)
    F.sum(y).backward()
    assert x.grad[0] == 2.0


def test_increment_version_rejects_non_arrays():
    with pytest.raises(TypeError, match=r"increment_version arguments must be"):
        increment_version([1.0])


def test_version_entries_go_with_their_array():
    x = numpy.ones(3)
    increment_version(x)
    assert _saved_arrays._versions
    del x
    assert not _saved_arrays._versions


def test_mark_dirty_in_a_later_forward_invalidates_earlier_saves():
    class AddOneInPlace(Function):
        @staticmethod
        def forward(ctx, x):
            x += 1.0
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)  # its own save is taken after forward: fine
            return x

        @staticmethod
        def backward(ctx, gy):
            saved, = ctx.saved_tensors
            return gy.array * (saved.array / saved.array)

    x = Variable(large())
    y = CtxSquare.apply(x)
    z = AddOneInPlace.apply(x)
    F.sum(z).backward()
    with pytest.raises(VersionMismatch, match=r"input 0 of CtxSquare"):
        F.sum(y).backward()


def test_mark_dirty_outside_forward_raises():
    with pytest.raises(RuntimeError, match=r"mark_dirty of Function must be called inside "
                                           r"forward.*increment_version"):
        FunctionCtx().mark_dirty(numpy.ones(1))


# ------------------------------------------------------------------------------------ helpers
def test_same_bits_treats_nan_as_equal_and_sees_sign_of_zero():
    a = numpy.array([numpy.nan, 0.0, 1.0 + 2.0j])
    assert _saved_arrays.same_bits(a, a.copy())
    b = a.copy()
    b[1] = -0.0
    assert not _saved_arrays.same_bits(a, b)
    assert not _saved_arrays.same_bits(a, a[:2])


def test_device_copy_fingerprint_compares_bits_on_the_arrays_device():
    array = arr(1.0, numpy.nan)
    fingerprint = _saved_arrays._DeviceCopy(_saved_arrays._copy(array))
    assert not fingerprint.changed(array)
    array[0] = 2.0
    assert fingerprint.changed(array)


def cupy_or_skip():
    cupy = pytest.importorskip("cupy")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # noqa: BLE001 - no driver: CuPy raises its own CUDA error
        pytest.skip(f"CuPy cannot count CUDA devices: {error}")
    if count < 1:
        pytest.skip("CuPy sees no CUDA device")
    return cupy


@pytest.mark.gpu
def test_cupy_arrays_are_checked_under_the_config_key():
    cupy = cupy_or_skip()
    x = Variable(cupy.asarray([1.0, 2.0]))
    y = CtxSquare.apply(x)
    x.array[0] = 3.0
    F.sum(y).backward()  # off by default on the device: comparing would synchronise
    x = Variable(cupy.asarray([1.0, 2.0]))
    with C.using_config("check_saved_arrays", True):
        y = CtxSquare.apply(x)
        z = SquareNode().apply((x,))[0]
    F.sum(z).backward()
    numpy.testing.assert_array_equal(x.grad.get(), [2.0, 4.0])
    x.array[0] = 3.0
    with pytest.raises(VersionMismatch):
        F.sum(y).backward()


# ------------------------------------------------------------------ parameters updated in place
def _two_energies_through_one_linear():
    # NOTE [parameters updated in place]: musyoku/ddgm's step, a forward of two energies,
    # then backward, update, backward.
    rng = numpy.random.RandomState(0)
    linear = C.links.Linear(8, 2, initialW=rng.standard_normal((2, 8)))
    optimizer = C.optimizers.SGD(lr=0.5)
    optimizer.setup(linear)
    first = F.sum(linear(rng.standard_normal((3, 8)).astype(numpy.float32)))
    x = Variable(rng.standard_normal((3, 8)).astype(numpy.float32))
    second = F.sum(linear(x))
    linear.cleargrads()
    first.backward()
    forward_w = linear.W.array.copy()
    optimizer.update()  # writes W (a small, always-checked array) in place
    linear.cleargrads()
    return linear, second, x, forward_w


def test_a_parameter_updated_before_the_first_backward_is_read_as_it_is_then():
    linear, second, x, forward_w = _two_energies_through_one_linear()
    second.backward()
    # x's gradient came through the updated W, as Chainer computes it.
    ones = numpy.ones((3, 2), numpy.float32)
    numpy.testing.assert_allclose(x.grad, ones @ linear.W.array, rtol=1e-6)
    assert not numpy.allclose(x.grad, ones @ forward_w)


def test_a_parameter_marked_modified_still_raises():
    linear, second, _, _ = _two_energies_through_one_linear()
    increment_version(linear.W.array)
    with pytest.raises(VersionMismatch):
        second.backward()


def test_an_input_written_in_place_still_raises_next_to_a_parameter():
    rng = numpy.random.RandomState(1)
    linear = C.links.Linear(4, 2)
    x = Variable(rng.standard_normal((3, 4)).astype(numpy.float32))
    y = F.sum(linear(x) * x[:, :2])
    x.array[0, 0] += 1
    with pytest.raises(VersionMismatch):
        y.backward()


# ---------------------------------------------------- inputs a backward reads only for their shape
def test_softmax_cross_entropy_with_cached_softmax_ignores_a_write_into_x():
    x = Variable(arr(0.5, 1.0, -0.3).reshape(1, 3))
    reference = Variable(x.array.copy())
    t = numpy.array([1], numpy.int32)
    loss = F.softmax_cross_entropy(x, t)
    F.softmax_cross_entropy(reference, t).backward()
    x.array[0, 0] = -1e7  # der-network's write: the gradient comes from the cached softmax
    loss.backward()
    numpy.testing.assert_array_equal(x.grad, reference.grad)


def test_softmax_cross_entropy_still_checks_its_labels_and_an_uncached_x():
    x = Variable(arr(0.5, 1.0, -0.3).reshape(1, 3))
    t = numpy.array([1], numpy.int32)
    loss = F.softmax_cross_entropy(x, t)
    t[0] = 2
    with pytest.raises(VersionMismatch):
        loss.backward()
    x = Variable(arr(0.5, 1.0, -0.3).reshape(1, 3))
    loss = F.softmax_cross_entropy(x, numpy.array([1], numpy.int32), cache_score=False)
    x.array[0, 0] = 3.0
    with pytest.raises(VersionMismatch):
        loss.backward()


def test_linear_checks_only_the_input_a_requested_gradient_reads():
    rng = numpy.random.RandomState(2)
    w = rng.standard_normal((2, 4)).astype(numpy.float32)
    x = Variable(rng.standard_normal((3, 4)).astype(numpy.float32))
    y = F.sum(F.linear(x, w))  # a plain-array W: only x's gradient, which reads W alone
    x.array[...] = 0
    y.backward()
    numpy.testing.assert_allclose(x.grad, numpy.ones((3, 2), numpy.float32) @ w, rtol=1e-6)
    x = Variable(rng.standard_normal((3, 4)).astype(numpy.float32))
    y = F.sum(F.linear(x, w))
    w[0, 0] += 1  # W is read for x's gradient
    with pytest.raises(VersionMismatch):
        y.backward()


# ------------------------------------------------------- checks switched off ('never')
class OldStyleTakeFirstRow(C.Function):
    """Chainer's thin-stack pattern: backward uses the kept input only for its shape."""

    def forward(self, inputs):
        stack, = inputs
        return stack[0].copy(),

    def backward(self, inputs, grad_outputs):
        stack, = inputs
        gstack = numpy.zeros_like(stack)
        gstack[0] = grad_outputs[0]
        return gstack,


def _take_first_row_after_a_write():
    stack = Variable(numpy.zeros((2, 3)))
    row = OldStyleTakeFirstRow()(stack)
    stack.array[1] = 5.0  # the next step of the stack, written in place
    row.grad = numpy.ones(3)
    row.backward()
    return stack.grad


def test_old_style_default_input_written_in_place_says_how_to_run_it_as_chainer_does():
    with pytest.raises(VersionMismatch) as raised:
        _take_first_row_after_a_write()
    message = str(raised.value)
    assert "unless its forward calls retain_inputs" in message
    assert "check_saved_arrays = 'never'" in message
    assert "CHAINER_COMPAT_CHECK_SAVED_ARRAYS=never" in message


@pytest.mark.parametrize("kind", ["ctx", "node"])
def test_inputs_kept_on_request_are_not_blamed_on_old_style_defaults(kind):
    x = Variable(arr(1.0, 2.0))
    y = square_by(kind, x)
    x.array += 1.0
    with pytest.raises(VersionMismatch) as raised:
        F.sum(y).backward()
    assert "retain_inputs:" not in str(raised.value)
    assert "check_saved_arrays = 'never'" in str(raised.value)


def test_old_style_input_kept_on_request_gets_no_retain_inputs_hint():
    class KeepsOnRequest(OldStyleSquare):
        def forward(self, inputs):
            self.retain_inputs((0,))
            return super().forward(inputs)

    x = Variable(arr(1.0, 2.0))
    y = KeepsOnRequest()(x)
    x.array += 1.0
    with pytest.raises(VersionMismatch) as raised:
        F.sum(y).backward()
    assert "unless its forward calls retain_inputs" not in str(raised.value)


def test_old_style_with_nine_default_inputs_gets_the_retain_inputs_hint():
    class SumOfSquares(C.Function):
        def forward(self, inputs):
            return sum(x * x for x in inputs),

        def backward(self, inputs, grad_outputs):
            return tuple(2 * x * grad_outputs[0] for x in inputs)

    xs = [Variable(arr(float(i))) for i in range(9)]
    y = SumOfSquares()(*xs)
    xs[4].array += 1.0
    with pytest.raises(VersionMismatch, match="unless its forward calls retain_inputs"):
        y.backward()


def test_never_reads_the_changed_array_as_chainer_does():
    with C.using_config("check_saved_arrays", "never"):
        numpy.testing.assert_array_equal(_take_first_row_after_a_write(),
                                         [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])


@pytest.mark.parametrize("kind", KINDS)
def test_never_gives_the_gradient_of_the_new_values(kind):
    x = Variable(arr(1.0, 2.0))
    y = square_by(kind, x)
    x.array += 1.0
    with C.using_config("check_saved_arrays", "never"):
        F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, [4.0, 6.0])  # 2 x, x as it is now


def test_never_still_raises_on_an_explicit_version_bump():
    x = Variable(arr(1.0, 2.0))
    y = CtxSquare.apply(x)
    increment_version(x.array)
    with C.using_config("check_saved_arrays", "never"), pytest.raises(VersionMismatch):
        F.sum(y).backward()


def test_never_takes_no_checksum_of_large_arrays_even_in_debug_mode(monkeypatch):
    def no_checksum(array):
        raise AssertionError("a checksum was taken")

    monkeypatch.setattr(_saved_arrays, "_crc", no_checksum)
    x = Variable(large())
    with C.using_config("check_saved_arrays", "never"), C.using_config("debug", True):
        y = CtxSquare.apply(x)
        x.array[-1] = 5.0
        F.sum(y).backward()
    assert x.grad[-1] == 10.0


def test_a_write_with_a_version_bump_gets_no_never_hint():
    x = Variable(arr(1.0, 2.0))
    y = OldStyleSquare()(x)
    x.array += 1.0
    increment_version(x.array)
    with C.using_config("check_saved_arrays", "never"), pytest.raises(VersionMismatch) as raised:
        F.sum(y).backward()
    assert "'never'" not in str(raised.value)


def test_an_old_style_output_written_in_place_gets_no_retain_inputs_hint():
    class KeepsOutput(C.Function):
        def forward(self, inputs):
            self.retain_inputs(())
            self.retain_outputs((0,))
            return numpy.exp(inputs[0]),

        def backward(self, inputs, grad_outputs):
            return self.output_data[0] * grad_outputs[0],

    for keep_inputs in (False, True):
        if keep_inputs:
            KeepsOutput.forward = lambda self, inputs: (self.retain_outputs((0,)),
                                                        (numpy.exp(inputs[0]),))[1]
        x = Variable(arr(1.0, 2.0))
        y = KeepsOutput()(x)
        y.array += 1.0
        with pytest.raises(VersionMismatch, match="output 0") as raised:
            F.sum(y).backward()
        assert "check_saved_arrays = 'never'" in str(raised.value)
        assert "unless its forward calls retain_inputs" not in str(raised.value)


def test_never_leaves_allow_mutation_on_saved_tensors_preserving_values():
    from chainer_compat.autograd import graph

    x = Variable(arr(1.0, 2.0))
    with C.using_config("check_saved_arrays", "never"):
        with graph.allow_mutation_on_saved_tensors():
            y = CtxSquare.apply(x)
            x.array += 1.0
            F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])  # from the saved (forward) values
