"""load_npz and load_hdf5 load everything or nothing (NOTE [all-or-nothing loading]): a missing
key, a misfit array or an unloadable scalar anywhere in the file leaves the object as it was."""

from __future__ import annotations

import io
import json
import warnings

import numpy
import pytest

from chainer_compat import initializers, optimizers, reporter, serializers, training
from chainer_compat import links as L
from chainer_compat.iterators import SerialIterator
from chainer_compat.link import Chain, ChainList, Link
from chainer_compat.serializers import npz
from chainer_compat.training import extensions
from chainer_compat.variable import Parameter


class Leaf(Link):
    def __init__(self, lazy: bool = False) -> None:
        super().__init__()
        with self.init_scope():
            self.W = Parameter(initializers.Normal(), None if lazy else (3, 2))
        self.add_persistent("count", 0)
        self.add_persistent("running", numpy.zeros(3, numpy.float32))


class Tree(Chain):
    def __init__(self, lazy: bool = False) -> None:
        super().__init__()
        with self.init_scope():
            self.first = Leaf(lazy)
            self.rest = ChainList(Leaf(lazy), Leaf(lazy))


def state_of(obj) -> dict:
    """Every value obj saves, copied, with the trainer's clock left out."""
    saved = npz.serialize(obj)
    return {key: numpy.array(value, copy=True) for key, value in saved.items()
            if not key.endswith("_snapshot_elapsed_time")}


def assert_same(before: dict, after: dict) -> None:
    assert before.keys() == after.keys()
    for key in before:
        numpy.testing.assert_array_equal(before[key], after[key], err_msg=key)


def file_of(state: dict, **replace) -> io.BytesIO:
    """An NPZ file of ``state`` with the entries in ``replace`` replaced (None: removed)."""
    state = dict(state)
    for key, value in replace.items():
        key = key.replace("__", "/")
        if value is None:
            del state[key]
        else:
            state[key] = value
    buffer = io.BytesIO()
    numpy.savez(buffer, **state)
    buffer.seek(0)
    return buffer


def trained_tree(seed: int, lazy: bool = False) -> Tree:
    tree = Tree(lazy)
    rng = numpy.random.default_rng(seed)
    for link in tree.links():
        if isinstance(link, Leaf):
            link.W.array = rng.uniform(-1, 1, (3, 2)).astype(numpy.float32)
            link.count = int(rng.integers(1, 100))
            link.running[...] = rng.uniform(-1, 1, 3)
    return tree


# Each removes or spoils one value that comes late in the traversal (rest/1 is the last link).
SPOILED = {
    "missing key": dict(rest__1__W=None),
    "misfit array": dict(rest__1__W=numpy.zeros((2, 3), numpy.float32)),
    "misfit persistent": dict(rest__1__running=numpy.zeros(4, numpy.float32)),
    "unloadable scalar": dict(rest__1__count=numpy.asarray(0.5)),
    "array for a scalar": dict(rest__1__count=numpy.arange(3)),
    "object in the file": dict(rest__1__W=numpy.asarray([None, None], dtype=object)),
}


@pytest.mark.parametrize("spoil", list(SPOILED), ids=list(SPOILED))
def test_a_failed_load_npz_changes_nothing(spoil):
    source = file_of(npz.serialize(trained_tree(1)), **SPOILED[spoil])
    target = trained_tree(2)
    before = state_of(target)
    with pytest.raises((KeyError, ValueError, TypeError)):
        serializers.load_npz(source, target)
    assert_same(before, state_of(target))
    # The file's other values differ: a one-pass load would have changed them.
    assert not numpy.array_equal(before["first/W"], npz.serialize(trained_tree(1))["first/W"])


def test_the_error_is_the_one_the_load_itself_raises():
    source = file_of(npz.serialize(trained_tree(1)), rest__1__W=numpy.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"array 'rest/1/W' in the file must fit the existing "
                                         r"array of shape \(3, 2\)"):
        serializers.load_npz(source, trained_tree(2))
    source = file_of(npz.serialize(trained_tree(1)), rest__1__W=None)
    with pytest.raises(KeyError, match="rest/1/W"):
        serializers.load_npz(source, trained_tree(2))


def test_a_failed_load_leaves_lazy_parameters_uninitialized():
    source = file_of(npz.serialize(trained_tree(1)), rest__1__count=numpy.asarray(0.5))
    target = Tree(lazy=True)
    with pytest.raises(TypeError):
        serializers.load_npz(source, target)
    assert all(param.array is None for param in target.params())


def test_a_good_load_still_loads_everything():
    saved = npz.serialize(trained_tree(1))
    target = Tree(lazy=True)
    serializers.load_npz(file_of(saved), target)
    assert_same({key: numpy.array(value) for key, value in saved.items()}, state_of(target))


def test_non_strict_and_ignored_keys_still_load_the_rest():
    saved = npz.serialize(trained_tree(1))
    target = trained_tree(2)
    old = target.rest[1].W.array.copy()
    serializers.load_npz(file_of(saved, rest__1__W=None), target, strict=False)
    numpy.testing.assert_array_equal(target.first.W.array, saved["first/W"])
    numpy.testing.assert_array_equal(target.rest[1].W.array, old)
    target = trained_tree(2)
    serializers.load_npz(file_of(saved, rest__1__W=numpy.zeros((2, 3))), target,
                         ignore_names="rest/1/W")
    numpy.testing.assert_array_equal(target.first.W.array, saved["first/W"])
    numpy.testing.assert_array_equal(target.rest[1].W.array, old)


def test_a_failed_load_hdf5_changes_nothing(tmp_path):
    h5py = pytest.importorskip("h5py")
    path = tmp_path / "tree.h5"
    serializers.save_hdf5(str(path), trained_tree(1))
    with h5py.File(path, "a") as file:
        del file["rest/1/W"]
        file["rest/1/W"] = numpy.zeros((2, 3), numpy.float32)
    target = trained_tree(2)
    before = state_of(target)
    with pytest.raises(TypeError):
        serializers.load_hdf5(str(path), target)
    assert_same(before, state_of(target))
    with h5py.File(path, "a") as file:
        del file["rest/1/W"]
    with pytest.raises(KeyError):
        serializers.load_hdf5(str(path), target)
    assert_same(before, state_of(target))


def test_a_failed_optimizer_load_keeps_t_and_leaves_the_state_to_the_first_update():
    def adam(seed):
        model = L.Linear(3, 2, initialW=initializers.Normal(), initial_bias=0.5)
        model.W.array = numpy.random.default_rng(seed).normal(size=(2, 3)).astype("f")
        optimizer = optimizers.Adam()
        optimizer.setup(model)
        return model, optimizer

    model, optimizer = adam(0)
    for _ in range(3):
        model.cleargrads()
        loss = (model(numpy.ones((1, 3), "f")) ** 2)
        loss.grad = numpy.ones_like(loss.array)
        loss.backward()
        optimizer.update()
    saved = npz.serialize(optimizer)
    fresh_model, fresh = adam(1)
    # b's state comes after W's: the one-pass load would have filled W's and t.
    with pytest.raises(KeyError, match="b/v"):
        serializers.load_npz(file_of(saved, b__v=None), fresh)
    assert fresh.t == 0
    assert all(param.update_rule.state is None for param in fresh_model.params())
    serializers.load_npz(file_of(saved), fresh)
    assert fresh.t == 3
    numpy.testing.assert_array_equal(fresh_model.b.update_rule.state["v"], saved["b/v"])


def make_trainer(tmp_path, seed: int):
    rng = numpy.random.default_rng(seed)
    data = [(rng.normal(size=3).astype("f"), numpy.int32(i % 2)) for i in range(8)]
    model = L.Classifier(L.Linear(3, 2))
    optimizer = optimizers.MomentumSGD()
    optimizer.setup(model)
    iterator = SerialIterator(data, 3, shuffle=True)
    updater = training.updaters.StandardUpdater(iterator, optimizer)
    trainer = training.Trainer(updater, (20, "iteration"), out=str(tmp_path / str(seed)))
    trainer.extend(extensions.LogReport(trigger=(2, "iteration")))
    trainer.extend(extensions.ExponentialShift("lr", 0.5), trigger=(2, "iteration"))
    return trainer


def run_for(trainer, iterations: int):
    trainer.stop_trigger = training.triggers.IntervalTrigger(iterations, "iteration")
    trainer.run(show_loop_exception_msg=False)


class _Then:
    """Loads ``obj``, then ``key`` (which the file lacks)."""

    def __init__(self, obj, key="missing", value=0):
        self.obj, self.key, self.value = obj, key, value

    def serialize(self, serializer):
        self.obj.serialize(serializer)
        serializer(self.key, self.value)


@pytest.mark.parametrize("spoil", ["_snapshot_elapsed_time", "extensions/LogReport/_log",
                                   "updater/iteration", "a value after the trainer's"])
def test_a_failed_trainer_resume_changes_nothing(tmp_path, spoil):
    saved = make_trainer(tmp_path, 0)
    run_for(saved, 4)
    state = npz.serialize(saved)
    target = make_trainer(tmp_path, 1)
    run_for(target, 6)
    target._snapshot_elapsed_time = 12.5
    if spoil.startswith("a value"):
        source, loaded = file_of(state), _Then(target)
    else:
        replacement = numpy.asarray("{not json") if spoil.endswith("_log") else None
        source, loaded = file_of(state, **{spoil.replace("/", "__"): replacement}), target
    before = state_of(target)
    log = target.get_extension("LogReport").log
    elapsed = target._snapshot_elapsed_time
    with pytest.raises((KeyError, ValueError)):
        serializers.load_npz(source, loaded)
    assert_same(before, state_of(target))
    assert target.get_extension("LogReport").log is log
    assert target._snapshot_elapsed_time == elapsed
    # and the intact file resumes it
    serializers.load_npz(file_of(state), target)
    assert target.updater.iteration == 4
    assert len(target.get_extension("LogReport").log) == 2


def test_a_load_warns_once_not_once_per_pass():
    trigger = training.triggers.IntervalTrigger(2, "iteration")
    source = file_of({"previous_epoch_detail": numpy.asarray(0.5)})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        serializers.load_npz(source, trigger)
    assert [str(w.message).split(".")[0] for w in caught] == [
        "The previous value of iteration is not saved"]
    assert trigger._previous_iteration == -1
    assert trigger._previous_epoch_detail == 0.5


def test_a_failed_summary_load_keeps_the_summaries():
    summary = reporter.DictSummary()
    summary.add({"loss": 1.0, "accuracy": 0.5})
    source = file_of({"_names": numpy.asarray(json.dumps(["loss", "accuracy"])),
                      "_summaries/0/_x": numpy.asarray(3.0),
                      "_summaries/0/_x2": numpy.asarray(9.0),
                      "_summaries/0/_n": numpy.asarray(1)})
    with pytest.raises(KeyError, match="_summaries/1/_x"):
        # Summary catches the KeyError and warns; DictSummary's other entries still must load
        serializers.NpzDeserializer(numpy.load(source), strict=True).load(
            _Then(summary, "_summaries/1/_x", 0.0))
    assert summary.compute_mean() == {"loss": 1.0, "accuracy": 0.5}


def test_decorrelated_statistics_of_the_wrong_rank_change_nothing():
    link = L.DecorrelatedBatchNormalization(4, groups=2)
    link.avg_mean[...] = 1.0
    source = file_of({"avg_mean": numpy.zeros((1, 2, 2), "f"),
                      "avg_projection": numpy.zeros((2, 2, 2), "f"),
                      "N": numpy.asarray(3)})
    with pytest.raises(ValueError, match="avg_mean of DecorrelatedBatchNormalization"):
        serializers.load_npz(source, link)
    assert (link.avg_mean == 1.0).all() and link.N == 0


class _ParsesADefault(Link):
    """Passes a default instead of its value when loading, as Chainer's own LogReport does:
    the check pass cannot run it, so it loads in one pass."""

    def __init__(self):
        super().__init__()
        self.entries: list = []

    def serialize(self, serializer):
        if isinstance(serializer, serializers.Deserializer):
            self.entries = json.loads(str(serializer("entries", "")))
        else:
            serializer("entries", json.dumps(self.entries))


def test_an_object_that_cannot_be_checked_still_loads():
    source = file_of({"entries": numpy.asarray(json.dumps([1, 2]))})
    target = _ParsesADefault()
    serializers.load_npz(source, target)
    assert target.entries == [1, 2]


class _Rewraps(Link):
    def __init__(self):
        super().__init__()
        self.x = 1.0
        self.y = 2.0

    def serialize(self, serializer):
        self.x = serializer("x", self.x)
        try:
            self.y = serializer("y", self.y)
        except KeyError as error:
            raise RuntimeError("this snapshot is too old") from error


def test_an_error_raised_because_of_a_check_failure_is_raised_before_loading():
    target = _Rewraps()
    with pytest.raises(RuntimeError, match="too old"):
        serializers.load_npz(file_of({"x": numpy.asarray(5.0)}), target)
    assert target.x == 1.0


def _check_pass_only(obj, source) -> None:
    from chainer_compat.serializers import _checked

    checker = npz._NpzCheck(dict(numpy.load(source)), "", True, None, _checked.LoadCheck())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj.serialize(checker)


def _advanced_iterator(kind):
    from chainer_compat import iterators

    dataset = list(range(10))
    if kind == "serial":
        iterator = iterators.SerialIterator(dataset, 3, shuffle=True)
    elif kind == "multithread":
        iterator = iterators.MultithreadIterator(dataset, 3, shuffle=True, n_threads=1)
    else:
        iterator = iterators.MultiprocessIterator(dataset, 3, shuffle=True, n_processes=1)
    for _ in range(2):
        iterator.next()
    return iterator


# Objects whose load falls back on a missing key by changing a value; the check pass must not.
FALLBACKS = {
    "SerialIterator": (lambda: _advanced_iterator("serial"), "previous_epoch_detail",
                       lambda it: it.previous_epoch_detail),
    "MultithreadIterator": (lambda: _advanced_iterator("multithread"), None,
                            lambda it: (it.previous_epoch_detail, it._next is None)),
    "MultiprocessIterator": (lambda: _advanced_iterator("multiprocess"), None,
                             lambda it: (it.previous_epoch_detail, it._prefetch_state)),
    "OnceTrigger": (lambda: training.triggers.OnceTrigger(), "_flag_first",
                    lambda t: t._flag_first),
    "ManualScheduleTrigger": (lambda: training.triggers.ManualScheduleTrigger([5], "iteration"),
                              "finished", lambda t: (t.finished, t._finished_unknown)),
    "IntervalTrigger": (lambda: training.triggers.IntervalTrigger(2, "iteration"),
                        "previous_iteration", lambda t: t._previous_iteration),
}


@pytest.mark.parametrize("name", list(FALLBACKS), ids=list(FALLBACKS))
def test_the_check_pass_changes_nothing_where_a_load_falls_back(name):
    make, removed, observe = FALLBACKS[name]
    saved = make()
    state = npz.serialize(saved)
    if hasattr(saved, "finalize"):
        saved.finalize()
    target = make()
    if name == "ManualScheduleTrigger":
        target.finished = True
    elif name == "IntervalTrigger":
        target._previous_iteration = 7
    elif name.endswith("Iterator"):
        target.next()
        target._previous_epoch_detail = 0.125  # what no guess gives
    spoiled = {key: value for key, value in state.items() if key != removed}
    if name.endswith("Iterator"):
        spoiled = {key: (numpy.asarray(0) if key == "epoch" else value)
                   for key, value in spoiled.items()}  # to tell a change
    before = observe(target)
    _check_pass_only(target, file_of(spoiled))
    assert observe(target) == before
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        serializers.load_npz(file_of(spoiled), target)
    assert observe(target) != before  # so the check pass had something to leave alone
    if hasattr(target, "finalize"):
        target.finalize()


@pytest.mark.gpu
@pytest.mark.parametrize("spoil", ["misfit array", "missing key", "unloadable scalar"])
def test_a_failed_load_into_a_model_on_the_gpu_changes_nothing(cupy, spoil):
    source = file_of(npz.serialize(trained_tree(1)), **SPOILED[spoil])
    target = trained_tree(2)
    target.to_gpu()
    weight = target.first.W.array
    before = state_of(target)
    with pytest.raises((KeyError, ValueError, TypeError)):
        serializers.load_npz(source, target)
    assert_same(before, state_of(target))
    assert target.first.W.array is weight
    saved = npz.serialize(trained_tree(1))
    serializers.load_npz(file_of(saved), target)
    assert target.first.W.array is weight  # loaded in place, on the device
    numpy.testing.assert_array_equal(cupy.asnumpy(weight), saved["first/W"])


def test_an_hdf5_dataset_h5py_cannot_convert_changes_nothing(tmp_path):
    h5py = pytest.importorskip("h5py")
    path = tmp_path / "linear.h5"
    with h5py.File(path, "w") as file:
        file["W"] = numpy.full((4, 3), 7, "f")
        file["b"] = numpy.ones(4, numpy.complex128) + 0.5j
    link = L.Linear(3, 4)
    before = state_of(link)
    with pytest.raises(OSError, match="conversion"):
        serializers.load_hdf5(str(path), link)
    assert_same(before, state_of(link))


@pytest.mark.parametrize("names", ["5", "[1, [2]]"])
def test_summary_names_that_cannot_name_summaries_change_nothing(names):
    summary = reporter.DictSummary()
    summary.add({"loss": 1.0})
    source = file_of({"_names": numpy.asarray(names), "_summaries/0/_x": numpy.asarray(3.0),
                      "_summaries/0/_x2": numpy.asarray(9.0), "_summaries/0/_n": numpy.asarray(1)})
    with pytest.raises(TypeError):
        serializers.load_npz(source, summary)
    assert summary.compute_mean() == {"loss": 1.0}


def test_a_shift_whose_saved_value_is_not_one_value_changes_nothing():
    shift = extensions.ExponentialShift("lr", 0.5)
    shift._t = 3
    with pytest.raises(ValueError, match="size 1"):
        serializers.load_npz(file_of({"_t": numpy.asarray(7), "_last_value": numpy.ones(3)}),
                             shift)
    assert (shift._t, shift._last_value) == (3, None)


def test_json_stored_as_none_fails_with_chainers_type_error():
    report = extensions.LogReport()
    with pytest.raises(TypeError, match="JSON object must be str"):
        serializers.load_npz(file_of({"_log": numpy.asarray(None),
                                      "_summary/_names": numpy.asarray("[]")}), report)
    assert report.log == []


def test_a_one_element_array_loads_into_a_scalar_as_numpy_1_converted_it():
    leaf = Leaf()
    saved = npz.serialize(trained_tree(1).first)
    serializers.load_npz(file_of(saved, count=numpy.asarray([5])), leaf)
    assert leaf.count == 5 and type(leaf.count) is int
    with pytest.raises(TypeError):
        serializers.load_npz(file_of(saved, count=numpy.asarray([5, 6])), leaf)


@pytest.mark.parametrize("stored", [numpy.asarray([["a", "b"]]),
                                    numpy.asarray([["a", 2.0]], dtype=object)],
                         ids=["strings", "objects"])
def test_an_array_a_lazy_parameter_cannot_take_changes_nothing(stored):
    source = file_of(npz.serialize(trained_tree(1)), rest__1__W=stored)
    target = Tree(lazy=True)
    target.first.W.initialize((3, 2))  # one parameter has an array the one-pass load fills
    target.first.W.array[...] = 5.0
    with pytest.raises(ValueError, match="could not convert string to float"):
        serializers.load_npz(source, target)
    assert (target.first.W.array == 5.0).all()
    assert target.rest[1].W.array is None


def test_a_lazy_parameter_takes_what_chainer_assigns_to_it():
    # Chainer assigns the loaded array with any cast: numbers held as objects or text load.
    for stored in (numpy.asarray([[1.5, 2.0]], dtype=object), numpy.asarray([["1.5", "2"]])):
        link = L.Linear(None, 1)
        serializers.load_npz(file_of({"W": stored, "b": numpy.zeros(1, "f")}), link)
        numpy.testing.assert_array_equal(link.W.array, numpy.asarray([[1.5, 2.0]], "f"))


def test_text_stored_as_a_one_element_array_is_not_unwrapped():
    # str() of such an array has brackets, on NumPy 1 (Chainer) as on NumPy 2.
    report = extensions.LogReport()
    with pytest.raises(json.JSONDecodeError):
        serializers.load_npz(file_of({"_log": numpy.asarray(["[]"]),
                                      "_summary/_names": numpy.asarray("[]")}), report)


def test_a_shape_a_lazy_parameters_initializer_refuses_changes_nothing():
    # LeCunNormal (Linear's default) needs two dimensions to compute its fan-in.
    target = ChainList(L.Linear(2, 2), L.Linear(None, 3))
    target[0].W.array[...] = 5.0
    source = file_of({"0/W": numpy.ones((2, 2), "f"), "0/b": numpy.ones(2, "f"),
                      "1/W": numpy.ones(4, "f"), "1/b": numpy.ones(3, "f")})
    with pytest.raises(ValueError, match="fan"):
        serializers.load_npz(source, target)
    assert (target[0].W.array == 5.0).all()
    assert target[1].W.array is None
