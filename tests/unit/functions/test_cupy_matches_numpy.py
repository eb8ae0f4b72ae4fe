"""On CuPy, functions whose own tests have no CuPy case compute what they compute on NumPy.

One table row per function: its inputs (NumPy arrays, made from a seeded generator), which of
them get a gradient, and the call. Each row runs once on NumPy and once on CuPy, and the outputs
and the input gradients (for seeded output gradients) must agree to a float64 tolerance: a CuPy
path that takes a wrong branch, drops a term or lays out a result differently fails here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy
import pytest

import chainer_compat
import chainer_compat.functions as F
from chainer_compat import utils


def _normal(*shape: int) -> Callable[[numpy.random.Generator], numpy.ndarray]:
    return lambda rng: rng.standard_normal(shape)


def _uniform(low: float, high: float, *shape: int
             ) -> Callable[[numpy.random.Generator], numpy.ndarray]:
    return lambda rng: rng.uniform(low, high, shape)


def _labels(high: int, *shape: int) -> Callable[[numpy.random.Generator], numpy.ndarray]:
    return lambda rng: rng.integers(0, high, shape).astype(numpy.int32)


@dataclass(frozen=True)
class Row:
    """``call(*inputs)`` with ``inputs`` made by ``makers``; ``wrt`` indexes the inputs that
    get a gradient (float arrays wrapped in Variables); the other arrays go as arrays."""

    call: Callable[..., Any]
    makers: tuple[Callable[[numpy.random.Generator], Any], ...]
    wrt: tuple[int, ...] = (0,)
    rtol: float = 1e-9
    atol: float = 1e-12


def _sparse_matmul(dense: Any, b: Any) -> Any:
    return F.sparse_matmul(utils.to_coo(dense), b)


def _sparse_dense(rng: numpy.random.Generator) -> numpy.ndarray:
    dense = rng.standard_normal((4, 5))
    dense[rng.random((4, 5)) < 0.5] = 0
    return dense


def _renormalize(x: Any, gamma: Any, beta: Any, mean: Any, var: Any) -> Any:
    return F.batch_renormalization(x, gamma, beta, rmax=1.5, dmax=0.5, running_mean=mean,
                                   running_var=var)


def _decorrelate(x: Any) -> Any:
    return F.decorrelated_batch_normalization(x, groups=2)


def _clustering_loss(embeddings: Any, labels: Any) -> Any:
    return F.discriminative_margin_based_clustering_loss(
        embeddings, labels, delta_v=0.5, delta_d=1.5, max_embedding_dim=3)


def _summary(y: Any, t: Any) -> Any:
    with numpy.errstate(invalid="ignore"):  # a class never predicted nor present: 0 / 0
        return F.classification_summary(y, t)


def _forget(a: Any, b: Any) -> Any:
    return F.forget(lambda x, y: x * y + F.tanh(x), a, b)


ROWS: dict[str, Row] = {
    "hard_sigmoid": Row(F.hard_sigmoid, (_uniform(-4, 4, 3, 7),)),
    "log_softmax": Row(F.log_softmax, (_normal(3, 5, 2),)),
    "selu": Row(F.selu, (_normal(3, 4),)),
    "as_strided": Row(lambda x: F.as_strided(x, (3, 3), (1, 2), 1), (_normal(12),)),
    "dstack": Row(lambda a, b: F.dstack([a, b]), (_normal(2, 3), _normal(2, 3)), wrt=(0, 1)),
    "vstack": Row(lambda a, b: F.vstack([a, b]), (_normal(2, 3), _normal(4, 3)), wrt=(0, 1)),
    "flatten": Row(F.flatten, (_normal(2, 3, 4),)),
    "fliplr": Row(F.fliplr, (_normal(2, 3, 4),)),
    "flipud": Row(F.flipud, (_normal(2, 3, 4),)),
    "moveaxis": Row(lambda x: F.moveaxis(x, 0, 2), (_normal(2, 3, 4),)),
    "repeat": Row(lambda x: F.repeat(x, (1, 2, 3), axis=1), (_normal(2, 3),)),
    "rollaxis": Row(lambda x: F.rollaxis(x, 2), (_normal(2, 3, 4),)),
    "separate": Row(lambda x: F.separate(x, axis=1), (_normal(2, 3, 4),)),
    "squeeze": Row(lambda x: F.squeeze(x, axis=1), (_normal(2, 1, 3),)),
    "depthwise_convolution_2d": Row(
        lambda x, w, b: F.depthwise_convolution_2d(x, w, b, stride=2, pad=1),
        (_normal(2, 3, 6, 5), _normal(2, 3, 3, 3), _normal(6)), wrt=(0, 1, 2)),
    "dilated_convolution_2d": Row(
        lambda x, w, b: F.dilated_convolution_2d(x, w, b, pad=2, dilate=2),
        (_normal(2, 3, 7, 6), _normal(4, 3, 3, 3), _normal(4)), wrt=(0, 1, 2)),
    "classification_summary": Row(_summary, (_normal(8, 3), _labels(3, 8)), wrt=()),
    "absolute_error": Row(F.absolute_error, (_normal(3, 4), _normal(3, 4)), wrt=(0, 1)),
    "squared_error": Row(F.squared_error, (_normal(3, 4), _normal(3, 4)), wrt=(0, 1)),
    "mean_absolute_error": Row(F.mean_absolute_error, (_normal(3, 4), _normal(3, 4)),
                               wrt=(0, 1)),
    "mean_squared_error": Row(F.mean_squared_error, (_normal(3, 4), _normal(3, 4)),
                              wrt=(0, 1)),
    "black_out": Row(F.black_out, (_normal(4, 3), _labels(6, 4), _normal(6, 3),
                                   _labels(6, 4, 2)), wrt=(0, 2)),
    "cross_covariance": Row(F.cross_covariance, (_normal(5, 3), _normal(5, 4)), wrt=(0, 1)),
    "decov": Row(F.decov, (_normal(5, 3),)),
    "discriminative_margin_based_clustering_loss": Row(
        _clustering_loss, (_normal(2, 3, 4, 4), _labels(3, 2, 4, 4))),
    "ceil": Row(F.ceil, (_uniform(-3, 3, 3, 4),), wrt=()),
    "sign": Row(F.sign, (_normal(3, 4),), wrt=()),
    "minimum": Row(F.minimum, (_normal(3, 4), _normal(3, 4)), wrt=(0, 1)),
    "sparse_matmul": Row(_sparse_matmul, (_sparse_dense, _normal(5, 3)), wrt=(1,)),
    "zoneout_keeps_x": Row(lambda h, x: F.zoneout(h, x, ratio=0.0),
                           (_normal(3, 4), _normal(3, 4)), wrt=(0, 1)),
    "zoneout_keeps_h": Row(lambda h, x: F.zoneout(h, x, ratio=1.0),
                           (_normal(3, 4), _normal(3, 4)), wrt=(0, 1)),
    "batch_renormalization": Row(
        _renormalize, (_normal(6, 3), _uniform(0.5, 1.5, 3), _normal(3), _normal(3),
                       _uniform(0.5, 1.5, 3)), wrt=(0, 1, 2)),
    "decorrelated_batch_normalization": Row(_decorrelate, (_normal(12, 4),), rtol=1e-7,
                                            atol=1e-9),
    "spatial_pyramid_pooling_2d": Row(
        lambda x: F.spatial_pyramid_pooling_2d(x, 3, pooling="max"), (_normal(2, 3, 9, 8),)),
    "forget": Row(_forget, (_normal(3, 4), _normal(3, 4)), wrt=(0, 1)),
}


def _host(array: Any) -> numpy.ndarray:
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _run(xp: Any, row: Row, inputs: list[Any], output_grads: list[Any] | None
         ) -> tuple[list[numpy.ndarray], list[numpy.ndarray], list[tuple[int, ...]]]:
    """Calls the row on ``xp``; returns the outputs, the input gradients and the float
    outputs' shapes (for the caller to draw output gradients from)."""
    args: list[Any] = []
    variables = []
    for index, value in enumerate(inputs):
        if isinstance(value, numpy.ndarray):
            value = xp.asarray(value)
            if index in row.wrt:
                value = chainer_compat.Variable(value)
                variables.append(value)
        args.append(value)
    result = row.call(*args)
    outputs = list(result) if isinstance(result, (tuple, list)) else [result]
    values = [_host(chainer_compat.as_array(y)) for y in outputs]
    float_outputs = [y for y in outputs
                     if isinstance(y, chainer_compat.Variable) and y.dtype.kind == "f"]
    shapes = [y.shape for y in float_outputs]
    grads: list[numpy.ndarray] = []
    if variables and output_grads is not None:
        gys = [chainer_compat.Variable(xp.asarray(g)) for g in output_grads]
        for gx in chainer_compat.grad(float_outputs, variables, grad_outputs=gys):
            grads.append(None if gx is None else _host(gx.array))
    return values, grads, shapes


@pytest.mark.parametrize("name", sorted(ROWS))
def test_cupy_computes_what_numpy_computes(name, cupy):
    row = ROWS[name]
    rng = numpy.random.default_rng(sorted(ROWS).index(name))
    inputs = [make(rng) for make in row.makers]
    _, _, shapes = _run(numpy, row, inputs, None)
    output_grads = [rng.standard_normal(shape) for shape in shapes]

    cpu_values, cpu_grads = _run(numpy, row, inputs, output_grads)[:2]
    gpu_values, gpu_grads = _run(cupy, row, inputs, output_grads)[:2]

    assert len(gpu_values) == len(cpu_values)
    for gpu, cpu in zip(gpu_values, cpu_values):
        assert gpu.dtype == cpu.dtype and gpu.shape == cpu.shape
        numpy.testing.assert_allclose(gpu, cpu, rtol=row.rtol, atol=row.atol)
    assert len(gpu_grads) == len(cpu_grads) == (len(row.wrt) if row.wrt else 0)
    for gpu, cpu in zip(gpu_grads, cpu_grads):
        assert (gpu is None) == (cpu is None)
        if cpu is not None:
            assert gpu.dtype == cpu.dtype and gpu.shape == cpu.shape
            numpy.testing.assert_allclose(gpu, cpu, rtol=row.rtol, atol=row.atol)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_every_row_runs_on_numpy(name):
    # The table itself, checked where there is no GPU: each row calls, and differentiates
    # with respect to what it says.
    row = ROWS[name]
    rng = numpy.random.default_rng(0)
    inputs = [make(rng) for make in row.makers]
    _, _, shapes = _run(numpy, row, inputs, None)
    assert shapes or not row.wrt
    values, grads, _ = _run(numpy, row, inputs, [rng.standard_normal(s) for s in shapes])
    # Nothing compared may be all zeros, or a wrong CuPy path could pass unseen.
    assert values and all(v.any() for v in values)
    assert len(grads) == len(row.wrt)
    assert not grads or any(g is not None and g.any() for g in grads)  # zoneout: one is 0
