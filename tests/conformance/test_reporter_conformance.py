"""Chainer-visible behaviour of ``chainer.reporter`` (Reporter, report, report_scope, Summary,
DictSummary and their saved keys) and of ``chainer.links.Classifier``. Each case was checked
against Chainer 7.8.1; set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import inspect
import io
import json
import os
import threading

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
reporter_module = importlib.import_module(chainer.__name__ + ".reporter")
serializers = importlib.import_module(chainer.__name__ + ".serializers")
Classifier = importlib.import_module(chainer.__name__ + ".links.model.classifier").Classifier

Reporter = reporter_module.Reporter
Summary = reporter_module.Summary
DictSummary = reporter_module.DictSummary


class Affine(chainer.Link):
    """y = x W^T with a fixed W, so results are reproducible."""

    def __init__(self, in_size: int = 3, out_size: int = 4) -> None:
        super().__init__()
        weights = numpy.linspace(-1, 1, in_size * out_size, dtype=numpy.float32)
        with self.init_scope():
            self.W = chainer.Parameter(weights.reshape(out_size, in_size))

    def forward(self, x):
        return F.matmul(x, self.W, transb=True)


class TwoInputs(chainer.Link):
    """y = a + b, to check which arguments reach the predictor."""

    def forward(self, a, b):
        return chainer.Variable(a) + b


def _batch():
    x = (numpy.arange(15, dtype=numpy.float32).reshape(5, 3) - 7) / 3
    t = numpy.array([0, 3, 1, 2, 3], dtype=numpy.int32)
    return x, t


def _numpy_softmax_cross_entropy(y, t):
    shifted = y - y.max(axis=1, keepdims=True)
    log_softmax = shifted - numpy.log(numpy.exp(shifted).sum(axis=1, keepdims=True))
    return -log_softmax[numpy.arange(len(t)), t].mean()


# ----------------------------------------------------------------------------- Reporter


def test_report_prefixes_keys_with_the_observer_name():
    reporter = Reporter()
    observer = object()
    reporter.add_observer("model", observer)
    observation = {}
    with reporter.scope(observation):
        reporter.report({"x": 1, "y": 2.5}, observer)
        reporter.report({"z": 3})
    assert observation == {"model/x": 1, "model/y": 2.5, "z": 3}


def test_add_observers_prepends_the_prefix_to_each_name():
    reporter = Reporter()
    first, second = object(), object()
    reporter.add_observers("main/", [("a", first), ("b", second)])
    observation = {}
    with reporter.scope(observation):
        reporter_module.report({"v": 1}, first)
        reporter_module.report({"v": 2}, second)
    assert observation == {"main/a/v": 1, "main/b/v": 2}


def test_observers_are_told_apart_by_identity_not_equality():
    reporter = Reporter()
    registered, equal = [1], [1]
    reporter.add_observer("first", registered)
    observation = {}
    with reporter.scope(observation):
        reporter.report({"x": 1}, registered)
        with pytest.raises(KeyError):
            reporter.report({"y": 2}, equal)
    assert observation == {"first/x": 1}


def test_report_with_an_unregistered_observer_raises_key_error():
    reporter = Reporter()
    with reporter.scope({}), pytest.raises(KeyError):
        reporter_module.report({"x": 1}, object())


def test_module_report_without_a_current_reporter_does_nothing():
    reporter = Reporter()
    reporter_module.report({"x": 1}, object())  # even an unknown observer is not looked at
    assert reporter.observation == {}


def test_get_current_reporter_and_report_scope_without_a_reporter_raise_index_error():
    with pytest.raises(IndexError):
        reporter_module.get_current_reporter()
    with pytest.raises(IndexError), reporter_module.report_scope({}):
        pass


def test_with_reporter_makes_it_current_and_enter_returns_none():
    reporter = Reporter()
    with reporter as entered:
        assert entered is None
        assert reporter_module.get_current_reporter() is reporter
        reporter_module.report({"x": 1})
    assert reporter.observation == {"x": 1}
    with pytest.raises(IndexError):
        reporter_module.get_current_reporter()


def test_nested_scopes_write_to_the_innermost_observation_and_restore_the_outer():
    outer_reporter, inner_reporter = Reporter(), Reporter()
    outer, inner, redirected = {}, {}, {}
    with outer_reporter.scope(outer):
        reporter_module.report({"a": 1})
        with inner_reporter.scope(inner):
            assert reporter_module.get_current_reporter() is inner_reporter
            reporter_module.report({"b": 2})
            with reporter_module.report_scope(redirected):
                reporter_module.report({"c": 3})
            reporter_module.report({"d": 4})
        assert reporter_module.get_current_reporter() is outer_reporter
        reporter_module.report({"e": 5})
    assert outer == {"a": 1, "e": 5}
    assert inner == {"b": 2, "d": 4}
    assert redirected == {"c": 3}
    assert outer_reporter.observation == {} and inner_reporter.observation == {}


def test_scope_restores_the_reporter_when_the_block_raises():
    reporter = Reporter()
    original = reporter.observation
    with pytest.raises(RuntimeError), reporter.scope({}):
        raise RuntimeError("boom")
    assert reporter.observation is original
    with pytest.raises(IndexError):
        reporter_module.get_current_reporter()


def test_current_reporters_are_per_thread():
    reporter = Reporter()
    seen = {}

    def other_thread():
        try:
            reporter_module.get_current_reporter()
            seen["current"] = "some reporter"
        except IndexError:
            seen["current"] = None
        reporter_module.report({"from_thread": 1})  # no reporter here: a no-op
        own = Reporter()
        with own.scope(seen.setdefault("own", {})):
            reporter_module.report({"x": 2})

    observation = {}
    with reporter.scope(observation):
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
        assert reporter_module.get_current_reporter() is reporter
    assert seen["current"] is None
    assert seen["own"] == {"x": 2}
    assert observation == {}


def test_reported_variable_is_a_copy_cut_from_the_graph():
    x = chainer.Variable(numpy.array([1.0, 2.0], dtype=numpy.float32))
    y = F.sum(x * 2)
    observation = {}
    with Reporter().scope(observation):
        reporter_module.report({"y": y})
    stored = observation["y"]
    assert isinstance(stored, chainer.Variable)
    assert stored is not y
    assert stored.array is y.array
    assert stored.creator is None and y.creator is not None


def test_keep_graph_on_report_stores_the_variable_itself():
    y = F.sum(chainer.Variable(numpy.ones(3, dtype=numpy.float32)) * 3)
    observation = {}
    with chainer.using_config("keep_graph_on_report", True), Reporter().scope(observation):
        reporter_module.report({"y": y})
    assert observation["y"] is y


# ----------------------------------------------------------------------------- Summary


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_summary_mean_and_std_match_numpy(dtype):
    values = numpy.random.default_rng(0).normal(size=20).astype(dtype)
    summary = Summary()
    for value in values:
        summary.add(value)
    mean, std = summary.make_statistics()
    reference = values.astype(numpy.float64)
    numpy.testing.assert_allclose(summary.compute_mean(), reference.mean(), rtol=1e-12)
    numpy.testing.assert_allclose(mean, reference.mean(), rtol=1e-12)
    numpy.testing.assert_allclose(std, reference.std(), rtol=1e-9)


def test_summary_of_float32_values_accumulates_in_float64():
    summary = Summary()
    summary.add(numpy.float32(0.1))
    summary.add(numpy.array(0.2, dtype=numpy.float32))
    mean, std = summary.make_statistics()
    assert numpy.asarray(mean).dtype == numpy.float64
    assert numpy.asarray(std).dtype == numpy.float64


def test_summary_weighted_mean_and_std_match_numpy():
    values = numpy.array([1.0, 4.0, 2.5, -3.0])
    weights = numpy.array([1.0, 3.0, 0.5, 2.0])
    summary = Summary()
    for value, weight in zip(values, weights):
        summary.add(value, weight=weight)
    mean, std = summary.make_statistics()
    reference_mean = numpy.average(values, weights=weights)
    reference_std = numpy.sqrt(numpy.average((values - reference_mean) ** 2, weights=weights))
    numpy.testing.assert_allclose(mean, reference_mean, rtol=1e-12)
    numpy.testing.assert_allclose(std, reference_std, rtol=1e-12)


def test_summary_of_python_numbers_stays_python():
    summary = Summary()
    summary.add(2)
    summary.add(3)
    assert summary.compute_mean() == 2.5
    assert isinstance(summary.compute_mean(), float)


def test_empty_summary_mean_divides_by_zero():
    with pytest.raises(ZeroDivisionError):
        Summary().compute_mean()


def test_summary_saves_x_x2_and_n():
    summary = Summary()
    summary.add(1.5)
    summary.add(numpy.float32(2.0), weight=2)
    serializer = serializers.DictionarySerializer()
    summary.serialize(serializer)
    assert sorted(serializer.target) == ["_n", "_x", "_x2"]
    numpy.testing.assert_allclose(serializer.target["_x"], 1.5 + 2 * 2.0)
    numpy.testing.assert_allclose(serializer.target["_x2"], 1.5**2 + 2 * 4.0)
    assert int(serializer.target["_n"]) == 3


def test_summary_round_trips_through_npz():
    summary = Summary()
    for value in (0.5, 1.25, 4.0):
        summary.add(numpy.float64(value))
    stream = io.BytesIO()
    serializers.save_npz(stream, summary)
    stream.seek(0)
    loaded = Summary()
    serializers.load_npz(stream, loaded)
    assert loaded.make_statistics() == pytest.approx(summary.make_statistics())


def test_summary_loaded_without_its_keys_warns_and_keeps_its_values():
    summary = Summary()
    summary.add(2.0)
    with pytest.warns(UserWarning, match="previous statistics are not saved"):
        summary.serialize(serializers.NpzDeserializer({}))
    assert summary.compute_mean() == 2.0


# ----------------------------------------------------------------------------- DictSummary


def test_dict_summary_keeps_only_scalar_entries():
    summary = DictSummary()
    summary.add({
        "int": 1,
        "numpy_scalar": numpy.float32(2.0),
        "zero_d": numpy.array(3.0),
        "variable": chainer.Variable(numpy.array(4.0, dtype=numpy.float32)),
        "vector": numpy.array([1.0, 2.0]),
        "vector_variable": chainer.Variable(numpy.array([1.0, 2.0])),
        "none": None,
        "weighted": (numpy.float64(5.0), 2),
    })
    means = summary.compute_mean()
    assert sorted(means) == ["int", "numpy_scalar", "variable", "weighted", "zero_d"]
    assert means == pytest.approx(
        {"int": 1.0, "numpy_scalar": 2.0, "zero_d": 3.0, "variable": 4.0, "weighted": 5.0})


def test_dict_summary_statistics_match_numpy_per_key():
    rng = numpy.random.default_rng(1)
    losses = rng.normal(size=8)
    accuracies = rng.uniform(size=8)
    summary = DictSummary()
    for loss, accuracy in zip(losses, accuracies):
        summary.add({"loss": loss, "accuracy": accuracy})
    statistics = summary.make_statistics()
    assert sorted(statistics) == ["accuracy", "accuracy.std", "loss", "loss.std"]
    numpy.testing.assert_allclose(statistics["loss"], losses.mean(), rtol=1e-12)
    numpy.testing.assert_allclose(statistics["loss.std"], losses.std(), rtol=1e-9)
    numpy.testing.assert_allclose(statistics["accuracy"], accuracies.mean(), rtol=1e-12)
    numpy.testing.assert_allclose(statistics["accuracy.std"], accuracies.std(), rtol=1e-9)


def test_dict_summary_weights_may_be_variables():
    summary = DictSummary()
    summary.add({"x": (1.0, chainer.Variable(numpy.array(3.0)))})
    summary.add({"x": (5.0, 1)})
    assert summary.compute_mean()["x"] == pytest.approx((3 * 1.0 + 5.0) / 4)


@pytest.mark.parametrize("weight", [numpy.array([1.0, 2.0]), [1, 2]])
def test_dict_summary_rejects_a_weight_that_is_not_scalar(weight):
    with pytest.raises(ValueError):
        DictSummary().add({"x": (1.0, weight)})


def test_dict_summary_saves_names_as_json_and_each_summary_by_index():
    summary = DictSummary()
    summary.add({"loss": 1.0, "accuracy": 0.5})
    summary.add({"loss": 3.0})
    serializer = serializers.DictionarySerializer()
    summary.serialize(serializer)
    assert set(serializer.target) == {
        "_names", "_summaries/0/_x", "_summaries/0/_x2", "_summaries/0/_n",
        "_summaries/1/_x", "_summaries/1/_x2", "_summaries/1/_n"}
    names = json.loads(str(serializer.target["_names"]))
    assert names == ["loss", "accuracy"]
    numpy.testing.assert_allclose(serializer.target["_summaries/0/_x"], 4.0)
    assert int(serializer.target["_summaries/0/_n"]) == 2


def test_dict_summary_round_trips_through_npz_and_replaces_what_it_held():
    summary = DictSummary()
    for loss in (1.0, 2.0, 4.0):
        summary.add({"main/loss": numpy.float32(loss), "main/accuracy": loss / 8})
    stream = io.BytesIO()
    serializers.save_npz(stream, summary)
    stream.seek(0)
    loaded = DictSummary()
    loaded.add({"stale": 100.0})
    serializers.load_npz(stream, loaded)
    expected = summary.make_statistics()
    actual = loaded.make_statistics()
    assert sorted(actual) == sorted(expected)
    for key in expected:
        numpy.testing.assert_allclose(actual[key], expected[key], rtol=1e-12)


def test_dict_summary_loaded_without_names_warns_and_is_empty():
    summary = DictSummary()
    summary.add({"x": 1.0})
    with pytest.warns(UserWarning, match="names of statistics are not saved"):
        summary.serialize(serializers.NpzDeserializer({}))
    assert summary.compute_mean() == {}


# ----------------------------------------------------------------------------- Classifier


def test_classifier_defaults():
    parameters = inspect.signature(Classifier).parameters
    assert list(parameters) == ["predictor", "lossfun", "accfun", "label_key"]
    assert parameters["lossfun"].default is F.softmax_cross_entropy
    assert parameters["accfun"].default is F.accuracy
    assert parameters["label_key"].default == -1
    model = Classifier(Affine())
    assert model.compute_accuracy is True and Classifier.compute_accuracy is True
    assert model.y is None and model.loss is None and model.accuracy is None
    assert model.label_key == -1


def test_classifier_registers_the_predictor_as_a_child():
    predictor = Affine()
    model = Classifier(predictor)
    assert model.predictor is predictor
    assert predictor.name == "predictor"
    assert [name for name, _ in model.namedparams()] == ["/predictor/W"]


@pytest.mark.parametrize("label_key", [1.5, None, (0,), b"t"])
def test_classifier_rejects_a_label_key_that_is_neither_int_nor_str(label_key):
    with pytest.raises(TypeError) as info:
        Classifier(Affine(), label_key=label_key)
    assert str(info.value) == f"label_key must be int or str, but is {type(label_key)}"


def test_classifier_computes_loss_and_accuracy_and_keeps_them():
    x, t = _batch()
    model = Classifier(Affine())
    loss = model(x, t)
    y = x @ model.predictor.W.array.T
    numpy.testing.assert_allclose(model.y.array, y, rtol=1e-6)
    assert loss is model.loss
    numpy.testing.assert_allclose(loss.array, _numpy_softmax_cross_entropy(y, t), rtol=1e-5)
    numpy.testing.assert_allclose(model.accuracy.array, (y.argmax(axis=1) == t).mean())
    loss.backward()
    assert model.predictor.W.grad is not None


def test_classifier_reports_loss_and_accuracy_under_its_observer_name():
    x, t = _batch()
    model = Classifier(Affine())
    reporter = Reporter()
    reporter.add_observer("main", model)
    observation = {}
    with reporter.scope(observation):
        model(x, t)
    assert sorted(observation) == ["main/accuracy", "main/loss"]
    reported_loss = observation["main/loss"]
    assert reported_loss is not model.loss and reported_loss.creator is None
    assert model.loss.creator is not None
    assert reported_loss.array is model.loss.array
    assert observation["main/accuracy"].array is model.accuracy.array


def test_classifier_reports_through_a_trainer_like_hierarchy_of_observers():
    x, t = _batch()
    model = Classifier(Affine())
    reporter = Reporter()
    reporter.add_observer("main", model)
    reporter.add_observers("main", model.namedlinks(skipself=True))
    observation = {}
    with reporter.scope(observation):
        model(x, t)
    assert sorted(observation) == ["main/accuracy", "main/loss"]


def test_classifier_without_accuracy_reports_only_the_loss():
    x, t = _batch()
    model = Classifier(Affine())
    model.compute_accuracy = False
    reporter = Reporter()
    reporter.add_observer("main", model)
    observation = {}
    with reporter.scope(observation):
        model(x, t)
    assert list(observation) == ["main/loss"]
    assert model.accuracy is None


def test_classifier_without_a_reporter_still_returns_the_loss():
    x, t = _batch()
    loss = Classifier(Affine())(x, t)
    assert loss.shape == ()


def test_classifier_with_an_unregistered_observer_raises_after_the_loss():
    x, t = _batch()
    model = Classifier(Affine())
    with Reporter().scope({}), pytest.raises(KeyError):
        model(x, t)
    assert model.loss is not None and model.accuracy is None


def test_classifier_takes_the_labels_from_a_positional_index():
    a = numpy.ones((2, 3), dtype=numpy.float32)
    b = numpy.full((2, 3), 2, dtype=numpy.float32)
    t = numpy.array([2, 0], dtype=numpy.int32)
    model = Classifier(TwoInputs(), label_key=1)
    model(a, t, b)
    numpy.testing.assert_array_equal(model.y.array, a + b)


def test_classifier_takes_the_labels_from_a_keyword():
    a = numpy.ones((2, 3), dtype=numpy.float32)
    b = numpy.full((2, 3), 2, dtype=numpy.float32)
    t = numpy.array([2, 0], dtype=numpy.int32)
    model = Classifier(TwoInputs(), label_key="t")
    model(a, b=b, t=t)
    numpy.testing.assert_array_equal(model.y.array, a + b)
    numpy.testing.assert_allclose(model.accuracy.array, 0.5)


@pytest.mark.parametrize("label_key", [2, -3])
def test_classifier_label_index_out_of_bounds(label_key):
    x, t = _batch()
    with pytest.raises(ValueError) as info:
        Classifier(Affine(), label_key=label_key)(x, t)
    assert str(info.value) == f"Label key {label_key} is out of bounds"


def test_classifier_missing_label_keyword():
    x, t = _batch()
    with pytest.raises(ValueError) as info:
        Classifier(Affine(), label_key="t")(x, label=t)
    assert str(info.value) == 'Label key "t" is not found'


def test_classifier_clears_the_previous_results_before_predicting():
    x, t = _batch()

    class Failing(chainer.Link):
        fail = False

        def forward(self, x):
            if self.fail:
                raise RuntimeError("predictor failed")
            return chainer.Variable(x)

    predictor = Failing()
    model = Classifier(predictor)
    model(x[:, :3], t % 3)
    assert model.y is not None and model.accuracy is not None
    predictor.fail = True
    with pytest.raises(RuntimeError):
        model(x[:, :3], t % 3)
    assert model.y is None and model.loss is None and model.accuracy is None


def test_classifier_label_errors_leave_the_previous_results():
    x, t = _batch()
    model = Classifier(Affine())
    model(x, t)
    previous = model.loss
    with pytest.raises(ValueError):
        model()  # no positional argument to take the labels from
    assert model.loss is previous


def test_classifier_passes_a_custom_loss_and_accuracy_the_prediction_and_labels():
    x, t = _batch()
    calls = []

    def lossfun(y, labels):
        calls.append(("loss", labels))
        return F.sum(y)

    def accfun(y, labels):
        calls.append(("accuracy", labels))
        return F.mean(y)

    model = Classifier(Affine(), lossfun=lossfun, accfun=accfun)
    loss = model(x, t)
    assert [name for name, _ in calls] == ["loss", "accuracy"]
    assert all(labels is t for _, labels in calls)
    numpy.testing.assert_allclose(loss.array, model.y.array.sum(), rtol=1e-6)
