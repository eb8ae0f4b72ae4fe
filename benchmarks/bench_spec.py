"""What every interpreter of the benchmark suite shares: sizes, constants, the NumPy floor.

Imports only NumPy (1.x or 2.x) and the standard library, so the peer drivers can load it in
Chainer's and PyTorch's virtual environments too. The floor does each workload's arithmetic by
hand with no graph; its gradients are the reference every implementation is checked against.
"""

from __future__ import annotations

import gc
import itertools
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy

# Workload 1-3, 7: y = K x + B on one-element float32 arrays.
K = numpy.float32(0.999)
B = numpy.float32(0.001)
# Workload 4: y = (a + b) H.
H = numpy.float32(0.5)
# Workload 5: y = tanh(x), whose gradient gy (1 - y y) needs the output.
ONE = numpy.float32(1)
# Workload 6: the learning rate of the plain SGD update.
LEARNING_RATE = numpy.float32(0.01)


@dataclass(frozen=True)
class Sizes:
    """How big each workload is; :data:`FULL` is the issue's, :data:`QUICK` a smoke test's."""

    chain: int = 20_000
    fan_in: int = 10_000
    big_nodes: int = 50
    big_elements: int = 4 * 2**20  # 16 MiB of float32 per array
    mlp_units: tuple[int, ...] = (784, 1000, 1000, 10)
    mlp_batch: int = 128
    mlp_steps: int = 10  # train steps per timed round; the figure is per step
    scaling: tuple[int, ...] = (10_000, 100_000, 1_000_000)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Sizes:
        values = dict(values)
        values["mlp_units"] = tuple(values["mlp_units"])
        values["scaling"] = tuple(values["scaling"])
        return cls(**values)


FULL = Sizes()
QUICK = Sizes(chain=200, fan_in=100, big_nodes=5, big_elements=4096, mlp_units=(20, 16, 16, 10),
              mlp_batch=8, mlp_steps=2, scaling=(100, 200, 400))


# NOTE [clock]
# The machine is shared, so by default timings read the process's CPU time (user + system, all
# threads): time spent descheduled while a neighbour runs is not counted, which wall-clock time
# would count. Work is single-threaded (run.py sets the BLAS/OpenMP thread counts to 1), so on
# an idle machine both clocks agree. On a GPU the wall clock is the only meaningful one.
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
_clock = CLOCKS["cpu"]
# Set by use_gpu(): waits for the device, so that a timing covers the kernels launched.
_synchronize: Callable[[], None] | None = None


def keep_freed_memory() -> bool:
    """Makes glibc's malloc keep freed large blocks in the process; False where it cannot.

    By default a 16 MiB array is mapped fresh from the kernel and unmapped when freed, so every
    pass of workload 5 pays page faults on about fifty new arrays; on a shared machine their
    system time varied tenfold between passes and buried the figures. Serving large blocks
    from the heap and never trimming it makes every pass after the warm-up reuse memory.
    """
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        mmap_threshold, trim_threshold = -3, -1  # M_MMAP_THRESHOLD, M_TRIM_THRESHOLD
        return bool(libc.mallopt(mmap_threshold, 32 * 2**20)  # glibc's largest: 32 MiB
                    and libc.mallopt(trim_threshold, 2**31 - 1))
    except (OSError, AttributeError):
        return False


def set_clock(name: str) -> None:
    """Selects what :func:`timed` reads: "cpu" (process CPU time) or "wall" (see NOTE [clock])."""
    global _clock
    _clock = CLOCKS[name]


def use_gpu() -> Any:
    """Makes :func:`timed` wait for the CUDA device on the wall clock; returns cupy."""
    global _synchronize
    import cupy

    _synchronize = cupy.cuda.Device().synchronize
    set_clock("wall")
    return cupy


def array_module(array: Any) -> Any:
    """numpy, or cupy for a CuPy array (cupy is never imported here)."""
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(array, cupy.ndarray):
        return cupy
    return numpy


def to_numpy(array: Any) -> Any:
    """The array itself, or a CuPy array's copy in host memory."""
    return array if array_module(array) is numpy else array.get()


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds one call takes (see NOTE [clock]), and what it returned."""
    clock, synchronize = _clock, _synchronize
    if synchronize is not None:
        synchronize()
    start = clock()
    value = fn()
    if synchronize is not None:
        synchronize()
    return clock() - start, value


def check_close(name: str, actual: Any, expected: Any, rtol: float = 1e-4,
                atol: float = 1e-6) -> None:
    """Raises AssertionError when a gradient is missing or differs from the floor's."""
    if actual is None:
        raise AssertionError(f"{name}: gradient must be computed, got None")
    actual = numpy.asarray(to_numpy(actual))
    expected = numpy.asarray(to_numpy(expected))
    if actual.shape != expected.shape:
        raise AssertionError(
            f"{name}: gradient must have the floor's shape {expected.shape}, got {actual.shape}")
    if not numpy.allclose(actual, expected, rtol=rtol, atol=atol):
        worst = float(numpy.max(numpy.abs(actual.astype(numpy.float64) - expected)))
        raise AssertionError(
            f"{name}: gradient must match the floor's (rtol {rtol}), got a largest difference "
            f"of {worst:.3g}")


# ------------------------------------------------------------------------ (1)-(3), (7) chain
def chain_floor_forward(n: int) -> Any:
    """n times y = K x + B, from x = 1."""
    h = numpy.ones(1, numpy.float32)
    for _ in range(n):
        h = h * K + B
    return h


def chain_floor_backward(n: int) -> Any:
    """n times g = K g, from g = 1: the gradient of x."""
    g = numpy.ones(1, numpy.float32)
    for _ in range(n):
        g = g * K
    return g


def chain_floor(n: int) -> tuple[dict[str, float], Any]:
    """Times the chain by hand; returns the times and dx."""
    forward_seconds, _ = timed(lambda: chain_floor_forward(n))
    backward_seconds, grad = timed(lambda: chain_floor_backward(n))
    return {"fwd": forward_seconds, "bwd": backward_seconds}, grad


# ------------------------------------------------------------------------------ (4) fan-in
def fan_in_floor_forward(n: int) -> Any:
    """Layer i+2 = (layer i + layer i+1) H, from layers 0 and 1 both x = 1."""
    previous, current = numpy.ones(1, numpy.float32), numpy.ones(1, numpy.float32)
    for _ in range(n):
        previous, current = current, (previous + current) * H
    return current


def fan_in_floor_backward(n: int) -> Any:
    """The gradient of x: layer 1 is x * 1.0, so it sums the gradients of layers 0 and 1."""
    # grads[i] is the gradient of layer i; layer i feeds layers i+1 and i+2.
    grads: list[Any] = [None] * (n + 2)
    grads[n + 1] = numpy.ones(1, numpy.float32)
    for i in range(n + 1, 1, -1):
        g = grads[i] * H
        for j in (i - 1, i - 2):
            grads[j] = g if grads[j] is None else grads[j] + g
    return grads[0] + grads[1]


def fan_in_floor(n: int) -> tuple[dict[str, float], Any]:
    """Times the fan-in DAG by hand; returns the times and dx."""
    forward_seconds, _ = timed(lambda: fan_in_floor_forward(n))
    backward_seconds, grad = timed(lambda: fan_in_floor_backward(n))
    return {"fwd": forward_seconds, "bwd": backward_seconds}, grad


# ----------------------------------------------------------------- (5) large elementwise chain
def big_input(sizes: Sizes, xp: Any = numpy) -> Any:
    """The input of workload 5: values in [-1, 1], the same in every interpreter."""
    x = numpy.random.default_rng(5).uniform(-1, 1, sizes.big_elements).astype(numpy.float32)
    return x if xp is numpy else xp.asarray(x)


def big_floor_forward(x: Any, n: int) -> list[Any]:
    """n tanh nodes by hand; keeps every output, as backward needs them."""
    xp = array_module(x)
    outputs = []
    h = x
    for _ in range(n):
        h = xp.tanh(h)
        outputs.append(h)
    return outputs


def big_floor_backward(outputs: list[Any]) -> Any:
    """g = g (1 - y y) through the outputs, dropping each one once used."""
    g = array_module(outputs[-1]).ones_like(outputs[-1])
    while outputs:
        y = outputs.pop()
        g = g * (ONE - y * y)
    return g


def big_floor(x: Any, n: int) -> tuple[dict[str, float], Any]:
    """Times the floor of workload 5; returns times and dx."""
    forward_seconds, outputs = timed(lambda: big_floor_forward(x, n))
    backward_seconds, grad = timed(lambda: big_floor_backward(outputs))
    return {"fwd": forward_seconds, "bwd": backward_seconds}, grad


# ---------------------------------------------------------------------------------- (6) MLP
def mlp_data(sizes: Sizes, xp: Any = numpy) -> tuple[Any, Any, list[Any]]:
    """Input batch, int32 labels and [W1, b1, W2, b2, ...] (float32), the same everywhere."""
    rng = numpy.random.default_rng(6)
    units = sizes.mlp_units
    x = rng.standard_normal((sizes.mlp_batch, units[0])).astype(numpy.float32)
    t = rng.integers(0, units[-1], sizes.mlp_batch).astype(numpy.int32)
    params = []
    for fan_in, fan_out in itertools.pairwise(units):
        scale = numpy.sqrt(2.0 / fan_in)
        params.append((rng.standard_normal((fan_out, fan_in)) * scale).astype(numpy.float32))
        params.append(numpy.zeros(fan_out, numpy.float32))
    if xp is not numpy:
        return xp.asarray(x), xp.asarray(t), [xp.asarray(param) for param in params]
    return x, t, params


def mlp_floor_step(x: Any, t: Any, params: list[Any]) -> tuple[Any, list[Any]]:
    """One train step by hand: forward, softmax cross entropy (mean), backward, SGD update.

    Returns the loss and the gradients (in the order of ``params``), which are updated in place.
    """
    xp = array_module(x)
    layer_count = len(params) // 2
    activations = [x]
    h = x
    for layer in range(layer_count):
        w, b = params[2 * layer], params[2 * layer + 1]
        h = h.dot(w.T)
        h += b
        if layer < layer_count - 1:
            h = xp.maximum(h, 0)
            activations.append(h)
    # Softmax cross entropy, averaged over the batch.
    batch = len(x)
    shifted = h - h.max(axis=1, keepdims=True)
    exp_shifted = xp.exp(shifted)
    total = exp_shifted.sum(axis=1, keepdims=True)
    log_total = xp.log(total)
    exp_shifted /= total
    log_p = xp.take_along_axis(shifted, t[:, None], axis=1)
    log_p -= log_total
    loss = -log_p.sum() / batch
    # Backward: d loss / d logits = (softmax - onehot) / batch.
    g = exp_shifted
    g[xp.arange(batch), t] -= 1
    g *= numpy.float32(1.0 / batch)
    grads: list[Any] = [None] * len(params)
    for layer in range(layer_count - 1, -1, -1):
        a = activations[layer]
        grads[2 * layer] = g.T.dot(a)
        grads[2 * layer + 1] = g.sum(axis=0)
        if layer > 0:
            g = g.dot(params[2 * layer])
            g = g * (a > 0)
    for param, grad in zip(params, grads):
        param -= LEARNING_RATE * grad
    return loss, grads


def mlp_floor(x: Any, t: Any, params: list[Any],
              steps: int) -> tuple[dict[str, list[float]], list[Any]]:
    """Times ``steps`` floor train steps (from the given params, updated in place).

    Returns the seconds of each step, as ``{"step": [...]}``, and the first step's gradients:
    later steps start from updated weights, where BLAS libraries' different summation orders
    have already moved the implementations apart by more than rounding.
    """
    seconds = []
    first_grads: list[Any] = []
    for _ in range(steps):
        elapsed, (_, grads) = timed(lambda: mlp_floor_step(x, t, params))
        seconds.append(elapsed)
        first_grads = first_grads or grads
    return {"step": seconds}, first_grads


# ------------------------------------------------------------------------ memory measurement
def _status_bytes(field: str) -> int | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _reset_peak_rss() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")  # resets VmHWM to the current RSS
        return True
    except OSError:
        return False


def measure_peak(run: Callable[[], Any], use_tracemalloc: bool = True) -> dict[str, Any]:
    """Peak memory of ``run()`` above what was allocated before it, in bytes.

    Meant for a fresh process. ``tracemalloc`` sees NumPy's array data (NumPy reports it);
    the resident set (VmHWM after resetting it) is reported as well, and is the only figure
    for libraries whose allocator tracemalloc does not see (PyTorch).
    """
    gc.collect()
    if use_tracemalloc:
        tracemalloc.start()
        baseline = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
    rss_before = _status_bytes("VmRSS") if _reset_peak_rss() else None
    value = run()
    figures: dict[str, Any] = {"tracemalloc": None, "rss": None}
    if use_tracemalloc:
        figures["tracemalloc"] = tracemalloc.get_traced_memory()[1] - baseline
        tracemalloc.stop()
    peak_rss = _status_bytes("VmHWM")
    if rss_before is not None and peak_rss is not None:
        figures["rss"] = peak_rss - rss_before
    del value
    return figures


def measure_peak_gpu(run: Callable[[], Any]) -> dict[str, Any]:
    """Peak bytes of CuPy's default memory pool during ``run()`` (a fresh process's pool).

    The pool keeps the blocks it frees and reuses them, so the bytes it holds after ``run``
    are the most that were in use at once (plus rounding to the pool's block sizes).
    """
    import cupy

    pool = cupy.get_default_memory_pool()
    cupy.cuda.Device().synchronize()
    pool.free_all_blocks()
    baseline = pool.used_bytes()
    value = run()
    cupy.cuda.Device().synchronize()
    figures = {"tracemalloc": None, "rss": None, "gpu_pool": pool.total_bytes() - baseline}
    del value
    return figures


def machine() -> str:
    """The CPU model and core count, for the report's header."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"
