"""Train steps of small models written against Chainer's API, in chainer_compat and Chainer 7.8.1.

The workloads of ``run.py`` isolate the autograd core; these are whole models, where the array
work of convolutions, poolings, normalizations and activations decides the time. Each model is
one piece of code run unchanged by both libraries (chainer_compat through
``install_as_chainer``), in separate processes that alternate round by round. Before timing,
both take three train steps from the same parameters and the same global random state (so the
same dropout masks) and then compute the loss in test mode; the four losses must agree, so a
fast wrong answer fails.

    python benchmarks/models.py                        # chainer_compat alone, 3 rounds
    python benchmarks/models.py --chainer-python /tmp/chvenv/bin/python -r 5
    python benchmarks/models.py cnn gan                # some models

Not a test: it reports numbers. Exit status 1 when the losses disagree (relative 1e-5).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # as run.py: one core, so neighbours do not count

import numpy  # noqa: E402

MODELS = ("cnn", "gan", "lstm", "mlp")
STEPS = {"cnn": 8, "gan": 8, "lstm": 8, "mlp": 60}


# ------------------------------------------------------------------ the worker: one library
def _build(name: str, chainer: Any) -> tuple[Any, Any, Any]:
    """``(model, optimizer, loss_of_batch)`` for one model, with its batch."""
    F, L = chainer.functions, chainer.links
    rng = numpy.random.RandomState(0)
    if name == "cnn":
        class CNN(chainer.Chain):
            def __init__(self) -> None:
                super().__init__()
                with self.init_scope():
                    self.c1 = L.Convolution2D(3, 32, 3, pad=1)
                    self.b1 = L.BatchNormalization(32)
                    self.c2 = L.Convolution2D(32, 64, 3, pad=1)
                    self.b2 = L.BatchNormalization(64)
                    self.c3 = L.Convolution2D(64, 64, 3, pad=1)
                    self.l1 = L.Linear(64 * 4 * 4, 128)
                    self.l2 = L.Linear(128, 10)

            def __call__(self, x: Any) -> Any:
                h = F.max_pooling_2d(F.relu(self.b1(self.c1(x))), 2)
                h = F.max_pooling_2d(F.relu(self.b2(self.c2(h))), 2)
                h = F.average_pooling_2d(F.relu(self.c3(h)), 2)
                return self.l2(F.dropout(F.relu(self.l1(h)), 0.5))

        model: Any = CNN()
        x = rng.randn(64, 3, 32, 32).astype(numpy.float32)
        t = rng.randint(0, 10, 64).astype(numpy.int32)
        optimizer = chainer.optimizers.MomentumSGD(0.01)
        return model, optimizer, lambda: F.softmax_cross_entropy(model(x), t)
    if name == "gan":
        class Discriminator(chainer.Chain):
            """DCGAN's discriminator on 32 x 32 images."""

            def __init__(self) -> None:
                super().__init__()
                with self.init_scope():
                    self.c0 = L.Convolution2D(3, 64, 4, stride=2, pad=1)
                    self.c1 = L.Convolution2D(64, 128, 4, stride=2, pad=1)
                    self.b1 = L.BatchNormalization(128)
                    self.c2 = L.Convolution2D(128, 256, 4, stride=2, pad=1)
                    self.b2 = L.BatchNormalization(256)
                    self.l3 = L.Linear(256 * 4 * 4, 1)

            def __call__(self, x: Any) -> Any:
                h = F.leaky_relu(self.c0(x))
                h = F.leaky_relu(self.b1(self.c1(h)))
                h = F.leaky_relu(self.b2(self.c2(h)))
                return self.l3(h)

        model = Discriminator()
        x = rng.randn(32, 3, 32, 32).astype(numpy.float32)
        optimizer = chainer.optimizers.Adam(alpha=0.0002, beta1=0.5)
        return model, optimizer, lambda: F.sum(F.softplus(-model(x))) / 32
    if name == "lstm":
        class LanguageModel(chainer.Chain):
            def __init__(self) -> None:
                super().__init__()
                with self.init_scope():
                    self.embed = L.EmbedID(1000, 128)
                    self.lstm = L.LSTM(128, 128)
                    self.out = L.Linear(128, 1000)

            def __call__(self, words: list[Any]) -> Any:
                self.lstm.reset_state()
                loss = 0
                for word, following in zip(words[:-1], words[1:]):
                    h = self.lstm(F.dropout(self.embed(word), 0.1))
                    loss += F.softmax_cross_entropy(self.out(h), following)
                return loss

        model = LanguageModel()
        words = [rng.randint(0, 1000, 32).astype(numpy.int32) for _ in range(36)]
        return model, chainer.optimizers.Adam(), lambda: model(words)
    model = L.Classifier(chainer.Sequential(
        L.Linear(784, 100), F.relu, L.Linear(100, 100), F.relu, L.Linear(100, 10)))
    x = rng.randn(100, 784).astype(numpy.float32)
    t = rng.randint(0, 10, 100).astype(numpy.int32)
    return model, chainer.optimizers.Adam(), lambda: model(x, t)


def _set_parameters(model: Any, rng: Any = None, spread: float = 0.1) -> None:
    """The same parameters in either library: drawn uniformly in ``[-spread, spread)`` from
    ``rng`` (a ``RandomState(1)`` by default), in the order of their sorted names."""
    rng = numpy.random.RandomState(1) if rng is None else rng
    for _, param in sorted(model.namedparams()):
        param.array[...] = rng.uniform(-spread, spread, param.shape).astype(param.dtype)


def worker(library: str, names: list[str]) -> dict[str, Any]:
    """Runs in the measured interpreter; returns ``{model: {"losses": [...], "ms": [...]}}``."""
    if library == "chainer_compat":
        import chainer_compat

        chainer_compat.install_as_chainer()
    import chainer  # type: ignore[import-not-found]  # chainer_compat's alias, or Chainer

    figures: dict[str, Any] = {}
    for name in names:
        model, optimizer, loss_of_batch = _build(name, chainer)
        optimizer.setup(model)
        _set_parameters(model)
        # Three train steps from the same parameters and the same global random state (which
        # the dropouts draw from, in either library), then the loss in test mode.
        numpy.random.seed(5)
        losses = [_train_step(model, optimizer, loss_of_batch) for _ in range(3)]
        with chainer.using_config("train", False):
            losses.append(float(loss_of_batch().array))
        times = []
        for _ in range(STEPS[name]):
            start = time.process_time()
            _train_step(model, optimizer, loss_of_batch)
            times.append((time.process_time() - start) * 1e3)
        figures[name] = {"losses": losses, "ms": times}
    return figures


def _train_step(model: Any, optimizer: Any, loss_of_batch: Any) -> float:
    loss = loss_of_batch()
    model.cleargrads()
    loss.backward()
    optimizer.update()
    return float(loss.array)


# ------------------------------------------------------------------ the driver: rounds, report
def _run_worker(python: str, library: str, names: list[str]) -> dict[str, Any]:
    output = subprocess.run(
        [python, str(Path(__file__).resolve()), "--worker", library, *names],
        check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(output.splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", choices=[[], *MODELS], default=[],
                        help=f"models to run (default: all of {', '.join(MODELS)})")
    parser.add_argument("-r", "--rounds", type=int, default=3)
    parser.add_argument("--chainer-python", default=os.environ.get("BENCH_CHAINER_PYTHON"),
                        help="an interpreter with Chainer 7.8.1 (see benchmarks/README.md)")
    parser.add_argument("--worker", choices=["chainer_compat", "chainer"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    names = list(args.models) or list(MODELS)
    if args.worker:
        print(json.dumps(worker(args.worker, names)))
        return 0
    sides = [("chainer_compat", sys.executable)]
    if args.chainer_python:
        sides.append(("chainer", args.chainer_python))
    per_step: dict[tuple[str, str], list[float]] = {}
    losses: dict[tuple[str, str], list[float]] = {}
    for round_index in range(args.rounds):
        order = sides if round_index % 2 == 0 else sides[::-1]
        for library, python in order:
            for name, figures in _run_worker(python, library, names).items():
                per_step.setdefault((library, name), []).append(statistics.median(figures["ms"]))
                losses[library, name] = figures["losses"]
    print(f"ms per train step, medians of {args.rounds} rounds (each the median of its steps); "
          f"numpy {numpy.__version__}, python {sys.version.split()[0]}")
    print(f"{'model':6s} {'chainer_compat':>16s} {'Chainer 7.8.1':>16s} {'speed-up':>9s}")
    failed = False
    for name in names:
        ours = statistics.median(per_step["chainer_compat", name])
        line = f"{name:6s} {ours:16.2f}"
        if len(sides) > 1:
            theirs = statistics.median(per_step["chainer", name])
            line += f" {theirs:16.2f} {theirs / ours:8.2f}x"
            ours_losses, their_losses = losses["chainer_compat", name], losses["chainer", name]
            # The same arithmetic, but BLAS libraries may add in other orders.
            if not numpy.allclose(ours_losses, their_losses, rtol=1e-5, atol=0):
                line += f"   LOSSES DISAGREE: {ours_losses} against {their_losses}"
                failed = True
        print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
