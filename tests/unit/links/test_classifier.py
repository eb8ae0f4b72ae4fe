"""Tests for chainer_compat.links.model.classifier: label selection, the attributes kept per
call, reports inside a Reporter scope, gradients, serialization and CuPy."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
import chainer_compat.functions as F
from chainer_compat import reporter as reporter_module
from chainer_compat import serializers
from chainer_compat.links.model.classifier import Classifier


class Affine(chainer.Link):
    """y = x W^T with a fixed W."""

    def __init__(self, in_size: int = 3, out_size: int = 4) -> None:
        super().__init__()
        weights = numpy.linspace(-1, 1, in_size * out_size).reshape(out_size, in_size)
        with self.init_scope():
            self.W = chainer.Parameter(weights.astype(numpy.float32))

    def forward(self, x):
        return F.matmul(x, self.W, transb=True)


class Recorder(chainer.Link):
    """Returns its first argument as a Variable and remembers every argument it got."""

    def forward(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs
        return chainer.Variable(args[0])


def _batch(rows: int = 6):
    rng = numpy.random.default_rng(5)
    x = rng.normal(size=(rows, 3)).astype(numpy.float32)
    t = rng.integers(0, 3, size=rows).astype(numpy.int32)  # fits Recorder's 3 columns too
    return x, t


def _softmax(y):
    e = numpy.exp(y - y.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_label_key_type_error_keeps_chainers_wording():
    with pytest.raises(TypeError, match=r"^label_key must be int or str, but is <class 'float'>$"):
        Classifier(Affine(), label_key=0.0)


def test_label_key_replaced_after_construction_is_a_type_error_at_call():
    x, t = _batch()
    model = Classifier(Affine())
    model.label_key = 1.0
    with pytest.raises(TypeError, match="label_key must be int or str"):
        model(x, t)


def test_bool_label_key_is_an_index_as_in_chainer():
    x, t = _batch()
    predictor = Recorder()
    model = Classifier(predictor, label_key=True)
    model(x, t)
    assert predictor.args == (x,)


@pytest.mark.parametrize("label_key, features", [(0, (1, 2)), (1, (0, 2)), (-2, (0, 2)),
                                                 (-3, (1, 2)), (2, (0, 1))])
def test_positional_label_key_removes_exactly_the_labels(label_key, features):
    x, t = _batch()
    arguments = [x, x + 1, x + 2]
    arguments[label_key] = t
    predictor = Recorder()
    model = Classifier(predictor, label_key=label_key, lossfun=lambda y, t: F.sum(y),
                       accfun=lambda y, t: t)
    model(*arguments)
    assert len(predictor.args) == 2
    for got, index in zip(predictor.args, features):
        assert got is arguments[index]
    assert model.accuracy is t


def test_keyword_label_key_leaves_the_callers_dict_and_other_keywords():
    x, t = _batch()
    predictor = Recorder()
    model = Classifier(predictor, label_key="labels")
    keywords = {"labels": t, "mask": None}
    model(x, **keywords)
    assert predictor.kwargs == {"mask": None}
    assert set(keywords) == {"labels", "mask"}


def test_out_of_bounds_message_with_no_arguments():
    with pytest.raises(ValueError, match=r"^Label key -1 is out of bounds$"):
        Classifier(Affine())()


def test_loss_accuracy_and_gradient_match_numpy():
    x, t = _batch()
    model = Classifier(Affine())
    loss = model(x, t)
    W = model.predictor.W.array.astype(numpy.float64)
    y = x.astype(numpy.float64) @ W.T
    probabilities = _softmax(y)
    rows = numpy.arange(len(t))
    numpy.testing.assert_allclose(loss.array, -numpy.log(probabilities[rows, t]).mean(),
                                  rtol=1e-5)
    numpy.testing.assert_allclose(model.accuracy.array, (y.argmax(axis=1) == t).mean())
    loss.backward()
    one_hot = numpy.eye(4)[t]
    expected_grad = (probabilities - one_hot).T @ x.astype(numpy.float64) / len(t)
    numpy.testing.assert_allclose(model.predictor.W.grad, expected_grad, rtol=1e-4, atol=1e-6)


def test_attributes_hold_the_last_call_only():
    x, t = _batch()
    model = Classifier(Affine())
    first_loss = model(x, t)
    second_loss = model(x[:3], t[:3])
    assert model.loss is second_loss and second_loss is not first_loss
    assert model.y.shape == (3, 4)


def test_compute_accuracy_class_attribute_switches_every_instance(monkeypatch):
    x, t = _batch()
    monkeypatch.setattr(Classifier, "compute_accuracy", False)
    model = Classifier(Affine())
    observation = {}
    reporter = reporter_module.Reporter()
    reporter.add_observer("main", model)
    with reporter.scope(observation):
        model(x, t)
    assert model.accuracy is None
    assert list(observation) == ["main/loss"]


def test_reports_inside_a_reporter_scope_share_the_arrays():
    x, t = _batch()
    model = Classifier(Affine())
    reporter = reporter_module.Reporter()
    reporter.add_observer("main", model)
    observation = {}
    with reporter.scope(observation):
        loss = model(x, t)
    assert observation["main/loss"].array is loss.array
    assert observation["main/loss"].creator is None
    assert observation["main/accuracy"].array is model.accuracy.array


def test_reports_keep_the_graph_when_configured():
    x, t = _batch()
    model = Classifier(Affine())
    reporter = reporter_module.Reporter()
    reporter.add_observer("main", model)
    observation = {}
    with chainer.using_config("keep_graph_on_report", True), reporter.scope(observation):
        loss = model(x, t)
    assert observation["main/loss"] is loss
    assert observation["main/accuracy"] is model.accuracy


def test_reports_summarized_over_batches_match_numpy():
    x, t = _batch(12)
    model = Classifier(Affine())
    reporter = reporter_module.Reporter()
    reporter.add_observer("main", model)
    summary = reporter_module.DictSummary()
    losses = []
    for start in range(0, 12, 4):
        observation = {}
        with reporter.scope(observation):
            losses.append(float(model(x[start:start + 4], t[start:start + 4]).array))
        summary.add(observation)
    statistics = summary.make_statistics()
    numpy.testing.assert_allclose(statistics["main/loss"], numpy.mean(losses), rtol=1e-6)
    numpy.testing.assert_allclose(statistics["main/loss.std"], numpy.std(losses), rtol=1e-4)


def test_saves_the_predictor_under_its_name():
    model = Classifier(Affine())
    target = serializers.DictionarySerializer()
    target.save(model)
    assert list(target.target) == ["predictor/W"]


def test_works_with_linear_as_the_predictor():
    from chainer_compat.links.connection.linear import Linear

    x, t = _batch()
    model = Classifier(Linear(3, 4))
    loss = model(x, t)
    loss.backward()
    assert model.predictor.W.grad.shape == (4, 3)
    assert sorted(name for name, _ in model.namedparams()) == ["/predictor/W", "/predictor/b"]


@pytest.mark.gpu
def test_classifier_on_cupy_reports_device_values(cupy):
    x, t = _batch()
    model = Classifier(Affine())
    model.to_device("@cupy:0")
    reporter = reporter_module.Reporter()
    reporter.add_observer("main", model)
    observation = {}
    with reporter.scope(observation):
        loss = model(cupy.asarray(x), cupy.asarray(t))
    assert isinstance(loss.array, cupy.ndarray)
    assert isinstance(observation["main/accuracy"].array, cupy.ndarray)
    summary = reporter_module.DictSummary()
    summary.add(observation)
    assert isinstance(summary.compute_mean()["main/loss"], cupy.ndarray)
    numpy.testing.assert_allclose(float(summary.compute_mean()["main/loss"]),
                                  float(loss.array), rtol=1e-6)
