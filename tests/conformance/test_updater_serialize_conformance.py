"""Chainer-visible behaviour of ``StandardUpdater.serialize`` with a hand-written serializer:
the keys it visits, in order, and that a serializer returning nothing is accepted. Checked
against Chainer 7.8.1; set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
iterators = importlib.import_module(chainer.__name__ + ".iterators")
optimizers = importlib.import_module(chainer.__name__ + ".optimizers")
training = importlib.import_module(chainer.__name__ + ".training")


class _RecordingSerializer(chainer.Serializer):
    """Records every ``(path, key)`` it is asked for and, like many test doubles, returns None."""

    def __init__(self, path: tuple[str, ...] = (), calls: list | None = None) -> None:
        self.path = path
        self.calls = [] if calls is None else calls

    def __getitem__(self, key):
        return _RecordingSerializer(self.path + (key,), self.calls)

    def __call__(self, key, value):
        self.calls.append(("/".join(self.path + (key,)), value))


def _updater():
    model = chainer.Link()
    with model.init_scope():
        model.w = chainer.Parameter(numpy.zeros(2, numpy.float32))
    optimizer = optimizers.SGD()
    optimizer.setup(model)
    dataset = [numpy.ones(2, numpy.float32)] * 4
    iterator = iterators.SerialIterator(dataset, 2, shuffle=False)
    return training.updaters.StandardUpdater(iterator, optimizer)


def test_serialize_accepts_a_serializer_that_returns_none():
    updater = _updater()
    serializer = _RecordingSerializer()
    updater.serialize(serializer)
    top_level = [call for call in serializer.calls if "/" not in call[0]]
    assert top_level == [("iteration", 0)]


def test_serialize_visits_iterator_optimizer_and_model_before_iteration():
    updater = _updater()
    serializer = _RecordingSerializer()
    updater.serialize(serializer)
    prefixes = [key.split("/")[0] for key, _ in serializer.calls]
    first_seen = list(dict.fromkeys(prefixes))
    assert first_seen == ["iterator:main", "optimizer:main", "model:main", "iteration"]
    assert "model:main/w" in [key for key, _ in serializer.calls]
