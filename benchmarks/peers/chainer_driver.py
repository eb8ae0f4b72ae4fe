"""Chainer 7.8.1 peer: the suite's workloads written for Chainer, run in Chainer's own venv.

Imports chainer (NumPy < 2), ``bench_spec`` and ``_serve``; run by ``benchmarks/run.py
--peers chainer`` with the venv's Python (see benchmarks/README.md). Chainer has no ctx-style
Function, so workload ``ctx`` answers "unavailable".
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Any

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parent))

import chainer
import chainer.functions as F
from _serve import References, serve
from bench_spec import LEARNING_RATE, ONE, B, H, K, Sizes, check_close, measure_peak, timed

references = References()


class Affine(chainer.FunctionNode):
    def forward(self, inputs: Any) -> Any:
        x, = inputs
        return x * K + B,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return grad_outputs[0] * K,


class AffineOldStyle(chainer.Function):
    def forward(self, inputs: Any) -> Any:
        x, = inputs
        return x * K + B,

    def backward(self, inputs: Any, grad_outputs: Any) -> Any:
        return grad_outputs[0] * K,


class Mix(chainer.FunctionNode):
    def forward(self, inputs: Any) -> Any:
        a, b = inputs
        return (a + b) * H,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        g = grad_outputs[0] * H
        return g, g


class Tanh(chainer.FunctionNode):
    def forward(self, inputs: Any) -> Any:
        self.retain_outputs((0,))
        return numpy.tanh(inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, = self.get_retained_outputs()
        return grad_outputs[0] * (ONE - y * y),


def _backward(y: Any) -> None:
    y.grad = numpy.ones_like(y.array)
    y.backward()


def _timed_pass(forward: Any) -> tuple[dict[str, float], Any]:
    forward_seconds, y = timed(forward)
    backward_seconds, _ = timed(lambda: _backward(y))
    return {"fwd": forward_seconds, "bwd": backward_seconds}, y


def chain(sizes: Sizes, old: bool = False) -> dict[str, Any]:
    n = sizes.chain
    x = chainer.Variable(numpy.ones(1, numpy.float32))

    def forward() -> Any:
        h = x
        if old:
            for _ in range(n):
                h = AffineOldStyle()(h)
        else:
            for _ in range(n):
                h, = Affine().apply((h,))
        return h

    times, y = _timed_pass(forward)
    check_close("chainer chain", x.grad, references.chain(sizes))
    del y
    gc.collect()
    return times


def fan_in(sizes: Sizes) -> dict[str, Any]:
    n = sizes.fan_in
    x = chainer.Variable(numpy.ones(1, numpy.float32))

    def forward() -> Any:
        previous, current = x, x * 1.0
        for _ in range(n):
            out, = Mix().apply((previous, current))
            previous, current = current, out
        return current

    times, y = _timed_pass(forward)
    check_close("chainer fan_in", x.grad, references.fan_in(sizes))
    del y
    gc.collect()
    return times


def elementwise_pass(x: Any, n: int) -> tuple[dict[str, float], Any]:
    variable = chainer.Variable(x)

    def forward() -> Any:
        h = variable
        for _ in range(n):
            h, = Tanh().apply((h,))
        return h

    times, _ = _timed_pass(forward)
    return times, variable.grad


def elementwise(sizes: Sizes) -> dict[str, Any]:
    times, grad = elementwise_pass(references.big_input(sizes), sizes.big_nodes)
    check_close("chainer elementwise", grad, references.elementwise(sizes))
    return times


def mlp(sizes: Sizes) -> dict[str, Any]:
    x, t, arrays = references.mlp_data(sizes)
    params = [chainer.Parameter(array.copy()) for array in arrays]
    layer_count = len(params) // 2

    def step() -> None:
        for param in params:
            param.cleargrad()
        h = x
        for layer in range(layer_count):
            h = F.linear(h, params[2 * layer], params[2 * layer + 1])
            if layer < layer_count - 1:
                h = F.relu(h)
        loss = F.softmax_cross_entropy(h, t)
        loss.backward()
        for param in params:
            param.array -= LEARNING_RATE * param.grad

    seconds = [timed(step)[0]]
    # The first step's gradients: see bench_spec.mlp_floor.
    references.check_mlp(sizes, [param.grad for param in params])
    seconds += [timed(step)[0] for _ in range(sizes.mlp_steps - 1)]
    return {"step": seconds}


def elementwise_memory(sizes: Sizes) -> dict[str, Any]:
    x = references.big_input(sizes)
    # A pass on a tiny array first, so one-time setup is not counted as the workload's.
    elementwise_pass(x[:16].copy(), sizes.big_nodes)
    figures = measure_peak(lambda: elementwise_pass(x, sizes.big_nodes)[1])
    figures["array_bytes"] = x.nbytes
    return figures


if __name__ == "__main__":
    version = f"Chainer {chainer.__version__}, numpy {numpy.__version__}"
    sys.exit(serve(version,
                   {"chain": chain, "old_style": lambda s: chain(s, old=True),
                    "fan_in": fan_in, "elementwise": elementwise, "mlp": mlp},
                   {"elementwise": elementwise_memory}))
