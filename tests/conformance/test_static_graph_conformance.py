"""Static chains train as on Chainer 7.8.1 (NOTE [static chains run define-by-run]).

A chain whose ``__call__`` is marked ``@static_graph`` trains, under ``Adam``, to Chainer's
losses bit for bit: with static graphs on or off when the chain is made of stateless,
non-random functions, and to Chainer's define-by-run losses (``use_static_graph`` False) when
it uses dropout, whose mask Chainer's schedule would replay, or batch normalization, whose
running statistics Chainer's schedule-building call updates twice. Runs where the Chainer
7.8.1 interpreter is set up.
"""

from __future__ import annotations

import sys

import pytest

from tests.chainer_interpreter import CHAINER_PYTHON, last_json_line, require_both_interpreters

SCRIPT = r"""
import json, sys
import numpy
library = sys.argv[1]
if library == "chainer_compat":
    import chainer_compat
    chainer_compat.install_as_chainer()
import chainer
import chainer.functions as F
import chainer.links as L
from chainer import static_code, static_graph


class MLP(chainer.Chain):
    def __init__(self, variant):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(20, 30)
            self.l2 = L.Linear(30, 30)
            self.l3 = L.Linear(30, 5)
            if variant == "batchnorm":
                self.bn = L.BatchNormalization(30)
        self.variant = variant
        self.side_effects = 0

    @static_code
    def count(self):
        self.side_effects += 1

    @static_graph
    def __call__(self, x):
        self.count()
        h = F.relu(self.l1(x))
        if self.variant == "dropout":
            h = F.dropout(h, 0.3)
        elif self.variant == "batchnorm":
            h = self.bn(h)
        return self.l3(F.relu(self.l2(h)))


def losses(variant, static):
    numpy.random.seed(0)
    model = L.Classifier(MLP(variant))
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)
    rng = numpy.random.RandomState(1)
    x = rng.randn(16, 20).astype(numpy.float32)
    t = rng.randint(0, 5, 16).astype(numpy.int32)
    result = []
    with chainer.using_config("use_static_graph", static):
        for _ in range(4):
            loss = model(x, t)
            model.cleargrads()
            loss.backward()
            optimizer.update()
            result.append(float(loss.array))
        with chainer.using_config("train", False):
            result.append(float(model(x, t).array))
    return result


print(json.dumps({f"{variant}-{static}": losses(variant, static)
                  for variant in ("plain", "dropout", "batchnorm")
                  for static in (False, True)}))
"""


def _losses(python, library):
    return last_json_line(python, ["-c", SCRIPT, library])


@pytest.fixture(scope="module")
def both():
    require_both_interpreters()
    return _losses(sys.executable, "chainer_compat"), _losses(CHAINER_PYTHON, "chainer")


@pytest.mark.parametrize("static", [False, True])
def test_a_static_chain_of_stateless_functions_trains_to_chainers_losses(both, static):
    ours, chainers = both
    assert ours[f"plain-{static}"] == chainers[f"plain-{static}"]
    assert len(set(ours[f"plain-{static}"])) == 5  # the steps change the model


@pytest.mark.parametrize("variant", ["dropout", "batchnorm"])
def test_a_static_chain_with_dropout_or_batchnorm_trains_to_chainers_define_by_run_losses(
        both, variant):
    ours, chainers = both
    assert ours[f"{variant}-True"] == ours[f"{variant}-False"] == chainers[f"{variant}-False"]
    # Chainer's schedule replays the first dropout mask, or updates batch normalization's
    # statistics twice on the call that builds it, so its static run differs.
    assert chainers[f"{variant}-True"] != chainers[f"{variant}-False"]
