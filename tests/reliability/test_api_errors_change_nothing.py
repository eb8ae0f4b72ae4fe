"""Bad input to the API around the core (optimizers, links, reporter, trainer, iterators,
initializers) raises before anything changes: each case compares everything reachable from
the objects it touches before and after the failed call."""

from __future__ import annotations

import fractions

import numpy
import pytest

import chainer_compat as C
import chainer_compat.functions as F
import chainer_compat.links as L
from chainer_compat import initializers, optimizers, reporter, training
from chainer_compat.iterators import SerialIterator
from chainer_compat.utils import type_check


def observe(obj, memo=None):
    """Everything reachable from ``obj`` as nested plain values (arrays as bytes)."""
    memo = {} if memo is None else memo
    if isinstance(obj, (numpy.ndarray, numpy.generic)):
        array = numpy.asarray(obj)
        if array.dtype.kind == "O":
            return ("objects", array.shape, repr(array.tolist()))
        return ("array", array.dtype.str, array.shape, array.tobytes())
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes,
                                       fractions.Fraction)):
        return obj
    if callable(obj) and not hasattr(obj, "__dict__") or isinstance(obj, type):
        return ("callable", repr(obj))
    if id(obj) in memo:
        return ("seen", memo[id(obj)])
    memo[id(obj)] = len(memo)
    if isinstance(obj, dict):
        return ("dict", [(repr(key), observe(value, memo)) for key, value in obj.items()])
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [observe(item, memo) for item in obj])
    if isinstance(obj, (set, frozenset)):
        return ("set", sorted(map(repr, obj)))
    fields = dict(getattr(obj, "__dict__", {}))
    for klass in type(obj).__mro__:
        for slot in klass.__dict__.get("__slots__", ()):
            if slot not in ("__dict__", "__weakref__") and hasattr(obj, slot):
                fields[slot] = getattr(obj, slot)
    fields.pop("_node", None)  # graph bookkeeping, not state a user sees
    return (type(obj).__name__, [(key, observe(value, memo))
                                 for key, value in sorted(fields.items())])


def assert_changes_nothing(call, *objects, raises, match=None):
    before = observe(objects)
    with pytest.raises(raises, match=match):
        call()
    assert observe(objects) == before


def mlp():
    model = C.Sequential(L.Linear(3, 4), F.relu, L.Linear(4, 2))
    model[0].W.array[...] = numpy.arange(12, dtype="f").reshape(4, 3) / 10
    model[2].W.array[...] = numpy.arange(8, dtype="f").reshape(2, 4) / 10
    return model


def trained(optimizer):
    model = mlp()
    optimizer.setup(model)
    x = numpy.ones((2, 3), "f")
    for _ in range(2):
        optimizer.update(lambda: F.sum(model(x)))
    return model, optimizer


def test_update_with_a_stale_gradient_that_broadcasts_applies_it_as_chainer_does():
    link = L.Linear(4, 1)
    opt = optimizers.SGD(lr=0.5)
    opt.setup(link)
    link.cleargrads()
    F.sum(link(numpy.ones((2, 4), "f"))).backward()
    grad = link.W.grad.copy()  # (1, 4)
    link.W.array = numpy.zeros((3, 4), "f")
    opt.update()
    numpy.testing.assert_array_equal(link.W.array, numpy.broadcast_to(-0.5 * grad, (3, 4)))


@pytest.mark.parametrize("optimizer", [optimizers.SGD, optimizers.Adam, optimizers.MomentumSGD])
def test_update_with_a_gradient_that_does_not_fit_updates_no_parameter(optimizer):
    model, opt = trained(optimizer())
    # The last layer's array is replaced after its gradient was computed (net surgery).
    model[2].W.array = numpy.zeros((3, 4), "f")
    assert_changes_nothing(opt.update, model, opt, raises=ValueError,
                           match=r"gradient of parameter /1/W must have the shape of its array "
                                 r"\(3, 4\), got \(2, 4\).*cleargrads")


def test_update_from_a_lossfun_that_returns_a_number_keeps_the_gradients():
    model, opt = trained(optimizers.SGD())
    with pytest.raises(AttributeError):  # what Chainer raises; also a TypeError
        opt.update(lambda: 1.5)
    assert_changes_nothing(lambda: opt.update(lambda: 1.5), model, opt, raises=TypeError,
                           match="lossfun must return the loss as a Variable, got float")


def test_update_from_a_loss_of_many_elements_keeps_the_gradients():
    model, opt = trained(optimizers.Adam())
    x = numpy.ones((2, 3), "f")
    assert_changes_nothing(lambda: opt.update(lambda: model(x)), model, opt, raises=ValueError,
                           match="must start from a scalar")


def test_setup_whose_rule_fails_leaves_the_optimizer_and_the_link_alone():
    model, opt = trained(optimizers.Adam())

    class Broken(optimizers.SGD):
        fail = False

        def create_update_rule(self):
            if self.fail:
                raise RuntimeError("no rule today")
            return super().create_update_rule()

    broken = Broken()
    broken.setup(L.Linear(1, 1))
    broken.fail = True
    assert_changes_nothing(lambda: broken.setup(model), model, opt, broken, raises=RuntimeError)


def test_extend_with_a_bad_trigger_leaves_the_extension_and_trainer_alone(tmp_path):
    trainer = training.Trainer(training.updaters.StandardUpdater(
        SerialIterator([numpy.zeros(1, "f")], 1), trained(optimizers.SGD())[1]),
        out=str(tmp_path))
    extension = training.extensions.LogReport()
    before = observe((trainer._extensions, extension))
    with pytest.raises(ValueError):
        trainer.extend(extension, trigger=(1, "epochs"))
    with pytest.raises(TypeError, match=r"trigger must be a callable, None or a \(period, "
                                        r"unit\) pair such as \(1, 'epoch'\), got 'epoch'"):
        trainer.extend(extension, trigger="epoch")
    assert observe((trainer._extensions, extension)) == before


def test_dict_summary_add_with_a_bad_entry_adds_none():
    summary = reporter.DictSummary()
    summary.add({"a": 1.0})
    assert_changes_nothing(lambda: summary.add({"a": 2.0, "b": (2.0, numpy.ones(3)), "c": 3.0}),
                           summary, raises=ValueError, match="weight given to 'b'")
    assert_changes_nothing(lambda: summary.add({"a": 2.0, "name": "abc"}), summary,
                           raises=TypeError, match="value of 'name' must be a number")
    assert_changes_nothing(lambda: summary.add({"a": 2.0, "b": (1.0, "2")}), summary,
                           raises=TypeError, match="weight given to 'b' must be a number")
    assert summary.compute_mean() == {"a": 1.0}


def test_add_observers_with_a_malformed_pair_registers_none():
    rep = reporter.Reporter()
    first = object()
    rep.add_observer("first", first)
    assert_changes_nothing(lambda: rep.add_observers("p/", [("first", first), "bad"]), rep,
                           raises=ValueError)
    assert rep._observer_names[id(first)] == "first"


def test_sequential_extend_with_a_layer_that_is_not_callable_appends_none():
    model = mlp()
    assert_changes_nothing(lambda: model.extend([F.relu, L.Linear(2, 2), 42]), model,
                           raises=ValueError)
    assert len(model) == 3


def test_a_parameter_name_that_cannot_be_set_is_not_registered():
    link = L.Linear(2, 3)
    assert_changes_nothing(lambda: link.add_param("xp", (2,)), link, raises=AttributeError)
    assert link.count_params() == 9
    assert sorted(name for name, _ in link.namedparams()) == ["/W", "/b"]


def test_addgrad_of_another_dtype_leaves_an_uninitialized_parameter_uninitialized():
    param = C.Parameter(initializers.Normal())
    source = C.Variable(numpy.ones(3))
    source.grad = numpy.ones(3)
    with pytest.raises(type_check.InvalidType, match="Expect: lhs.dtype == rhs.dtype"):
        param.addgrad(source)
    assert param.array is None
    # With its gradient cleared, the gradient's setter refuses it, as in Chainer.
    param.cleargrad()
    with pytest.raises(TypeError, match="Dtype of data and grad mismatch"):
        param.addgrad(source)
    assert param.array is None


def test_identity_initializer_with_a_bad_scale_writes_nothing_and_keeps_chainers_zeros():
    array = numpy.arange(9, dtype="f").reshape(3, 3)
    assert_changes_nothing(lambda: initializers.Identity(scale="abc")(array), array,
                           raises=TypeError)
    initializers.Identity(scale=-2.0)(array)
    # Chainer computes identity * scale: the zeros off the diagonal are negative too.
    assert numpy.signbit(array).all()
    numpy.testing.assert_array_equal(array, -2.0 * numpy.eye(3))


class _Flaky:
    """A dataset whose example 4 fails to load."""

    def __len__(self):
        return 6

    def __getitem__(self, index):
        if index == 4:
            raise OSError("corrupt example")
        return index


def test_a_dataset_that_fails_to_load_does_not_move_the_iterator_on():
    iterator = SerialIterator(_Flaky(), 2, shuffle=False)
    assert iterator.next() == [0, 1]
    assert iterator.next() == [2, 3]
    assert_changes_nothing(iterator.next, iterator, raises=OSError)
    assert iterator.current_position == 4 and iterator.previous_epoch_detail == 1 / 3


def test_an_order_sampler_that_returns_a_wrong_order_does_not_move_the_iterator_on():
    def sampler(order, position):
        return order[:-1] if position else numpy.random.permutation(len(order))

    iterator = SerialIterator(list(range(4)), 3, order_sampler=sampler)
    iterator.next()
    assert_changes_nothing(iterator.next, iterator, raises=ValueError,
                           match="order sampler must return 4 indices, got 3")


def test_an_empty_dataset_says_so_instead_of_dividing_by_zero():
    with pytest.raises(ValueError, match="Epoch size must be positive"):
        SerialIterator([], 2).next()


def test_exhausted_iterator_still_records_the_previous_epoch_detail_as_chainer_does():
    iterator = SerialIterator(list(range(4)), 2, repeat=False, shuffle=False)
    iterator.next()
    iterator.next()
    assert iterator.previous_epoch_detail == 0.5
    with pytest.raises(StopIteration):
        iterator.next()
    assert iterator.previous_epoch_detail == 1.0


def test_an_updater_given_an_optimizer_never_set_up_says_so_before_moving_any_link():
    model, ready = trained(optimizers.SGD())
    with pytest.raises(AttributeError, match="optimizer 'second' must be set up"):
        training.updaters.StandardUpdater(
            SerialIterator([numpy.zeros(1, "f")], 1), {"main": ready, "second": optimizers.SGD()},
            device="@numpy")


def test_sequential_addgrads_from_a_shorter_sequential_adds_nothing():
    model, other = mlp(), C.Sequential(L.Linear(3, 4), F.relu)
    for link in (model, other):
        for param in link.params():
            param.grad = numpy.ones_like(param.array)
    assert_changes_nothing(lambda: model.addgrads(other), model, raises=IndexError,
                           match="as many child links as this Sequential")


def chain_of(out: int, extra_child: bool = False, running: int = 3,
             seed: int = 0) -> C.ChainList:
    """Two links, then a chain whose parts the cases vary: the first two are copied (added)
    first, whatever order a Chain's children come in."""
    inner = C.Chain()
    with inner.init_scope():
        inner.norm = L.BatchNormalization(running)
        inner.last = L.Linear(4, out)
        if extra_child:
            inner.more = L.Linear(2, 2)
    chain = C.ChainList(L.Linear(3, 4), L.Linear(4, 4), inner)
    rng = numpy.random.default_rng(seed)
    for param in chain.params():
        param.array[...] = rng.normal(size=param.shape)
        param.grad = rng.normal(size=param.shape).astype(param.dtype)
    return chain


def chain_list_of(count: int) -> C.ChainList:
    return C.ChainList(*[L.Linear(2, 2) for _ in range(count)])


COPY_MISMATCHES = {
    # (target, source, exception)
    "a parameter of another shape": (lambda: chain_of(2), lambda: chain_of(5, seed=1),
                                     ValueError),
    "a missing child": (lambda: chain_of(2, extra_child=True), lambda: chain_of(2, seed=1),
                        KeyError),
    "a shorter ChainList": (lambda: chain_list_of(3), lambda: chain_list_of(2), IndexError),
    "a persistent array of another shape": (lambda: chain_of(2, running=4),
                                            lambda: chain_of(2, running=5, seed=1), ValueError),
    "a Sequential with another layer": (
        lambda: C.Sequential(L.Linear(3, 4), F.relu, L.Linear(4, 2)),
        lambda: C.Sequential(L.Linear(3, 4), F.relu, L.Linear(4, 3)), ValueError),
}


@pytest.mark.parametrize("case", list(COPY_MISMATCHES), ids=list(COPY_MISMATCHES))
def test_copyparams_from_a_link_that_does_not_fit_copies_nothing(case):
    make_target, make_source, error = COPY_MISMATCHES[case]
    target, source = make_target(), make_source()
    assert_changes_nothing(lambda: target.copyparams(source), target, raises=error)


@pytest.mark.parametrize("case", ["a parameter of another shape", "a missing child",
                                  "a shorter ChainList"])
def test_addgrads_from_a_link_that_does_not_fit_adds_nothing(case):
    make_target, make_source, error = COPY_MISMATCHES[case]
    target, source = make_target(), make_source()
    for link in (target, source):
        for param in link.params():
            param.grad = numpy.ones_like(param.array)
    assert_changes_nothing(lambda: target.addgrads(source), target,
                           raises=type_check.InvalidType if error is ValueError else error)


def test_addgrads_of_another_dtype_adds_nothing():
    target, source = chain_of(2), chain_of(2, seed=1)
    source[2].last.b.array = source[2].last.b.array.astype(numpy.float64)
    source[2].last.b.grad = numpy.ones(2)
    assert_changes_nothing(lambda: target.addgrads(source), target,
                           raises=type_check.InvalidType, match="lhs.dtype == rhs.dtype")


def test_copyparams_and_addgrads_that_broadcast_work_as_in_chainer():
    target, source = L.Linear(3, 4), L.Linear(3, 1)
    target.copyparams(source)
    numpy.testing.assert_array_equal(target.W.array, numpy.broadcast_to(source.W.array, (4, 3)))
    target.W.grad = numpy.ones((4, 3), "f")
    source.W.grad = numpy.full((1, 3), 2.0, "f")
    source.b.grad = numpy.full(1, 2.0, "f")
    target.b.grad = numpy.ones(4, "f")
    target.addgrads(source)
    numpy.testing.assert_array_equal(target.W.grad, numpy.full((4, 3), 3.0, "f"))
    numpy.testing.assert_array_equal(target.b.grad, numpy.full(4, 3.0, "f"))


def test_the_first_mismatch_in_the_walk_is_the_error_raised_as_in_chainer():
    # The first child's shapes differ, the second child is missing: copyparams meets the
    # shapes first, so the check must not raise the lookup's IndexError.
    target = C.ChainList(L.Linear(2, 3), L.Linear(2, 3))
    source = C.ChainList(L.Linear(2, 4))
    assert_changes_nothing(lambda: target.copyparams(source), target, raises=ValueError)


def test_copyparams_into_a_read_only_array_fails_before_copying_anything():
    target, source = chain_of(2), chain_of(2, seed=1)
    target[2].norm.avg_mean = numpy.broadcast_to(numpy.float32(0), (3,))  # read-only
    assert_changes_nothing(lambda: target.copyparams(source), target, raises=ValueError,
                           match="read-only")


def test_copyparams_from_a_sequential_whose_layer_is_a_function_copies_nothing():
    target = C.Sequential(L.Linear(3, 4), L.Linear(4, 4), L.Linear(4, 2))
    source = C.Sequential(L.Linear(3, 4), L.Linear(4, 4), F.relu)
    assert_changes_nothing(lambda: target.copyparams(source), target, source, raises=KeyError)


def test_addgrads_after_an_array_was_replaced_adds_nothing():
    target, source = chain_of(2), chain_of(2, seed=1)
    target[2].last.W.array = numpy.zeros((3, 4), "f")  # its gradient keeps the shape (2, 4)
    assert_changes_nothing(lambda: target.addgrads(source), target, raises=ValueError,
                           match="Shape of data and grad mismatch")
