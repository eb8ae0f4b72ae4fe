"""The backprop engine behind Variable.backward, chainer_compat.backward and chainer_compat.grad."""

from __future__ import annotations

import warnings

import numpy
import pytest

import chainer_compat as C
import chainer_compat.functions as F
from chainer_compat import FunctionNode, Variable


class Scale(FunctionNode):
    """y = k * x, counting backward calls and recording the order they run in."""

    def __init__(self, k: float, log: list | None = None, name: str = "") -> None:
        self.k = k
        self.log = log
        self.name = name
        self.backward_calls = 0

    def forward(self, inputs):
        x, = inputs
        return (x * x.dtype.type(self.k)).astype(x.dtype),

    def backward(self, indexes, grad_outputs):
        self.backward_calls += 1
        if self.log is not None:
            self.log.append(self.name)
        gy, = grad_outputs
        return gy * self.k,


class Add2(FunctionNode):
    def __init__(self, log: list | None = None, name: str = "") -> None:
        self.log = log
        self.name = name
        self.backward_calls = 0

    def forward(self, inputs):
        a, b = inputs
        return a + b,

    def backward(self, indexes, grad_outputs):
        self.backward_calls += 1
        if self.log is not None:
            self.log.append(self.name)
        gy, = grad_outputs
        return gy, gy


def var(*values, dtype=numpy.float32):
    return Variable(numpy.array(values, dtype=dtype))


def scale(x, k, log=None, name=""):
    node = Scale(k, log, name)
    y, = node.apply((x,))
    return y, node


def test_chain_gradient_is_product_of_scales():
    x = var(1.0, 2.0)
    h = x
    for k in (2.0, 3.0, 0.5):
        h, _ = scale(h, k)
    h.grad = numpy.ones(2, numpy.float32)
    h.backward()
    numpy.testing.assert_allclose(x.grad, [3.0, 3.0])


def test_diamond_runs_each_backward_once_and_after_both_consumers():
    # x -> a -> (b, c) -> d: a's backward must wait for both b and c.
    log: list[str] = []
    x = var(1.0)
    a, node_a = scale(x, 2.0, log, "a")
    b, node_b = scale(a, 3.0, log, "b")
    c, node_c = scale(a, 5.0, log, "c")
    add = Add2(log, "d")
    d, = add.apply((b, c))
    d.backward()
    assert [node_a.backward_calls, node_b.backward_calls, node_c.backward_calls,
            add.backward_calls] == [1, 1, 1, 1]
    assert log[0] == "d" and log[-1] == "a"
    numpy.testing.assert_allclose(x.grad, [2.0 * (3.0 + 5.0)])


def test_fan_in_over_unequal_path_lengths_waits_for_the_long_path():
    # x feeds the sum directly and through a chain of 10 nodes.
    log: list[str] = []
    x = var(1.0)
    first, first_node = scale(x, 1.0, log, "first")
    h = first
    for i in range(10):
        h, _ = scale(h, 2.0, log, f"chain{i}")
    out, = Add2(log, "sum").apply((h, first))
    out.backward()
    assert first_node.backward_calls == 1
    assert log[-1] == "first"
    numpy.testing.assert_allclose(x.grad, [2.0 ** 10 + 1.0])


def test_backward_accumulates_grad_of_reused_input():
    x = var(3.0)
    y = x * x * x
    y.backward()
    numpy.testing.assert_allclose(x.grad, [27.0])


def test_same_variable_twice_in_one_function():
    x = var(2.0)
    add = Add2()
    y, = add.apply((x, x))
    y.backward()
    numpy.testing.assert_allclose(x.grad, [2.0])
    assert add.backward_calls == 1


def test_leaf_grads_accumulate_across_backward_calls_until_cleared():
    x = var(1.0)
    (x * 2.0).backward()
    (x * 3.0).backward()
    numpy.testing.assert_allclose(x.grad, [5.0])
    x.cleargrad()
    (x * 3.0).backward()
    numpy.testing.assert_allclose(x.grad, [3.0])


def test_accumulation_into_leaf_is_not_in_place():
    x = var(1.0)
    (x * 2.0).backward()
    first = x.grad
    (x * 3.0).backward()
    numpy.testing.assert_allclose(first, [2.0])


def test_scalar_output_starts_from_ones_and_drops_them_unless_retain_grad():
    # compat: Chainer clears the starting Variable's gradient once its creator consumed it,
    # whether backward made it or the user set it.
    x = var(1.0, 2.0)
    y = F.sum(x * x)
    y.backward()
    numpy.testing.assert_allclose(x.grad, [2.0, 4.0])
    assert y.grad is None
    y.grad = numpy.array(3.0, numpy.float32)
    x.cleargrad()
    y.backward()
    numpy.testing.assert_allclose(x.grad, [6.0, 12.0])
    assert y.grad is None
    x.cleargrad()
    y.backward(retain_grad=True)
    numpy.testing.assert_allclose(y.grad, 1.0)


def test_grad_with_retain_grad_keeps_the_outputs_gradient():
    x = var(1.0, 2.0)
    y = F.sum(x * x)
    C.grad([y], [x], retain_grad=True)
    numpy.testing.assert_allclose(y.grad, 1.0)


def test_one_element_non_scalar_warns_deprecation():
    x = var(2.0)
    y = x * 3.0
    with pytest.warns(DeprecationWarning, match="one element"):
        y.backward()
    numpy.testing.assert_allclose(x.grad, [3.0])


def test_non_scalar_without_grad_says_to_set_grad():
    x = var(1.0, 2.0)
    y = x * 2.0
    with pytest.raises(ValueError, match=r"set y.grad"):
        y.backward()
    assert x.grad is None


def test_an_empty_output_backpropagates_zeros_as_in_chainer():
    # Nothing to seed, and Chainer runs the backward all the same: x's gradient is zeros.
    x = Variable(numpy.ones((2, 3), numpy.float32))
    y = F.split_axis(x, [1, 2], 0)[2]
    assert y.shape == (0, 3)
    y.backward()
    assert x.grad.shape == (2, 3) and not x.grad.any()
    assert y.grad is None


def test_backward_from_a_leaf_gives_a_one_element_leaf_ones_and_nothing_else():
    # compat: as in Chainer, a Variable without a creator is its own gradient target.
    x = Variable(numpy.array(2.0, numpy.float32))
    x.backward(loss_scale=4.0)
    numpy.testing.assert_allclose(x.grad, 4.0)
    x.backward()  # it has a gradient now: left alone
    numpy.testing.assert_allclose(x.grad, 4.0)
    v = var(1.0, 2.0)
    v.backward()
    assert v.grad is None


def test_no_grad_for_inputs_that_do_not_require_it():
    x = var(1.0)
    c = Variable(numpy.array([2.0], numpy.float32), requires_grad=False)
    (x * c).backward()
    assert c.grad is None
    numpy.testing.assert_allclose(x.grad, [2.0])


def test_function_skipped_when_no_input_requires_grad():
    c = Variable(numpy.array([2.0], numpy.float32), requires_grad=False)
    y, node = scale(c, 2.0)
    z = y * var(1.0)
    z.backward()
    assert node.backward_calls == 0


def test_retain_grad_keeps_intermediate_grads():
    x = var(1.0)
    h = x * 2.0
    y = h * 3.0
    y.backward(retain_grad=True)
    numpy.testing.assert_allclose(h.grad, [3.0])
    assert y.grad is not None
    x.cleargrad()
    y.backward()
    # compat: as in Chainer (NOTE [preset gradients]): the run takes the starting Variable's
    # gradient and leaves an intermediate's, which came through the table, as it was.
    numpy.testing.assert_allclose(h.grad, [3.0])
    assert y.grad is None
    numpy.testing.assert_allclose(x.grad, [6.0])


def _preset(*values):
    return numpy.array(values, numpy.float32)


def test_an_unused_outputs_preset_gradient_flows_back_once():
    # compat: Chainer's table hands over the gradient set on an output nobody else fed.
    x = var(1.0, 2.0, 3.0, 4.0)
    first, second = F.split_axis(x, 2, 0)
    second.grad = _preset(9.0, 9.0)
    F.sum(first).backward()
    assert x.grad.tolist() == [1.0, 1.0, 9.0, 9.0] and second.grad is None


def test_grad_and_explicit_backward_leave_preset_gradients_alone():
    x = var(1.0, 2.0)
    h = x * 2.0
    h.grad = _preset(9.0, 9.0)
    y = h * 3.0
    y.grad = _preset(5.0, 5.0)
    assert C.grad([y], [x])[0].array.tolist() == [6.0, 6.0]
    C.backward([y], [Variable(_preset(1.0, 1.0))])
    assert h.grad.tolist() == [9.0, 9.0] and y.grad.tolist() == [5.0, 5.0]
    assert x.grad.tolist() == [6.0, 6.0]


def test_loss_scale_scales_the_starting_gradient():
    x = var(1.0, 2.0)
    y = F.sum(x * 2.0)
    y.backward(loss_scale=8.0)
    numpy.testing.assert_allclose(x.grad, [16.0, 16.0])
    assert x._loss_scale == 8.0


def test_double_backprop_of_cube_gives_six_x():
    x = var(1.0, 2.0, -3.0)
    y = x ** 3
    y.grad = numpy.ones(3, numpy.float32)
    y.backward(enable_double_backprop=True)
    gx = x.grad_var
    numpy.testing.assert_allclose(gx.array, 3 * x.array ** 2)
    assert gx.creator is not None
    x.cleargrad()
    F.sum(gx).backward()
    numpy.testing.assert_allclose(x.grad, 6 * x.array)


def test_without_double_backprop_gradients_have_no_graph():
    x = var(2.0)
    (x ** 3).backward()
    assert x.grad_var.creator is None


def test_grad_returns_only_requested_and_sets_nothing():
    x = var(2.0)
    w = var(3.0)
    y = x * w
    gx, = C.grad([y], [x])
    numpy.testing.assert_allclose(gx.array, [3.0])
    assert x.grad is None and w.grad is None


def test_grad_skips_functions_off_the_path_to_the_inputs():
    x = var(2.0)
    w = var(3.0)
    side, side_node = scale(w, 4.0)
    y = x * side
    C.grad([y], [x])
    assert side_node.backward_calls == 0


def test_grad_with_respect_to_intermediate_variable():
    x = var(2.0)
    h = x * 3.0
    y = h * h
    gh, = C.grad([y], [h])
    numpy.testing.assert_allclose(gh.array, [12.0])


def test_grad_grad_outputs_grad_inputs_and_set_grad():
    x = var(1.0, 1.0)
    y = x * 2.0
    gy = Variable(numpy.array([1.0, 10.0], numpy.float32))
    base = Variable(numpy.array([100.0, 100.0], numpy.float32))
    gx, = C.grad([y], [x], grad_outputs=[gy], grad_inputs=[base], set_grad=True)
    numpy.testing.assert_allclose(gx.array, [102.0, 120.0])
    assert x.grad_var is gx


def test_grad_unreachable_input_gives_none():
    x = var(1.0)
    other = var(2.0)
    gx, = C.grad([x * 2.0], [other])
    assert gx is None


def test_grad_double_backprop():
    x = var(3.0)
    y = x ** 3
    gx, = C.grad([y], [x], enable_double_backprop=True)
    ggx, = C.grad([gx], [x])
    numpy.testing.assert_allclose(ggx.array, [18.0])


@pytest.mark.parametrize("bad, kind", [
    ((1,), TypeError), ([var(1.0)], None),
])
def test_grad_argument_types(bad, kind):
    x = var(1.0)
    if kind is None:
        C.grad([x * 2.0], bad)
    else:
        with pytest.raises(kind, match="must be a tuple or a list"):
            C.grad(x * 2.0, bad)


def test_grad_length_mismatch():
    x = var(1.0)
    with pytest.raises(ValueError, match="same length"):
        C.grad([x * 2.0], [x], grad_outputs=[None, None])


def test_chainer_backward_from_several_outputs():
    x = var(1.0)
    a = x * 2.0
    b = x * 3.0
    a.grad = numpy.ones(1, numpy.float32)
    b.grad = numpy.ones(1, numpy.float32)
    C.backward([a, b])
    numpy.testing.assert_allclose(x.grad, [5.0])


def test_chainer_backward_warns_on_output_without_grad():
    x = var(1.0)
    with pytest.warns(RuntimeWarning, match="does not set default grad"):
        C.backward([x * 2.0])
    assert x.grad is None


def test_backward_accumulate_is_used_when_overridden():
    calls = []

    class Fused(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
            calls.append(grad_inputs)
            gy, = grad_outputs
            before, = grad_inputs
            gx = gy * 2.0
            return (gx if before is None else gx + before),

    x = var(1.0)
    x.grad = numpy.array([10.0], numpy.float32)
    y, = Fused().apply((x,))
    y.backward()
    numpy.testing.assert_allclose(x.grad, [12.0])
    numpy.testing.assert_allclose(calls[0][0].array, [10.0])


def test_lazy_grad_sum_gives_same_gradient():
    def run():
        x = var(1.0, 2.0)
        parts = [x * float(k) for k in range(1, 5)]
        y = F.sum(parts[0] + parts[1] + parts[2] + parts[3])
        y.backward()
        return x.grad

    eager = run()
    with C.using_config("lazy_grad_sum", True):
        lazy = run()
    numpy.testing.assert_allclose(eager, lazy)
    numpy.testing.assert_allclose(lazy, [10.0, 10.0])


def test_lazy_grad_sum_is_recorded_on_the_node():
    x = var(1.0)
    with C.using_config("lazy_grad_sum", True):
        y, node = scale(x, 2.0)
    assert node.lazy_grad_sum is True


def test_wrong_number_of_gradients_names_the_function():
    class Bad(FunctionNode):
        def forward(self, inputs):
            return inputs[0] + inputs[1],

        def backward(self, indexes, grad_outputs):
            return grad_outputs[0], grad_outputs[0], grad_outputs[0]

    x, w = var(1.0), var(2.0)
    y, = Bad().apply((x, w))
    with pytest.raises(ValueError, match=r"number of gradients.*3 != expected 2(.|\n)*Bad"):
        y.backward()
    assert x.grad is None and w.grad is None


def test_wrong_gradient_shape_and_dtype():
    class BadShape(FunctionNode):
        def forward(self, inputs):
            return inputs[0].copy(),

        def backward(self, indexes, grad_outputs):
            return Variable(numpy.ones((2, 2), numpy.float32)),

    class BadDtype(FunctionNode):
        def forward(self, inputs):
            return inputs[0].copy(),

        def backward(self, indexes, grad_outputs):
            return Variable(numpy.ones(1, numpy.float64)),

    x = var(1.0)
    y, = BadShape().apply((x,))
    with pytest.raises(ValueError, match=r"BadShape(.|\n)*Shape of data and grad mismatch"):
        y.backward()
    y, = BadDtype().apply((x,))
    with pytest.raises(TypeError, match=r"BadDtype(.|\n)*Dtype of data and grad mismatch"):
        y.backward()


def test_backward_returning_arrays_says_to_return_variables():
    class Raw(FunctionNode):
        def forward(self, inputs):
            return inputs[0].copy(),

        def backward(self, indexes, grad_outputs):
            return grad_outputs[0].array,

    x = var(1.0)
    y, = Raw().apply((x,))
    with pytest.raises(TypeError, match="expected Variable"):
        y.backward()


def test_debug_mode_reports_nan_in_backward_with_function_name():
    class NanGrad(FunctionNode):
        def forward(self, inputs):
            return inputs[0].copy(),

        def backward(self, indexes, grad_outputs):
            return Variable(numpy.full(1, numpy.nan, numpy.float32)),

    x = var(1.0)
    with C.using_config("debug", True):
        y, = NanGrad().apply((x,))
        with pytest.raises(RuntimeError, match="NaN is detected on backward computation of "
                                               "NanGrad"):
            y.backward()


def test_debug_mode_reports_nan_in_forward():
    x = var(-1.0)
    with C.using_config("debug", True), numpy.errstate(invalid="ignore"):
        with pytest.raises(RuntimeError, match="NaN is detected on forward computation of log"):
            F.log(x)


def test_long_chain_is_iterative():
    x = var(1.0)
    h = x
    for _ in range(20_000):
        h = F.identity(h)
    h.backward()
    numpy.testing.assert_allclose(x.grad, [1.0])


@pytest.mark.slow
def test_million_node_chain():
    x = var(1.0)
    h = x
    for _ in range(1_000_000):
        h = F.identity(h)
    h.backward()
    numpy.testing.assert_allclose(x.grad, [1.0])


def test_ties_in_rank_break_in_queue_order_deterministically():
    def order():
        log: list[str] = []
        x = var(1.0)
        outs = [scale(x, 1.0, log, f"n{i}")[0] for i in range(5)]
        total = outs[0]
        for o in outs[1:]:
            total, = Add2().apply((total, o))
        total.backward()
        return log

    assert order() == order()


@pytest.mark.parametrize("force_general", [False, True])
def test_equal_ranks_run_in_the_order_they_were_queued(force_general, monkeypatch):
    # Add2's step queues the creator of input 0, then that of input 1. The fast path keeps a
    # lone queued function out of the heap; a second one in the same step must not overtake it.
    from chainer_compat import _engine

    monkeypatch.setattr(_engine, "_FORCE_GENERAL_PATH", force_general)

    def order(first: str, second: str) -> list[str]:
        log: list[str] = []
        x = var(1.0)
        a, _ = scale(x, 2.0, log, first)
        b, _ = scale(x, 3.0, log, second)
        total, = Add2().apply((a, b))
        y, _ = scale(total, 1.0, log, "top")
        y.backward()
        numpy.testing.assert_allclose(x.grad, [5.0])
        return log

    assert order("A", "B") == ["top", "A", "B"]
    assert order("B", "A") == ["top", "B", "A"]


@pytest.mark.parametrize("force_general", [False, True])
def test_a_function_queued_behind_a_pending_one_waits_its_turn(force_general, monkeypatch):
    # Two chains from q, of 5 and 3 functions, joined at the top. When F4 queues F3, P3 (same
    # rank, queued earlier) is pending: the heap, not the fast path's lone slot, decides.
    from chainer_compat import _engine

    monkeypatch.setattr(_engine, "_FORCE_GENERAL_PATH", force_general)
    log: list[str] = []
    x = var(1.0)
    q, _ = scale(x, 2.0, log, "Q")
    f = p = q
    for i in range(1, 6):
        f, _ = scale(f, 1.0, log, f"F{i}")
    for i in range(1, 4):
        p, _ = scale(p, 1.0, log, f"P{i}")
    total, = Add2().apply((f, p))
    total.backward()
    assert log == ["F5", "F4", "P3", "F3", "P2", "F2", "P1", "F1", "Q"]
    numpy.testing.assert_allclose(x.grad, [4.0])


def test_unchain_backward_stops_backprop():
    x = var(1.0)
    h = x * 2.0
    y = h * 3.0
    h.unchain_backward()
    y.backward()
    assert x.grad is None
    numpy.testing.assert_allclose(h.grad, [3.0])


def test_backward_hooks_fire_from_all_three_entry_points():
    seen = []

    class Recorder(C.FunctionHook):
        name = "Recorder"

        def backward_preprocess(self, function, in_data, out_grad):
            seen.append(("pre", function.label))

        def backward_postprocess(self, function, in_data, out_grad):
            seen.append(("post", function.label))

    x = var(1.0, 2.0)
    with Recorder():
        y = F.sum(x * 2.0)
        y.backward()
        n_backward = len(seen)
        seen.clear()
        y2 = F.sum(x * 2.0)
        y2.grad = numpy.ones((), numpy.float32)
        C.backward([y2])
        n_chainer_backward = len(seen)
        seen.clear()
        C.grad([F.sum(x * 2.0)], [x])
        n_grad = len(seen)
    assert n_backward == n_chainer_backward == n_grad == 4
    assert seen[0] == ("pre", "Sum") and seen[1] == ("post", "Sum")


def test_intermediate_gradients_are_released_once_consumed():
    # A backward that checks the table no longer holds its output gradient.
    import weakref

    refs = []

    class Probe(FunctionNode):
        def forward(self, inputs):
            return inputs[0].copy(),

        def backward(self, indexes, grad_outputs):
            gy, = grad_outputs
            refs.append(weakref.ref(gy))
            return gy * 1.0,

    x = var(1.0)
    h = x
    for _ in range(3):
        h, = Probe().apply((h,))
    h.grad = numpy.ones(1, numpy.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        h.backward()
    # The seed gradient stays on h; every gradient made during backprop is gone.
    assert refs[0]() is h.grad_var
    assert all(r() is None for r in refs[1:])


@pytest.mark.parametrize("seed", range(20))
def test_fast_path_matches_general_path_on_random_graphs(seed, monkeypatch):
    from chainer_compat import _engine

    def run(force_general):
        monkeypatch.setattr(_engine, "_FORCE_GENERAL_PATH", force_general)
        rng = numpy.random.default_rng(seed)
        leaves = [Variable(rng.uniform(0.5, 1.5, 3)) for _ in range(3)]
        pool = list(leaves)
        calls = []
        for _ in range(12):
            kind = rng.integers(4)
            a = pool[rng.integers(len(pool))]
            b = pool[rng.integers(len(pool))]
            if kind == 0:
                y = a * b
            elif kind == 1:
                y = a + b
            elif kind == 2:
                node = Scale(float(rng.uniform(0.5, 2.0)), calls)
                y, = node.apply((a,))
            else:
                y, = Add2(calls).apply((a, b))
            pool.append(y)
        loss = F.sum(pool[-1] * pool[-2] + pool[-3])
        loss.backward()
        return [leaf.grad for leaf in leaves], len(calls)

    fast_grads, fast_calls = run(False)
    general_grads, general_calls = run(True)
    assert fast_calls == general_calls
    for fast, general in zip(fast_grads, general_grads):
        if fast is None or general is None:
            assert fast is None and general is None
        else:
            numpy.testing.assert_allclose(fast, general, rtol=1e-12)


# ------------------------------------------------------------------ repeated seeds (Chainer's)
def _doubled():
    x = Variable(numpy.array([1.0, 2.0], numpy.float32))
    return x, x * 2.0


def test_grad_from_an_output_given_twice_starts_from_its_last_gradient():
    # compat: Chainer sets each seed; a repeated output is not counted twice.
    x, y = _doubled()
    assert C.grad([y, y], [x])[0].array.tolist() == [2.0, 2.0]
    ones, twos = (Variable(numpy.full(2, v, numpy.float32)) for v in (1.0, 2.0))
    assert C.grad([y, y], [x], grad_outputs=[ones, twos])[0].array.tolist() == [4.0, 4.0]


def test_grad_inputs_replace_the_seed_of_an_input_that_is_an_output():
    x, y = _doubled()
    initial = numpy.full(2, 5.0, numpy.float32)
    assert C.grad([y], [y], grad_inputs=[initial])[0].array.tolist() == [5.0, 5.0]
    # An array is accepted, as Chainer accepts it, and adds to what flows into x.
    assert C.grad([y], [x], grad_inputs=[initial])[0].array.tolist() == [7.0, 7.0]


def test_backward_takes_each_outputs_grad_once():
    x, y = _doubled()
    y.grad = numpy.ones(2, numpy.float32)
    with pytest.warns(RuntimeWarning, match="duplicate outputs"):
        C.backward([y, y])
    assert x.grad.tolist() == [2.0, 2.0]
    assert y.grad is None


@pytest.mark.parametrize("keyword, message", [
    ("retain_grad", "semantics for retain_grad=True is under discussion"),
    ("loss_scale", "chainer.backward does not support loss_scale option"),
])
def test_backward_refuses_variable_backwards_options_with_chainers_value_error(keyword,
                                                                               message):
    x, y = _doubled()
    y.grad = numpy.ones(2, numpy.float32)
    with pytest.raises(ValueError, match=message):
        C.backward([y], **{keyword: 1.0})
    assert x.grad is None and y.grad is not None  # nothing ran, nothing was taken


class _RaisesInBackward(FunctionNode):
    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        raise FloatingPointError("overflow in backward")


def _applied_here(debug):
    with C.using_config("debug", debug):
        y, = _RaisesInBackward().apply((var(1.0, 2.0),))
    y.grad = numpy.ones(2, numpy.float32)
    return y


def test_an_error_in_backward_names_where_a_debug_mode_function_was_applied():
    y = _applied_here(debug=True)
    with pytest.raises(FloatingPointError) as info:
        y.backward()
    message = str(info.value)
    assert message.startswith("overflow in backward\n")
    assert message.count("Stacktrace of the function is below:") == 1
    assert "_applied_here" in message  # the frame that applied it


def test_an_error_in_backward_is_left_alone_without_a_recorded_stack():
    y = _applied_here(debug=False)
    with pytest.raises(FloatingPointError) as info:
        y.backward()
    assert str(info.value) == "overflow in backward"


def test_an_error_in_a_nested_backward_gets_the_stack_once():
    inner = _applied_here(debug=True)

    class CallsGrad(FunctionNode):
        def forward(self, inputs):
            return inputs[0] + 0,

        def backward(self, indexes, grad_outputs):
            inner.backward()
            return grad_outputs

    with C.using_config("debug", True):
        y, = CallsGrad().apply((var(1.0, 2.0),))
    y.grad = numpy.ones(2, numpy.float32)
    with pytest.raises(FloatingPointError) as info:
        y.backward()
    assert str(info.value).count("Stacktrace of the function is below:") == 1


class _ReturnsArrays(FunctionNode):
    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0].array * 2,


@pytest.mark.parametrize("debug, error", [(True, ValueError), (False, TypeError)])
def test_a_backward_returning_arrays_is_refused(debug, error):
    with C.using_config("debug", debug):
        y, = _ReturnsArrays().apply((var(1.0, 2.0),))
        y.grad = numpy.ones(2, numpy.float32)
        with pytest.raises(error, match="type of gradients returned from backward"):
            y.backward()


def test_an_input_taken_twice_with_one_gradient_gets_no_one_term_sum():
    # A function taking h twice that returns a gradient for one position only: Chainer's
    # reduction adds nothing then, so h's gradient is that one gradient's own node.
    class TwiceOnce(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2 + inputs[1],

        def backward(self, indexes, grad_outputs):
            return grad_outputs[0] * 2.0, None

    x = Variable(numpy.array([1.0, 2.0], numpy.float32))
    h = F.identity(x)
    y, = TwiceOnce().apply((h, h))
    F.sum(y).backward(enable_double_backprop=True, retain_grad=True)
    assert h.grad_var.creator.label == "_ * 2.0"
    numpy.testing.assert_array_equal(x.grad, [2.0, 2.0])
