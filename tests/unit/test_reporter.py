"""Unit tests of ``chainer_compat.reporter``: our messages, the NumPy 1 sums on NumPy 2, thread
isolation under concurrency, serialization through ``chainer_compat.serializers`` and CuPy
values staying on their device."""

from __future__ import annotations

import threading

import numpy
import pytest

import chainer_compat
import chainer_compat.functions as F
from chainer_compat import reporter as reporter_module
from chainer_compat import serializers
from chainer_compat.reporter import DictSummary, Reporter, Summary

# ----------------------------------------------------------------------------- Reporter


def test_get_current_reporter_without_one_says_how_to_make_one_current():
    with pytest.raises(IndexError, match=r"`with reporter:`"):
        reporter_module.get_current_reporter()


def test_unregistered_observer_error_names_add_observer_and_the_type():
    class Model:
        pass

    with Reporter().scope({}), pytest.raises(KeyError, match=(
            r"^'Given observer is not registered to the reporter\. .*add_observer.*Model")):
        reporter_module.report({"x": 1}, Model())


def test_report_scope_restores_the_observation_when_the_block_raises():
    reporter = Reporter()
    outer = {}
    with reporter.scope(outer):
        with pytest.raises(RuntimeError), reporter_module.report_scope({}):
            raise RuntimeError("boom")
        reporter_module.report({"after": 1})
    assert outer == {"after": 1}


def test_report_stores_values_other_than_variables_as_they_are():
    array = numpy.arange(3.0)
    observation = {}
    with Reporter().scope(observation):
        reporter_module.report({"array": array, "number": 2.5})
    assert observation["array"] is array
    assert observation["number"] == 2.5


def test_reported_copy_keeps_requires_grad_and_name():
    x = chainer_compat.Variable(numpy.ones(2, dtype=numpy.float32), name="x",
                                requires_grad=False)
    observation = {}
    with Reporter().scope(observation):
        reporter_module.report({"x": x})
    assert observation["x"] is not x
    assert observation["x"].name == "x"
    assert observation["x"].requires_grad is False


def test_reported_copy_does_not_keep_the_graph_alive():
    import gc
    import weakref

    x = chainer_compat.Variable(numpy.ones(2, dtype=numpy.float32))
    y = F.sum(x * 2)
    creator = weakref.ref(y.creator_node)
    observation = {}
    with Reporter().scope(observation):
        reporter_module.report({"y": y})
    del y
    gc.collect()
    assert creator() is None
    assert observation["y"].array == 4


def test_add_observers_takes_a_links_namedlinks():
    class Model(chainer_compat.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.child = chainer_compat.Link()

    model = Model()
    reporter = Reporter()
    reporter.add_observer("main", model)
    reporter.add_observers("main", model.namedlinks(skipself=True))
    observation = {}
    with reporter.scope(observation):
        reporter_module.report({"a": 1}, model)
        reporter_module.report({"b": 2}, model.child)
    assert observation == {"main/a": 1, "main/child/b": 2}


def test_concurrent_threads_report_to_their_own_reporters():
    threads_count = 4
    barrier = threading.Barrier(threads_count)
    observations: list[dict] = [{} for _ in range(threads_count)]
    errors: list[BaseException] = []

    def work(index: int) -> None:
        try:
            reporter = Reporter()
            with reporter.scope(observations[index]):
                barrier.wait(timeout=10)  # every thread has its reporter current now
                for step in range(50):
                    reporter_module.report({"index": index, "step": step})
                barrier.wait(timeout=10)
                if reporter_module.get_current_reporter() is not reporter:
                    raise AssertionError("another thread's reporter became current")
        except BaseException as error:  # handed to the main thread, which asserts
            errors.append(error)

    threads = [threading.Thread(target=work, args=(index,)) for index in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert observations == [{"index": index, "step": 49} for index in range(threads_count)]


def test_stack_of_reporters_is_per_thread_object():
    main_stack = reporter_module._reporters()
    seen = []
    thread = threading.Thread(target=lambda: seen.append(reporter_module._reporters()))
    thread.start()
    thread.join()
    assert seen[0] is not main_stack
    assert seen[0] == []


# ----------------------------------------------------------------------------- Summary


def _float32_reference(values, weights):
    """What Chainer computed on NumPy 1: each term in float32, the sums in float64."""
    x = sum(float(numpy.float32(w) * numpy.float32(v)) for v, w in zip(values, weights))
    x2 = sum(float(numpy.float32(w) * numpy.float32(v) * numpy.float32(v))
             for v, w in zip(values, weights))
    n = float(sum(float(numpy.float32(w)) for w in weights))
    mean = x / n
    return mean, numpy.sqrt(x2 / n - mean * mean)


def test_float32_weights_and_values_sum_float32_terms_in_float64():
    rng = numpy.random.default_rng(3)
    values = rng.normal(size=10).astype(numpy.float32)
    weights = rng.uniform(0.5, 2, size=10).astype(numpy.float32)
    summary = Summary()
    for value, weight in zip(values, weights):
        summary.add(value, weight=weight)
    mean, std = summary.make_statistics()
    reference_mean, reference_std = _float32_reference(values, weights)
    assert numpy.asarray(mean).dtype == numpy.float64
    assert mean == reference_mean
    numpy.testing.assert_allclose(std, reference_std, rtol=1e-12)


def test_a_python_weight_with_a_float32_value_multiplies_in_float64():
    value = numpy.float32(0.1)
    summary = Summary()
    summary.add(value, weight=3)
    # NumPy 2 alone would compute 3 * float32 in float32; NumPy 1, and so Chainer, in float64.
    assert summary._x == 3 * numpy.float64(value)
    assert summary._x2 == 3 * numpy.float64(value) * numpy.float64(value)


def test_python_numbers_keep_python_sums():
    summary = Summary()
    summary.add(1)
    summary.add(2.5, weight=2)
    assert type(summary._x) is float and type(summary._x2) is float
    assert type(summary._n) is int and summary._n == 3


def test_numpy_weights_widen_the_count():
    summary = Summary()
    summary.add(1.0, weight=numpy.float32(0.5))
    summary.add(1.0, weight=numpy.int32(2))
    assert numpy.asarray(summary._n).dtype == numpy.float64
    assert summary._n == 2.5


def test_zero_d_arrays_are_summed_like_scalars():
    summary = Summary()
    summary.add(numpy.array(2.0, dtype=numpy.float32))
    summary.add(numpy.array(4.0, dtype=numpy.float16))
    assert summary.compute_mean() == 3.0
    assert numpy.ndim(summary.compute_mean()) == 0


def test_summary_serializes_into_a_child_path():
    summary = Summary()
    summary.add(2.0)
    serializer = serializers.DictionarySerializer()
    summary.serialize(serializer["stats"])
    assert sorted(serializer.target) == ["stats/_n", "stats/_x", "stats/_x2"]


def test_summary_round_trips_through_an_npz_file(tmp_path):
    summary = Summary()
    for value in numpy.linspace(-1, 2, 7, dtype=numpy.float32):
        summary.add(value)
    path = tmp_path / "summary.npz"
    serializers.save_npz(str(path), summary)
    with numpy.load(path) as npz:
        assert sorted(npz.files) == ["_n", "_x", "_x2"]
    loaded = Summary()
    serializers.load_npz(str(path), loaded)
    assert loaded.make_statistics() == summary.make_statistics()


def test_summary_loaded_non_strictly_from_an_empty_file_keeps_its_values_quietly():
    summary = Summary()
    summary.add(2.0)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        summary.serialize(serializers.NpzDeserializer({}, strict=False))
    assert summary.compute_mean() == 2.0


# ----------------------------------------------------------------------------- DictSummary


def test_dict_summary_weight_error_says_which_key():
    with pytest.raises(ValueError, match=r"weight given to 'loss' must be a scalar.*\(2,\)"):
        DictSummary().add({"loss": (1.0, numpy.ones(2))})


def test_dict_summary_skips_arrays_with_one_element_too():
    summary = DictSummary()
    summary.add({"one_element": numpy.ones(1), "scalar": 1.0})
    assert list(summary.compute_mean()) == ["scalar"]


def test_dict_summary_of_reported_observations():
    rng = numpy.random.default_rng(4)
    losses = rng.uniform(size=6).astype(numpy.float32)
    summary = DictSummary()
    for loss in losses:
        observation = {}
        with Reporter().scope(observation):
            reporter_module.report({"loss": chainer_compat.Variable(numpy.array(loss))})
        summary.add(observation)
    statistics = summary.make_statistics()
    reference = losses.astype(numpy.float64)
    numpy.testing.assert_allclose(statistics["loss"], reference.mean(), rtol=1e-12)
    numpy.testing.assert_allclose(statistics["loss.std"], reference.std(), rtol=1e-6)


def test_dict_summary_npz_file_has_chainers_keys_and_round_trips(tmp_path):
    summary = DictSummary()
    summary.add({"main/loss": 1.0, "main/accuracy": 0.25})
    summary.add({"main/loss": 3.0, "main/accuracy": 0.75})
    path = tmp_path / "dict_summary.npz"
    serializers.save_npz(str(path), summary)
    with numpy.load(path) as npz:
        assert sorted(npz.files) == sorted(
            ["_names"] + [f"_summaries/{i}/{key}" for i in (0, 1) for key in ("_x", "_x2", "_n")])
        assert str(npz["_names"]) == '["main/loss", "main/accuracy"]'
    loaded = DictSummary()
    serializers.load_npz(str(path), loaded)
    assert loaded.make_statistics() == summary.make_statistics()
    assert list(loaded.compute_mean()) == ["main/loss", "main/accuracy"]


def test_empty_dict_summary_round_trips():
    serializer = serializers.DictionarySerializer()
    DictSummary().serialize(serializer)
    assert list(serializer.target) == ["_names"]
    loaded = DictSummary()
    loaded.add({"stale": 1.0})
    loaded.serialize(serializers.NpzDeserializer(serializer.target))
    assert loaded.compute_mean() == {}


# ----------------------------------------------------------------------------- CuPy


@pytest.mark.gpu
def test_summary_of_cupy_values_stays_on_the_device(cupy):
    values = [cupy.array(v, dtype=cupy.float32) for v in (1.0, 2.0, 4.0)]
    summary = Summary()
    for value in values:
        summary.add(value)
    mean, std = summary.make_statistics()
    assert isinstance(mean, cupy.ndarray) and isinstance(std, cupy.ndarray)
    reference = numpy.array([1.0, 2.0, 4.0])
    numpy.testing.assert_allclose(cupy.asnumpy(mean), reference.mean(), rtol=1e-6)
    numpy.testing.assert_allclose(cupy.asnumpy(std), reference.std(), rtol=1e-5)


@pytest.mark.gpu
def test_dict_summary_of_cupy_variables_round_trips(cupy):
    summary = DictSummary()
    for value in (0.5, 1.5):
        summary.add({"loss": chainer_compat.Variable(cupy.array(value, dtype=cupy.float32))})
    assert isinstance(summary.compute_mean()["loss"], cupy.ndarray)
    serializer = serializers.DictionarySerializer()
    summary.serialize(serializer)
    assert isinstance(serializer.target["_summaries/0/_x"], numpy.ndarray)
    loaded = DictSummary()
    loaded.serialize(serializers.NpzDeserializer(serializer.target))
    numpy.testing.assert_allclose(float(loaded.compute_mean()["loss"]), 1.0, rtol=1e-6)


@pytest.mark.gpu
def test_reported_cupy_arrays_and_variables_stay_on_the_device(cupy):
    array = cupy.arange(3, dtype=cupy.float32)
    variable = chainer_compat.Variable(cupy.ones(2, dtype=cupy.float32))
    observation = {}
    with Reporter().scope(observation):
        reporter_module.report({"array": array, "variable": variable})
    assert observation["array"] is array
    assert observation["variable"].array is variable.array
