"""Objects pickled by Chainer 7.8.1 for tests/unit/test_chainer_pickles.py: how each is built,
and the probe that uses it after a load (a forward, an optimizer step, the next batches).

Imports ``chainer``: the real one when make.py writes the pickles, chainer_compat's alias when
the test reads them, so it names only what both provide.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainer
import chainer.distributions as D  # noqa: N812 - Chainer's conventional aliases
import chainer.functions as F  # noqa: N812
import chainer.initializers as I  # noqa: N812
import chainer.links as L  # noqa: N812
import numpy
from chainer import datasets, iterators, link_hooks, optimizer_hooks, optimizers

Probe = Callable[[Any], list[Any]]


def uniform(*shape: int) -> numpy.ndarray:
    """Values in [0.2, 0.8), the same for a shape wherever they are made."""
    return numpy.random.RandomState(sum(shape) + 7).uniform(0.2, 0.8, shape).astype(numpy.float32)


def ones(*shape: int) -> numpy.ndarray:
    return numpy.ones(shape, numpy.float32)


def zeros(*shape: int) -> numpy.ndarray:
    return numpy.zeros(shape, numpy.float32)


def array_of(value: Any) -> numpy.ndarray:
    return numpy.asarray(value.array if isinstance(value, chainer.Variable) else value)


def double(example: Any) -> Any:
    """A TransformDataset's transform: module-level, so that it pickles by name."""
    return tuple(2 * value for value in example)


class Net(chainer.Chain):
    """Links whose state pickles in different ways: lazy, stateful, nested, persistent."""

    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(1, 2, 3, pad=1, nobias=True)  # BN cancels a bias
            self.norm = L.BatchNormalization(2)
            self.linear = L.Linear(None, 4)
            self.lstm = L.LSTM(4, 3)
            self.embed = L.EmbedID(5, 3)
            self.stack = chainer.ChainList(L.Linear(3, 3), L.Linear(3, 2))
            self.sequence = chainer.Sequential(L.Linear(2, 3), F.tanh)
            self.rnn = L.NStepLSTM(1, 2, 3, 0.0)

    def forward(self, x: Any, ids: Any, xs: list[Any]) -> Any:
        h = F.relu(self.norm(self.conv(x)))
        h = self.lstm(self.linear(h)) + self.embed(ids)
        h = self.sequence(self.stack[1](self.stack[0](h)))
        _, _, ys = self.rnn(None, None, xs)
        return F.sum(h) + sum(F.sum(y) for y in ys)


def net_inputs() -> tuple[Any, ...]:
    return uniform(2, 1, 4, 4), numpy.array([1, 3], numpy.int32), [uniform(3, 2), uniform(2, 2)]


def trained(optimizer: Any) -> Any:
    """An optimizer set up on a Net with hooks, one step taken (its state exists)."""
    numpy.random.seed(0)
    model = Net()
    optimizer.setup(model)
    optimizer.add_hook(optimizer_hooks.WeightDecay(1e-4))
    optimizer.add_hook(optimizer_hooks.GradientClipping(1.0))
    model.cleargrads()
    model(*net_inputs()).backward()
    optimizer.update()
    return optimizer


def train_step(optimizer: Any) -> list[Any]:
    """One more step from the pickled state: the loss and every parameter after it."""
    model = optimizer.target
    model.cleargrads()
    loss = model(*net_inputs())
    loss.backward()
    optimizer.update()
    return [array_of(loss)] + [array_of(param) for _, param in sorted(model.namedparams())]


def forward(*inputs: Any, train: bool = False) -> Probe:
    def probe(link: Any) -> list[Any]:
        with chainer.using_config("train", train):
            return [array_of(link(*inputs))]
    return probe


def distribution(x: Any, mean: bool = True) -> Probe:
    def probe(dist: Any) -> list[Any]:
        return [array_of(dist.log_prob(x))] + ([array_of(dist.mean)] if mean else [])
    return probe


def next_batches(count: int) -> Probe:
    def probe(iterator: Any) -> list[Any]:
        batches = [numpy.asarray(iterator.next()) for _ in range(count)]
        return batches + [numpy.asarray(iterator.epoch_detail)]
    return probe


def stateful_lstm() -> Any:
    link = L.LSTM(2, 3)
    link(uniform(1, 2))  # the state (c, h) is set when pickled
    return link


def spectral_normalized() -> Any:
    link = L.Linear(2, 3).add_hook(link_hooks.SpectralNormalization())
    link(uniform(1, 2))
    return link


def serial_iterator() -> Any:
    order = iterators.ShuffleOrderSampler(numpy.random.RandomState(4))
    iterator = iterators.SerialIterator(datasets.TupleDataset(numpy.arange(7)), 3,
                                        order_sampler=order)
    iterator.next()
    return iterator


def summary() -> Any:
    dict_summary = chainer.reporter.DictSummary()
    dict_summary.add({"a": 1.0, "b": numpy.float32(2.0)})
    dict_summary.add({"a": 3.0})
    return dict_summary


def initialized(name: str, *args: Any) -> tuple[Callable[[], Any], Probe]:
    def probe(initializer: Any) -> list[Any]:
        numpy.random.seed(3)
        array = numpy.empty((3, 3), numpy.float32)
        initializer(array)
        return [array]
    return (lambda: getattr(I, name)(*args)), probe


def tree() -> Any:
    return L.BinaryHierarchicalSoftmax.create_huffman_tree({0: 1, 1: 2, 2: 3})


SPECS: dict[str, tuple[Callable[[], Any], Probe]] = {
    # a model with an optimizer: the pickle holds both, sharing the parameters
    "Adam": (lambda: trained(optimizers.Adam()), train_step),
    "MomentumSGD": (lambda: trained(optimizers.MomentumSGD()), train_step),
    # (eps bounds how much RMSprop magnifies a near-zero gradient's last bits, which differ
    # with the BLAS kernel the CPU picks: with the default 1e-8, by up to 1e6)
    "RMSprop": (lambda: trained(optimizers.RMSprop(eps=1e-4)), train_step),
    # variables, parameters and links
    "Variable": (lambda: chainer.Variable(numpy.arange(3, dtype=numpy.float32), name="v"),
                 lambda v: [array_of(v * 2), numpy.asarray(v.name == "v")]),
    "Parameter, lazy": (lambda: chainer.Parameter(I.Constant(2.0), name="p"),
                        lambda p: (p.initialize((2,)), [array_of(p)])[1]),
    "Linear, lazy": (lambda: L.Linear(None, 4), forward(ones(1, 3))),
    "LSTM with state": (stateful_lstm, forward(uniform(1, 2))),
    "SpectralNormalization hook": (spectral_normalized, forward(uniform(1, 2))),
    "BatchRenormalization": (lambda: L.BatchRenormalization(3), forward(uniform(4, 3))),
    "BinaryHierarchicalSoftmax": (
        lambda: L.BinaryHierarchicalSoftmax(3, tree()),
        forward(uniform(2, 3), numpy.array([0, 2], numpy.int32))),
    "Classifier": (lambda: L.Classifier(L.Linear(2, 3)),
                   forward(uniform(2, 2), numpy.array([0, 1], numpy.int32))),
    # iterators, datasets, reports
    "SerialIterator": (serial_iterator, next_batches(3)),
    "SubDataset": (lambda: datasets.split_dataset_random(
        datasets.TupleDataset(numpy.arange(6), numpy.arange(6) * 2), 4, seed=3)[0],
        lambda data: [numpy.asarray(data[index]) for index in range(len(data))]),
    "TransformDataset": (lambda: datasets.TransformDataset(
        datasets.TupleDataset(numpy.arange(4)), double),
        lambda data: [numpy.asarray(data[index]) for index in range(len(data))]),
    "DictDataset": (lambda: datasets.DictDataset(a=numpy.arange(3), b=numpy.arange(3) + 1),
                    lambda data: [numpy.asarray([data[1]["a"], data[1]["b"]])]),
    "DictSummary": (summary, lambda report: [
        numpy.asarray(float(value)) for _, value in sorted(report.compute_mean().items())]),
    # distributions: each keeps its parameters in attributes of its own
    "Bernoulli": (lambda: D.Bernoulli(uniform(2)), distribution(numpy.array([0, 1], numpy.int32))),
    "Beta": (lambda: D.Beta(ones(2) * 2, ones(2) * 3), distribution(uniform(2))),
    "Categorical": (lambda: D.Categorical(uniform(2, 3)),
                    distribution(numpy.array([0, 2], numpy.int32), mean=False)),
    "Cauchy": (lambda: D.Cauchy(zeros(2), ones(2)), distribution(uniform(2), mean=False)),
    "Chisquare": (lambda: D.Chisquare(ones(2) * 3), distribution(uniform(2))),
    "Dirichlet": (lambda: D.Dirichlet(ones(2, 3) * 2),
                  distribution(numpy.full((2, 3), 1 / 3, numpy.float32))),
    "Exponential": (lambda: D.Exponential(ones(2)), distribution(uniform(2))),
    "Gamma": (lambda: D.Gamma(ones(2) * 2, ones(2)), distribution(uniform(2))),
    "Geometric": (lambda: D.Geometric(uniform(2)), distribution(numpy.array([1, 3], numpy.int32))),
    "Gumbel": (lambda: D.Gumbel(zeros(2), ones(2)), distribution(uniform(2))),
    "Laplace": (lambda: D.Laplace(zeros(2), ones(2)), distribution(uniform(2))),
    "LogNormal": (lambda: D.LogNormal(zeros(2), ones(2)), distribution(uniform(2))),
    "MultivariateNormal": (
        lambda: D.MultivariateNormal(zeros(2), scale_tril=numpy.eye(2, dtype=numpy.float32)),
        distribution(uniform(2))),
    "Normal": (lambda: D.Normal(uniform(2), ones(2)), distribution(uniform(2))),
    "Normal, log_scale": (lambda: D.Normal(uniform(2), log_scale=zeros(2)),
                          distribution(uniform(2))),
    "OneHotCategorical": (lambda: D.OneHotCategorical(uniform(2, 3)),
                          distribution(numpy.eye(3, dtype=numpy.float32)[[0, 2]])),
    "Pareto": (lambda: D.Pareto(ones(2), ones(2) * 3), distribution(ones(2) * 2)),
    "Poisson": (lambda: D.Poisson(ones(2)), distribution(numpy.array([1, 2], numpy.int32))),
    "Uniform": (lambda: D.Uniform(low=zeros(2), high=ones(2)), distribution(uniform(2))),
    # initializers
    "LeCunNormal": initialized("LeCunNormal"),
    "Orthogonal": initialized("Orthogonal"),
    "Constant": initialized("Constant", 2.0),
}
