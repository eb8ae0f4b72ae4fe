"""On CuPy, links compute what they compute on NumPy: outputs, gradients and updated state.

Each row builds a link in float64, copies it, moves one copy to the GPU, and calls both in
training mode on the same inputs (stateful links twice, so the carried state is used). The
outputs, the gradients of the parameters and of the inputs (for seeded output gradients), and
every serialized value afterwards (parameters and persistent values such as running averages)
must agree. Links that draw random numbers in forward are left out: NumPy and CuPy draw
different ones.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy
import pytest

import chainer_compat
import chainer_compat.functions as F
import chainer_compat.links as L
from chainer_compat import initializers, serializers


def _normal(*shape: int) -> Callable[[numpy.random.Generator], numpy.ndarray]:
    return lambda rng: rng.standard_normal(shape)


def _labels(high: int, *shape: int) -> Callable[[numpy.random.Generator], numpy.ndarray]:
    return lambda rng: rng.integers(0, high, shape).astype(numpy.int32)


def _call(link: Any, *xs: Any) -> Any:
    return link(*xs)


def _twice(link: Any, a: Any, b: Any) -> Any:
    return link(a), link(b)


@dataclass(frozen=True)
class Row:
    make: Callable[[], Any]
    makers: tuple[Callable[[numpy.random.Generator], Any], ...]
    call: Callable[..., Any] = _call


def _huffman_softmax() -> Any:
    tree = L.BinaryHierarchicalSoftmax.create_huffman_tree({0: 4, 1: 3, 2: 2, 3: 1})
    return L.BinaryHierarchicalSoftmax(3, tree)


def _deformable() -> Any:
    # Random weights everywhere: the defaults start from zero offsets (and a zero deformable
    # kernel in Chainer's), which would leave the sampler's values and gradients at zero.
    normal = initializers.Normal(0.5)
    return L.DeformableConvolution2D(2, 3, 3, pad=1, offset_initialW=normal,
                                     offset_initial_bias=normal, deform_initialW=normal,
                                     deform_initial_bias=normal)


ROWS: dict[str, Row] = {
    "Linear": Row(lambda: L.Linear(3, 4), (_normal(2, 3),)),
    "Convolution1D": Row(lambda: L.Convolution1D(2, 3, 3, pad=1), (_normal(2, 2, 7),)),
    "Convolution2D": Row(lambda: L.Convolution2D(2, 3, 3, stride=2, pad=1),
                         (_normal(2, 2, 7, 6),)),
    "Convolution3D": Row(lambda: L.Convolution3D(2, 3, 2), (_normal(2, 2, 4, 4, 4),)),
    "Deconvolution1D": Row(lambda: L.Deconvolution1D(2, 3, 3, stride=2), (_normal(2, 2, 4),)),
    "Deconvolution2D": Row(lambda: L.Deconvolution2D(2, 3, 3, stride=2, pad=1),
                           (_normal(2, 2, 4, 5),)),
    "DeconvolutionND": Row(lambda: L.DeconvolutionND(3, 2, 2, 2), (_normal(1, 2, 3, 3, 3),)),
    "DilatedConvolution2D": Row(lambda: L.DilatedConvolution2D(2, 3, 3, pad=2, dilate=2),
                                (_normal(2, 2, 7, 7),)),
    "DepthwiseConvolution2D": Row(lambda: L.DepthwiseConvolution2D(2, 2, 3),
                                  (_normal(2, 2, 6, 6),)),
    "LocalConvolution2D": Row(lambda: L.LocalConvolution2D(2, 3, in_size=(5, 5), ksize=3),
                              (_normal(2, 2, 5, 5),)),
    "DeformableConvolution2D": Row(_deformable, (_normal(2, 2, 5, 5),)),
    "Bilinear": Row(lambda: L.Bilinear(3, 4, 2), (_normal(2, 3), _normal(2, 4))),
    "EmbedID": Row(lambda: L.EmbedID(5, 3, ignore_label=-1),
                   (lambda rng: numpy.array([0, 4, -1, 2, 4], numpy.int32),)),
    "Highway": Row(lambda: L.Highway(4), (_normal(2, 4),)),
    "Inception": Row(lambda: L.Inception(2, 2, 2, 2, 2, 2, 2), (_normal(2, 2, 6, 6),)),
    "InceptionBN": Row(lambda: L.InceptionBN(2, 2, 2, 2, 2, 2, "avg", 2),
                       (_normal(2, 2, 6, 6),)),
    "Maxout": Row(lambda: L.Maxout(3, 4, 2), (_normal(2, 3),)),
    "PReLU": Row(lambda: L.PReLU((3,)), (_normal(2, 3, 4),)),
    "Scale": Row(lambda: L.Scale(W_shape=(3,), bias_term=True), (_normal(2, 3, 4),)),
    "Bias": Row(lambda: L.Bias(shape=(3,)), (_normal(2, 3, 4),)),
    "BatchNormalization": Row(lambda: L.BatchNormalization(3), (_normal(5, 3),)),
    "BatchNormalization_4d": Row(lambda: L.BatchNormalization(3), (_normal(2, 3, 2, 2),)),
    "BatchRenormalization": Row(lambda: L.BatchRenormalization(3, rmax=2.0, dmax=1.0),
                                (_normal(5, 3),)),
    "GroupNormalization": Row(lambda: L.GroupNormalization(2, 4), (_normal(3, 4, 5),)),
    "LayerNormalization": Row(lambda: L.LayerNormalization(4), (_normal(3, 4),)),
    "DecorrelatedBatchNormalization": Row(
        lambda: L.DecorrelatedBatchNormalization(4, groups=2), (_normal(10, 4),)),
    "LSTM": Row(lambda: L.LSTM(3, 4), (_normal(2, 3), _normal(2, 3)), _twice),
    "StatelessLSTM": Row(lambda: L.StatelessLSTM(3, 4), (_normal(2, 4), _normal(2, 4),
                                                        _normal(2, 3))),
    "StatefulGRU": Row(lambda: L.StatefulGRU(3, 4), (_normal(2, 3), _normal(2, 3)), _twice),
    "StatelessGRU": Row(lambda: L.StatelessGRU(3, 4), (_normal(2, 4), _normal(2, 3))),
    "StatefulMGU": Row(lambda: L.StatefulMGU(3, 4), (_normal(2, 3), _normal(2, 3)), _twice),
    "StatelessMGU": Row(lambda: L.StatelessMGU(3, 4), (_normal(2, 4), _normal(2, 3))),
    "StatefulPeepholeLSTM": Row(lambda: L.StatefulPeepholeLSTM(3, 4),
                                (_normal(2, 3), _normal(2, 3)), _twice),
    "NStepLSTM": Row(lambda: L.NStepLSTM(2, 3, 4, 0.0), (_normal(3, 3), _normal(2, 3)),
                     lambda link, a, b: link(None, None, [a, b])),
    "NStepBiGRU": Row(lambda: L.NStepBiGRU(1, 3, 4, 0.0), (_normal(3, 3), _normal(2, 3)),
                      lambda link, a, b: link(None, [a, b])),
    "NStepRNNReLU": Row(lambda: L.NStepRNNReLU(1, 3, 4, 0.0), (_normal(3, 3), _normal(2, 3)),
                        lambda link, a, b: link(None, [a, b])),
    "CRF1d": Row(lambda: L.CRF1d(3), (_normal(2, 3), _normal(1, 3), _labels(3, 2),
                                      _labels(3, 1)),
                 lambda link, x0, x1, t0, t1: link([x0, x1], [t0, t1])),
    "Swish": Row(lambda: L.Swish((3,)), (_normal(2, 3),)),
    "ChildSumTreeLSTM": Row(lambda: L.ChildSumTreeLSTM(3, 4),
                            (_normal(2, 4), _normal(2, 4), _normal(2, 4), _normal(2, 4),
                             _normal(2, 3))),
    "NaryTreeLSTM": Row(lambda: L.NaryTreeLSTM(3, 4, n_ary=2),
                        (_normal(2, 4), _normal(2, 4), _normal(2, 4), _normal(2, 4),
                         _normal(2, 3))),
    "Classifier": Row(lambda: L.Classifier(L.Linear(3, 4)), (_normal(5, 3), _labels(4, 5))),
    "BinaryHierarchicalSoftmax": Row(_huffman_softmax, (_normal(2, 3), _labels(4, 2))),
}


def _host(array: Any) -> numpy.ndarray:
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _variables(result: Any) -> Iterator[Any]:
    if isinstance(result, chainer_compat.Variable):
        yield result
    elif isinstance(result, (tuple, list)):
        for item in result:
            yield from _variables(item)


def _state(link: Any) -> dict[str, numpy.ndarray]:
    serializer = serializers.DictionarySerializer()
    serializer.save(link)
    return {key: _host(value) for key, value in serializer.target.items()
            if value is not None}


def _run(xp: Any, link: Any, row: Row, inputs: list[Any], output_grads: list[Any] | None
         ) -> dict[str, Any]:
    args = []
    wrt = []
    for value in inputs:
        value = xp.asarray(value)
        if value.dtype.kind == "f":
            value = chainer_compat.Variable(value)
            wrt.append(value)
        args.append(value)
    # float64 throughout: a stateful link's zero state takes config.dtype, as in Chainer.
    with chainer_compat.using_config("train", True), \
            chainer_compat.using_config("dtype", numpy.float64):
        result = row.call(link, *args)
    outputs = [y for y in _variables(result) if y.dtype.kind == "f"]
    found = {"outputs": [_host(y.array) for y in outputs], "shapes": [y.shape for y in outputs]}
    if output_grads is not None:
        loss = sum(F.sum(y * xp.asarray(g)) for y, g in zip(outputs, output_grads))
        link.cleargrads()
        loss.backward()
        found["param_grads"] = {name: None if p.grad is None else _host(p.grad)
                                for name, p in link.namedparams()}
        found["input_grads"] = [None if x.grad is None else _host(x.grad) for x in wrt]
        found["state"] = _state(link)
    return found


def _assert_close(gpu: Any, cpu: Any, what: str) -> None:
    assert (gpu is None) == (cpu is None), what
    if cpu is not None:
        assert gpu.shape == cpu.shape and gpu.dtype == cpu.dtype, what
        numpy.testing.assert_allclose(gpu, cpu, rtol=1e-8, atol=1e-10, err_msg=what)


def _prepare(name: str) -> tuple[Any, list[Any], list[Any]]:
    """The link (float64, seeded), the inputs and the output gradients of row ``name``."""
    row = ROWS[name]
    numpy.random.seed(sorted(ROWS).index(name))
    with chainer_compat.using_config("dtype", numpy.float64):
        link = row.make()
    rng = numpy.random.default_rng(sorted(ROWS).index(name))
    inputs = [make(rng) for make in row.makers]
    shapes = _run(numpy, copy.deepcopy(link), row, inputs, None)["shapes"]
    return link, inputs, [rng.standard_normal(shape) for shape in shapes]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_a_link_on_cupy_matches_itself_on_numpy(name, cupy):
    row = ROWS[name]
    link, inputs, output_grads = _prepare(name)
    gpu_link = copy.deepcopy(link)
    gpu_link.to_device("@cupy:0")
    cpu = _run(numpy, link, row, inputs, output_grads)
    gpu = _run(cupy, gpu_link, row, inputs, output_grads)

    assert len(gpu["outputs"]) == len(cpu["outputs"])
    for index, (g, c) in enumerate(zip(gpu["outputs"], cpu["outputs"])):
        _assert_close(g, c, f"output {index}")
    assert gpu["param_grads"].keys() == cpu["param_grads"].keys()
    for key in cpu["param_grads"]:
        _assert_close(gpu["param_grads"][key], cpu["param_grads"][key], f"grad of {key}")
    for index, (g, c) in enumerate(zip(gpu["input_grads"], cpu["input_grads"])):
        _assert_close(g, c, f"gradient of input {index}")
    assert gpu["state"].keys() == cpu["state"].keys()
    for key in cpu["state"]:
        _assert_close(gpu["state"][key], cpu["state"][key], f"state {key}")


@pytest.mark.parametrize("name", sorted(ROWS))
def test_every_row_runs_in_float64_on_numpy(name):
    # The table itself, where there is no GPU: each link builds in float64, runs, and gives
    # its parameters gradients.
    link, inputs, output_grads = _prepare(name)
    found = _run(numpy, link, ROWS[name], inputs, output_grads)
    assert found["outputs"] and all(y.dtype == numpy.float64 for y in found["outputs"])
    # Nothing compared may be all zeros, or a wrong CuPy path could pass unseen.
    # (DecorrelatedBatchNormalization has no parameters.)
    for key, grad in found["param_grads"].items():
        assert grad is not None and grad.any(), key
    assert all(y.any() for y in found["outputs"])
    assert all(g is not None and g.any() for g in found["input_grads"])
    assert found["state"]
