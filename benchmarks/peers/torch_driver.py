"""PyTorch peer: the suite's workloads as custom ``torch.autograd.Function``s, on the CPU.

Imports torch, ``bench_spec`` and ``_serve``; run by ``benchmarks/run.py --peers torch`` with the
Python of a venv that has torch (see benchmarks/README.md). Workloads (1) and (3) are both a
custom Function here; PyTorch has no old-style Function, so ``old_style`` answers "unavailable".
Peak memory is the resident set: tracemalloc does not see PyTorch's allocator.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Any

import numpy
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _serve import References, serve
from bench_spec import LEARNING_RATE, B, H, K, Sizes, check_close, measure_peak, timed

references = References()
_K, _B, _H = float(K), float(B), float(H)


class Affine(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x * _K + _B

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return grad * _K


class Mix(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Any:
        return (a + b) * _H

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        g = grad * _H
        return g, g


class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        y, = ctx.saved_tensors
        return grad * (1 - y * y)


def _timed_pass(forward: Any) -> dict[str, float]:
    forward_seconds, y = timed(forward)
    backward_seconds, _ = timed(lambda: y.backward(torch.ones_like(y)))
    return {"fwd": forward_seconds, "bwd": backward_seconds}


def chain(sizes: Sizes) -> dict[str, Any]:
    n = sizes.chain
    x = torch.ones(1, dtype=torch.float32, requires_grad=True)

    def forward() -> Any:
        h = x
        for _ in range(n):
            h = Affine.apply(h)
        return h

    times = _timed_pass(forward)
    check_close("torch chain", x.grad.numpy(), references.chain(sizes))
    gc.collect()
    return times


def fan_in(sizes: Sizes) -> dict[str, Any]:
    n = sizes.fan_in
    x = torch.ones(1, dtype=torch.float32, requires_grad=True)

    def forward() -> Any:
        previous, current = x, x * 1.0
        for _ in range(n):
            previous, current = current, Mix.apply(previous, current)
        return current

    times = _timed_pass(forward)
    check_close("torch fan_in", x.grad.numpy(), references.fan_in(sizes))
    gc.collect()
    return times


def elementwise_pass(x: Any, n: int) -> tuple[dict[str, float], Any]:
    leaf = torch.from_numpy(x).requires_grad_(True)

    def forward() -> Any:
        h = leaf
        for _ in range(n):
            h = Tanh.apply(h)
        return h

    return _timed_pass(forward), leaf.grad


def elementwise(sizes: Sizes) -> dict[str, Any]:
    times, grad = elementwise_pass(references.big_input(sizes), sizes.big_nodes)
    check_close("torch elementwise", grad.numpy(), references.elementwise(sizes))
    return times


def mlp(sizes: Sizes) -> dict[str, Any]:
    x_array, t_array, arrays = references.mlp_data(sizes)
    x = torch.from_numpy(x_array)
    t = torch.from_numpy(t_array.astype(numpy.int64))
    params = [torch.from_numpy(array.copy()).requires_grad_(True) for array in arrays]
    layer_count = len(params) // 2
    rate = float(LEARNING_RATE)

    def step() -> None:
        for param in params:
            param.grad = None
        h = x
        for layer in range(layer_count):
            h = torch.nn.functional.linear(h, params[2 * layer], params[2 * layer + 1])
            if layer < layer_count - 1:
                h = torch.nn.functional.relu(h)
        loss = torch.nn.functional.cross_entropy(h, t)
        loss.backward()
        with torch.no_grad():
            for param in params:
                param -= rate * param.grad

    seconds = [timed(step)[0]]
    # The first step's gradients: see bench_spec.mlp_floor.
    references.check_mlp(sizes, [param.grad.numpy() for param in params])
    seconds += [timed(step)[0] for _ in range(sizes.mlp_steps - 1)]
    return {"step": seconds}


def elementwise_memory(sizes: Sizes) -> dict[str, Any]:
    x = references.big_input(sizes)
    # A pass on a tiny array first, so one-time setup is not counted as the workload's.
    elementwise_pass(x[:16].copy(), sizes.big_nodes)
    figures = measure_peak(lambda: elementwise_pass(x, sizes.big_nodes)[1],
                           use_tracemalloc=False)
    figures["array_bytes"] = x.nbytes
    return figures


if __name__ == "__main__":
    version = (f"PyTorch {torch.__version__} ({torch.get_num_threads()} threads), numpy "
               f"{numpy.__version__}")
    sys.exit(serve(version,
                   {"chain": chain, "ctx": chain, "fan_in": fan_in,
                    "elementwise": elementwise, "mlp": mlp},
                   {"elementwise": elementwise_memory}))
