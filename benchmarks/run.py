"""chainer_compat benchmark suite: every figure is a ratio to a NumPy floor timed in the same run.

The floor (``bench_spec``) does the same arithmetic by hand, with no graph, in the same process,
interleaved round by round with the measured code, so a noisy machine moves both. Optional peers
(Chainer 7.8.1, PyTorch) run the same workloads in their own interpreters, in the same rounds.
Every workload checks its gradients against the floor's, so a fast wrong answer fails.

    python benchmarks/run.py                       # all workloads, 5 rounds
    python benchmarks/run.py chain fan_in -r 9     # some workloads, 9 rounds
    python benchmarks/run.py --peers chainer,torch # with the peers (see benchmarks/README.md)
    python benchmarks/run.py --quick               # tiny sizes, one round: checks the harness
    python benchmarks/run.py --json out.json       # also write the raw figures as JSON

Not a test: tests check behaviour, this reports numbers. Exit status 1 when a gradient check
fails (ours or a peer's), 0 otherwise, whether or not the targets are met.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Single-threaded BLAS and OpenMP (here and in the peers, which inherit the environment): on a
# shared two-core machine a second thread would measure the neighbours (see NOTE [clock] in
# bench_spec). Set these variables yourself to measure otherwise.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy  # noqa: E402

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import bench_spec  # noqa: E402
from bench_spec import FULL, LEARNING_RATE, ONE, QUICK, B, H, K, Sizes, check_close, timed  # noqa: E402

import chainer_compat as C  # noqa: E402
from chainer_compat import FunctionNode, Variable  # noqa: E402
from chainer_compat import function as old_style  # noqa: E402

# The ctx-style Function lives in chainer_compat.autograd, whose import also switches on the
# saved-array version checks for every function. It is imported once, up front, so that every
# workload runs in the same configuration whatever the order (see the report's header).
_autograd: Any
try:
    from chainer_compat import autograd as _autograd
    AUTOGRAD_ERROR: str | None = None
except Exception as error:  # an unfinished module must not stop the other workloads
    _autograd = None
    AUTOGRAD_ERROR = f"{type(error).__name__}: {error}"


def _load_mlp_functions() -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]]:
    """F.linear, F.relu, F.softmax_cross_entropy, from their modules if F lacks them."""
    functions = C.functions
    try:
        return functions.linear, functions.relu, functions.softmax_cross_entropy
    except AttributeError:
        from chainer_compat.functions.activation.relu import relu
        from chainer_compat.functions.connection.linear import linear
        from chainer_compat.functions.loss.softmax_cross_entropy import softmax_cross_entropy
        return linear, relu, softmax_cross_entropy


class Unavailable(Exception):
    """A workload (or a peer's version of it) cannot run here; the report says why."""


# ===================================================================== chainer_compat workloads
class Affine(FunctionNode):
    """y = K x + B, elementwise; backward written with Variable operators."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return x * K + B,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return grad_outputs[0] * K,


class AffineOldStyle(old_style.Function):
    """y = K x + B as an old-style Function: backward on arrays."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return x * K + B,

    def backward(self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return grad_outputs[0] * K,


_ctx_affine: Any = None


def ctx_affine() -> Any:
    """y = K x + B as a ctx-style Function (built once chainer_compat.autograd imports)."""
    global _ctx_affine
    if _ctx_affine is None:
        if _autograd is None:
            raise Unavailable(f"chainer_compat.autograd does not import ({AUTOGRAD_ERROR})")

        class AffineCtx(_autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * K + B

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return grad * K

        _ctx_affine = AffineCtx
    return _ctx_affine


class Mix(FunctionNode):
    """y = (a + b) H; backward written with Variable operators."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = inputs
        return (a + b) * H,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        g = grad_outputs[0] * H
        return g, g


class Tanh(FunctionNode):
    """y = tanh(x), keeping only its output; backward written with Variable operators."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        return bench_spec.array_module(inputs[0]).tanh(inputs[0]),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        return grad_outputs[0] * (ONE - y * y),


def _backward(y: Variable) -> None:
    y.grad = bench_spec.array_module(y.array).ones_like(y.array)
    y.backward()


def ours_chain(n: int, kind: str = "node") -> tuple[dict[str, float], Any]:
    """n Affine nodes (FunctionNode, old-style or ctx Function); returns times and dx."""
    x = Variable(numpy.ones(1, numpy.float32))
    if kind == "node":
        def forward() -> Variable:
            h = x
            for _ in range(n):
                h, = Affine().apply((h,))
            return h
    elif kind == "old_style":
        def forward() -> Variable:
            h = x
            for _ in range(n):
                h = AffineOldStyle()(h)
            return h
    else:
        affine = ctx_affine()

        def forward() -> Variable:
            h = x
            for _ in range(n):
                h = affine.apply(h)
            return h
    forward_seconds, y = timed(forward)
    backward_seconds, _ = timed(functools.partial(_backward, y))
    grad = x.grad
    del y  # the graph is freed outside the timed region
    return {"fwd": forward_seconds, "bwd": backward_seconds}, grad


def ours_fan_in(n: int) -> tuple[dict[str, float], Any]:
    """The fan-in DAG of Mix nodes; returns times and dx."""
    x = Variable(numpy.ones(1, numpy.float32))

    def forward() -> Variable:
        previous, current = x, x * 1.0
        for _ in range(n):
            out, = Mix().apply((previous, current))
            previous, current = current, out
        return current

    forward_seconds, y = timed(forward)
    backward_seconds, _ = timed(functools.partial(_backward, y))
    grad = x.grad
    del y
    return {"fwd": forward_seconds, "bwd": backward_seconds}, grad


def ours_elementwise_pass(x: Any, n: int) -> tuple[float, float, Any]:
    """One forward+backward pass of n Tanh nodes; returns both times and dx."""
    variable = Variable(x)

    def forward() -> Variable:
        h = variable
        for _ in range(n):
            h, = Tanh().apply((h,))
        return h

    forward_seconds, y = timed(forward)
    backward_seconds, _ = timed(functools.partial(_backward, y))
    return forward_seconds, backward_seconds, variable.grad


def mlp_step(x: Any, t: Any, params: list[Any]) -> Callable[[], None]:
    """One train step of workload (6) on ``params`` (Parameters W1, b1, W2, b2, ...)."""
    linear, relu, softmax_cross_entropy = _load_mlp_functions()
    layer_count = len(params) // 2

    def step() -> None:
        for param in params:
            param.cleargrad()
        h = x
        for layer in range(layer_count):
            h = linear(h, params[2 * layer], params[2 * layer + 1])
            if layer < layer_count - 1:
                h = relu(h)
        loss = softmax_cross_entropy(h, t)
        loss.backward()
        for param in params:
            param.array -= LEARNING_RATE * param.grad

    return step


def ours_mlp(x: Any, t: Any, arrays: list[Any], steps: int) -> tuple[dict[str, list[float]], Any]:
    """``steps`` train steps with F.linear/F.relu/F.softmax_cross_entropy and SGD."""
    params = [C.Parameter(array) for array in arrays]
    step = mlp_step(x, t, params)
    seconds = [timed(step)[0]]
    first_grads = [param.grad for param in params]  # cleargrad() leaves these arrays alone
    seconds += [timed(step)[0] for _ in range(steps - 1)]
    return {"step": seconds}, first_grads


# ============================================================================= the workloads
@dataclass
class Workload:
    """One benchmark: how to run a round of its floor and of chainer_compat, and its target."""

    name: str
    label: str
    unit: str  # "us/node", "ms/pass" or "ms/step"
    target: str
    per: Callable[[Sizes], int]  # units per timed round, to turn seconds into per-unit times
    peers: bool = True


WORKLOADS: dict[str, Workload] = {}


def _register(workload: Workload) -> None:
    WORKLOADS[workload.name] = workload


_register(Workload("chain", "(1) chain, FunctionNode", "us/node", "<= 8 us/node",
                   lambda s: s.chain))
_register(Workload("old_style", "(2) chain, old-style Function", "us/node", "<= 7 us/node",
                   lambda s: s.chain))
_register(Workload("ctx", "(3) chain, ctx Function", "us/node", "<= 9 us/node",
                   lambda s: s.chain))
_register(Workload("fan_in", "(4) fan-in DAG", "us/node", "<= 6 us/node", lambda s: s.fan_in))
_register(Workload("elementwise", "(5) 50 x tanh, 4M float32", "ms/pass",
                   "<= 1.03x, <= +1 array", lambda s: 1))
_register(Workload("mlp", "(6) MLP train step", "ms/step", "<= 1.02x", lambda s: 1))
_register(Workload("scaling", "(7) chain 10k..1M", "us/node", "1M/10k <= 1.10",
                   lambda s: 1, peers=False))

_SCALE = {"us/node": 1e6, "ms/pass": 1e3, "ms/step": 1e3}
GPU_WORKLOADS = ("elementwise", "mlp")
# The array module of workloads 5 and 6: cupy under --gpu.
xp: Any = numpy


class Cache:
    """Inputs and floor references that stay the same across rounds of a run."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, Sizes], Any] = {}

    def get(self, key: str, sizes: Sizes, make: Callable[[], Any]) -> Any:
        if (key, sizes) not in self.values:
            self.values[(key, sizes)] = make()
        return self.values[(key, sizes)]


def run_floor(name: str, sizes: Sizes, cache: Cache) -> tuple[dict[str, Any], Any]:
    """One round of the floor: per-phase seconds and the reference gradient(s)."""
    if name in ("chain", "old_style", "ctx"):
        return bench_spec.chain_floor(sizes.chain)
    if name == "fan_in":
        return bench_spec.fan_in_floor(sizes.fan_in)
    if name == "elementwise":
        x = cache.get("big_input", sizes, lambda: bench_spec.big_input(sizes, xp))
        return bench_spec.big_floor(x, sizes.big_nodes)
    if name == "mlp":
        x, t, arrays = cache.get("mlp_data", sizes, lambda: bench_spec.mlp_data(sizes, xp))
        return bench_spec.mlp_floor(x, t, [a.copy() for a in arrays], sizes.mlp_steps)
    if name == "scaling":
        figures: dict[str, Any] = {}
        for n in sizes.scaling:
            times, grad = bench_spec.chain_floor(n)
            # Per node, so the sizes can be compared; the reference is checked per size.
            figures[str(n)] = (times["fwd"] + times["bwd"]) / n
            cache.values[("scaling_reference_" + str(n), sizes)] = grad
        return figures, None
    raise KeyError(name)


def run_ours(name: str, sizes: Sizes, cache: Cache, reference: Any) -> dict[str, Any]:
    """One round of chainer_compat, its gradients checked against the floor's."""
    if name in ("chain", "old_style", "ctx"):
        kind = {"chain": "node", "old_style": "old_style", "ctx": "ctx"}[name]
        times, grad = ours_chain(sizes.chain, kind)
        check_close(name, grad, reference)
        return times
    if name == "fan_in":
        times, grad = ours_fan_in(sizes.fan_in)
        check_close(name, grad, reference)
        return times
    if name == "elementwise":
        x = cache.get("big_input", sizes, lambda: bench_spec.big_input(sizes, xp))
        forward_seconds, backward_seconds, grad = ours_elementwise_pass(x, sizes.big_nodes)
        check_close(name, grad, reference)
        return {"fwd": forward_seconds, "bwd": backward_seconds}
    if name == "mlp":
        x, t, arrays = cache.get("mlp_data", sizes, lambda: bench_spec.mlp_data(sizes, xp))
        step_times, grads = ours_mlp(x, t, [a.copy() for a in arrays], sizes.mlp_steps)
        for index, (grad, expected) in enumerate(zip(grads, reference)):
            check_close(f"mlp param {index}", grad, expected, rtol=1e-3, atol=1e-5)
        return step_times
    if name == "scaling":
        figures = {}
        for n in sizes.scaling:
            reference = cache.values[("scaling_reference_" + str(n), sizes)]
            times, grad = ours_chain(n, "node")
            check_close(f"scaling {n}", grad, reference)
            figures[str(n)] = (times["fwd"] + times["bwd"]) / n
            gc.collect()
            # The same with the cyclic collector off: tells its share of any growth.
            gc.disable()
            try:
                times, grad = ours_chain(n, "node")
            finally:
                gc.enable()
            check_close(f"scaling {n}", grad, reference)
            figures[f"{n} gc off"] = (times["fwd"] + times["bwd"]) / n
            gc.collect()
        return figures
    raise KeyError(name)


# ============================================================================ memory probes
def memory_probe(who: str, sizes: Sizes) -> dict[str, Any]:
    """Peak memory of one pass of workload 5, in this (fresh) process: 'floor' or 'ours'."""
    x = bench_spec.big_input(sizes, xp)
    n = sizes.big_nodes
    # A pass on a tiny array first, so one-time setup is not counted as the workload's.
    ours_elementwise_pass(x[:16].copy(), n)
    bench_spec.big_floor_backward(bench_spec.big_floor_forward(x[:16].copy(), n))
    if who == "floor":
        def run() -> Any:
            return bench_spec.big_floor_backward(bench_spec.big_floor_forward(x, n))
    else:
        def run() -> Any:
            return ours_elementwise_pass(x, n)[2]
    figures = bench_spec.measure_peak(run) if xp is numpy else bench_spec.measure_peak_gpu(run)
    figures["array_bytes"] = x.nbytes
    return figures


def measure_memory_in_fresh_process(who: str, sizes: Sizes) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--memory-probe", who,
               "--sizes", json.dumps(sizes.as_dict())] + (["--gpu"] if xp is not numpy else [])
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"memory probe of {who} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ===================================================================================== peers
PEER_DEFAULTS = {
    "chainer": ("BENCH_CHAINER_PYTHON", "/tmp/chvenv/bin/python", "chainer_driver.py",
                ("python3 -m venv /tmp/chvenv && /tmp/chvenv/bin/pip install 'numpy<2' "
                 "'setuptools<70' chainer==7.8.1")),
    "torch": ("BENCH_TORCH_PYTHON", "/tmp/torchvenv/bin/python", "torch_driver.py",
              "python3 -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch numpy"),
}


class Peer:
    """A peer library's driver, serving one workload round per request over JSON lines."""

    def __init__(self, name: str, python: str, clock: str = "cpu",
                 fresh_pages: bool = False) -> None:
        self.name = name
        self.python = python
        self.driver = str(HERE / "peers" / PEER_DEFAULTS[name][2])
        command = [python, self.driver, "--serve", "--clock", clock]
        self.process = subprocess.Popen(
            command + (["--fresh-pages"] if fresh_pages else []), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, bufsize=1)
        self.version = self.request({"command": "hello"})["version"]

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"peer {self.name} exited (status {self.process.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"peer {self.name}: {answer['error']}")
        return answer

    def run(self, name: str, sizes: Sizes) -> dict[str, Any]:
        """One round: per-phase seconds, or raises Unavailable for a workload it lacks."""
        answer = self.request({"command": "run", "workload": name, "sizes": sizes.as_dict()})
        if "unavailable" in answer:
            raise Unavailable(answer["unavailable"])
        return answer["figures"]

    def memory(self, name: str, sizes: Sizes) -> dict[str, Any]:
        command = [self.python, self.driver, "--memory", name, "--sizes",
                   json.dumps(sizes.as_dict())]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"memory probe of {self.name} failed:\n{done.stderr.strip()}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_peers(names: list[str], pythons: dict[str, str | None], clock: str = "cpu",
                fresh_pages: bool = False) -> tuple[list[Peer], list[str]]:
    """Starts the requested peers; a missing venv gives a message, not a crash."""
    peers, messages = [], []
    for name in names:
        if name not in PEER_DEFAULTS:
            raise SystemExit(f"--peers must name peers among {sorted(PEER_DEFAULTS)}, got {name!r}")
        variable, default, _, setup = PEER_DEFAULTS[name]
        python = pythons.get(name) or os.environ.get(variable) or default
        if not Path(python).exists():
            messages.append(
                f"peer {name} skipped: {python} does not exist. Create its venv with\n"
                f"    {setup}\n  or point {variable} (or --{name}-python) at a Python that has it.")
            continue
        try:
            peers.append(Peer(name, python, clock, fresh_pages))
        except Exception as error:
            messages.append(f"peer {name} skipped: its driver did not start under {python}: "
                            f"{error}")
    return peers, messages


# ==================================================================================== rounds
@dataclass
class Result:
    """Per-round figures of one workload for each implementation ("floor", "ours", peers).

    ``figures[who][phase]`` lists seconds per unit (per node, pass or step), one per round (one
    per step for the MLP). ``memory[who]`` holds peak bytes of workload 5.
    """

    workload: Workload
    sizes: Sizes
    figures: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    memory: dict[str, dict[str, Any]] = field(default_factory=dict)
    unavailable: dict[str, str] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def add(self, who: str, times: dict[str, Any]) -> None:
        per = self.workload.per(self.sizes)
        phases = self.figures.setdefault(who, {})
        for phase, seconds in times.items():
            values = seconds if isinstance(seconds, list) else [seconds]
            phases.setdefault(phase, []).extend(value / per for value in values)

    def totals(self, who: str) -> list[float]:
        """Per-round totals over the phases (fwd + bwd), or the per-step times."""
        phases = self.figures.get(who, {})
        if not phases:
            return []
        return [sum(values) for values in zip(*phases.values())]


def run_workload(workload: Workload, sizes: Sizes, rounds: int, peers: list[Peer],
                 memory: bool, log: Callable[[str], None]) -> Result:
    """Runs the rounds of one workload: floor and ours in this process, peers in theirs.

    A first round is run and thrown away (caches, allocator, a peer's first-call setup), except
    for the scaling workload, whose smallest size warms up its largest.
    """
    result = Result(workload, sizes)
    cache = Cache()
    warmup = 0 if workload.name == "scaling" else 1
    for round_index in range(-warmup, rounds):
        record = result if round_index >= 0 else Result(workload, sizes)
        # Alternate who goes first, so a drift of the machine does not favour one side.
        order = ["floor", "ours"] if round_index % 2 == 0 else ["ours", "floor"]
        reference: Any = None
        if order[0] == "ours":  # ours needs the reference: take it from an untimed floor run
            reference = _reference(workload.name, sizes, cache)
        for who in order:
            if who in result.unavailable:
                continue
            gc.collect()
            try:
                if who == "floor":
                    times, reference = run_floor(workload.name, sizes, cache)
                else:
                    times = run_ours(workload.name, sizes, cache, reference)
            except Unavailable as why:
                result.unavailable[who] = str(why)
                continue
            except AssertionError as failure:
                result.failures.append(f"chainer_compat: {failure}")
                result.unavailable[who] = "failed its gradient check (see below)"
                continue
            record.add(who, times)
        if workload.peers:
            for peer in peers:
                if peer.name in result.unavailable:
                    continue
                try:
                    record.add(peer.name, peer.run(workload.name, sizes))
                except Unavailable as why:
                    result.unavailable[peer.name] = str(why)
                except RuntimeError as failure:
                    result.failures.append(str(failure))
                    result.unavailable[peer.name] = "failed (see below)"
        log(f"  {workload.name}: round {round_index + 1}/{rounds} done"
            + (" (warm-up)" if round_index < 0 else ""))
    if memory and workload.name == "elementwise":
        for who in ("floor", "ours"):
            result.memory[who] = measure_memory_in_fresh_process(who, sizes)
        for peer in peers:
            try:
                result.memory[peer.name] = peer.memory(workload.name, sizes)
            except RuntimeError as failure:
                result.failures.append(str(failure))
    return result


def _reference(name: str, sizes: Sizes, cache: Cache) -> Any:
    def make() -> Any:
        return run_floor(name, sizes, cache)[1]
    if name == "mlp" or name == "elementwise":
        return cache.get("reference_" + name, sizes, make)
    return make()


# ==================================================================================== report
def _median(values: list[float]) -> float:
    return statistics.median(values)


def _spread(values: list[float]) -> float:
    return (max(values) - min(values)) / 2


def ratio(result: Result, who: str) -> float | None:
    """Median over rounds of who's time / the floor's time in the same round.

    Pairing each round with its own floor cancels the machine's slow drifts.
    """
    values, floor = result.totals(who), result.totals("floor")
    if not values or not floor:
        return None
    if len(values) != len(floor):
        return _median(values) / _median(floor)
    return _median([value / base for value, base in zip(values, floor)])


def _figure(values: list[float], scale: float) -> str:
    if not values:
        return "-"
    return f"{_median(values) * scale:.2f}±{_spread(values) * scale:.2f}"


def _arrays(result: Result, who: str) -> float | None:
    figures = result.memory.get(who)
    if not figures:
        return None
    key = next((key for key in ("tracemalloc", "gpu_pool", "rss")
                if figures.get(key) is not None), None)
    if key is None:
        return None
    array_bytes = result.sizes.big_elements * 4
    return figures[key] / array_bytes


def verdict(result: Result) -> str:
    """Whether chainer_compat met the workload's target on this run (informational)."""
    ours, floor = result.totals("ours"), result.totals("floor")
    if not ours or not floor or result.sizes != FULL:
        return "-"  # the targets are for the full sizes
    name = result.workload.name
    limits = {"chain": 8e-6, "old_style": 7e-6, "ctx": 9e-6, "fan_in": 6e-6}
    if name in limits:
        return "meets" if _median(ours) <= limits[name] else "misses"
    ours_ratio = ratio(result, "ours") or 0.0
    if name == "elementwise":
        ours_arrays, floor_arrays = _arrays(result, "ours"), _arrays(result, "floor")
        memory_ok = (ours_arrays is None or floor_arrays is None
                     or ours_arrays - floor_arrays <= 1.05)
        return "meets" if ours_ratio <= 1.03 and memory_ok else "misses"
    if name == "mlp":
        return "meets" if ours_ratio <= 1.02 else "misses"
    if name == "scaling":
        return "meets" if _scaling_growth(result, "ours") <= 1.10 else "misses"
    return "-"


def _scaling_growth(result: Result, who: str, suffix: str = "") -> float:
    phases = result.figures.get(who, {})
    first, last = result.sizes.scaling[0], result.sizes.scaling[-1]
    return _median(phases[f"{last}{suffix}"]) / _median(phases[f"{first}{suffix}"])


def report(results: list[Result], peers: list[str]) -> str:
    header = (f"{'workload':<32} {'unit':<8} {'floor':>13} {'chainer_compat':>15} {'ratio':>7} "
              f"{'target':>22}  ")
    header += "".join(f"{peer:>19}" for peer in peers)
    lines = [header, "-" * len(header)]
    for result in results:
        workload = result.workload
        scale = _SCALE[workload.unit]
        if workload.name == "scaling":
            lines.extend(_scaling_lines(result, peers))
            continue
        floor, ours = result.totals("floor"), result.totals("ours")
        ours_ratio = ratio(result, "ours")
        digits = 2 if workload.unit == "us/node" else 3  # 1.02x targets need the third digit
        ratio_text = f"{ours_ratio:.{digits}f}x" if ours_ratio is not None else "-"
        ours_text = _figure(ours, scale) if ours else "unavailable"
        line = (f"{workload.label:<32} {workload.unit:<8} {_figure(floor, scale):>13} "
                f"{ours_text:>15} {ratio_text:>7} {workload.target + ' ' + verdict(result):>22}  ")
        for peer in peers:
            values = result.totals(peer)
            if values:
                text = f"{_median(values) * scale:.2f}"
                peer_ratio = ratio(result, peer)
                if workload.unit != "us/node" and peer_ratio is not None:
                    text += f" ({peer_ratio:.2f}x)"
            else:
                text = "n/a" if peer in result.unavailable or not workload.peers else "-"
            line += f"{text:>19}"
        lines.append(line)
        phases = [phase for phase in ("fwd", "bwd") if phase in result.figures.get("floor", {})]
        if phases and ours:
            split = "   ".join(
                f"{phase} {_median(result.figures['floor'][phase]) * scale:.2f} / "
                f"{_median(result.figures['ours'][phase]) * scale:.2f}" for phase in phases)
            lines.append(f"{'':<32} {'':<8} {split} (floor / chainer_compat)")
        if result.memory:
            parts = []
            for who in ["floor", "ours"] + peers:
                arrays = _arrays(result, who)
                if arrays is not None:
                    kind = ("" if result.memory[who].get("tracemalloc") is not None else
                            " (GPU pool)" if result.memory[who].get("gpu_pool") is not None
                            else " (RSS)")
                    label = "chainer_compat" if who == "ours" else who
                    parts.append(f"{label} {arrays:.2f}{kind}")
            lines.append(f"{'':<32} {'':<8} peak memory above the input, in arrays: "
                         + ", ".join(parts))
        for who, why in result.unavailable.items():
            label = "chainer_compat" if who == "ours" else who
            lines.append(f"{'':<32} {'':<8} {label}: unavailable: {why}")
    return "\n".join(lines)


def _scaling_lines(result: Result, peers: list[str]) -> list[str]:
    lines = []
    workload = result.workload
    if "ours" not in result.figures:
        why = result.unavailable.get("ours", "no figures")
        return [f"{workload.label:<32} unavailable: {why}"]
    for n in result.sizes.scaling:
        floor = result.figures["floor"][str(n)]
        ours = result.figures["ours"][str(n)]
        label = f"(7) chain, {n:,} nodes"
        paired = _median([value / base for value, base in zip(ours, floor, strict=False)])
        lines.append(f"{label:<32} {'us/node':<8} {_figure(floor, 1e6):>13} "
                     f"{_figure(ours, 1e6):>15} {paired:>6.2f}x   with gc off: "
                     f"{_figure(result.figures['ours'][f'{n} gc off'], 1e6)}")
    first, last = result.sizes.scaling[0], result.sizes.scaling[-1]
    lines.append(
        f"{'':<32} {'':<8} per-node time at {last:,} / at {first:,}: chainer_compat "
        f"{_scaling_growth(result, 'ours'):.3f} (gc off: "
        f"{_scaling_growth(result, 'ours', ' gc off'):.3f}), floor "
        f"{_scaling_growth(result, 'floor'):.3f}  (target <= 1.10: {verdict(result)})")
    return lines


# ====================================================================================== main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"workloads (default: all of {list(WORKLOADS)})")
    parser.add_argument("-r", "--repeats", type=int, default=None,
                        help="rounds per workload (default 5; 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks the harness")
    parser.add_argument("--peers", default="", help="comma-separated peers: chainer,torch")
    parser.add_argument("--chainer-python", help="Python of Chainer's venv (default "
                        "$BENCH_CHAINER_PYTHON or /tmp/chvenv/bin/python)")
    parser.add_argument("--torch-python", help="Python of PyTorch's venv (default "
                        "$BENCH_TORCH_PYTHON or /tmp/torchvenv/bin/python)")
    parser.add_argument("--clock", choices=sorted(bench_spec.CLOCKS), default="cpu",
                        help="cpu: process CPU time, robust on a shared machine (default); "
                        "wall: elapsed time (forced by --gpu)")
    parser.add_argument("--fresh-pages", action="store_true",
                        help="keep glibc's default of returning large freed blocks to the "
                        "kernel (every pass then pays page faults; see keep_freed_memory)")
    parser.add_argument("--no-memory", action="store_true",
                        help="skip workload 5's peak-memory probes (fresh processes)")
    parser.add_argument("--gpu", action="store_true",
                        help=f"run workloads {list(GPU_WORKLOADS)} on CuPy (a CUDA device)")
    parser.add_argument("--json", help="also write the raw figures to this file")
    parser.add_argument("-v", "--verbose", action="store_true", help="log each round")
    parser.add_argument("--memory-probe", choices=["floor", "ours"], help=argparse.SUPPRESS)
    parser.add_argument("--sizes", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    sizes = QUICK if args.quick else FULL
    if args.sizes:
        sizes = Sizes.from_dict(json.loads(args.sizes))
    global xp
    bench_spec.set_clock(args.clock)
    if args.gpu:
        try:
            xp = bench_spec.use_gpu()
        except Exception as error:
            parser.error(f"--gpu needs CuPy and a CUDA device, got {type(error).__name__}: "
                         f"{error}")
    if args.memory_probe:
        print(json.dumps(memory_probe(args.memory_probe, sizes)))
        return 0

    names = args.names or (list(GPU_WORKLOADS) if args.gpu else list(WORKLOADS))
    unknown = [name for name in names if name not in WORKLOADS]
    if unknown:
        parser.error(f"workloads must be among {list(WORKLOADS)}, got {unknown}")
    if args.gpu and set(names) - set(GPU_WORKLOADS):
        parser.error(f"--gpu runs only workloads {list(GPU_WORKLOADS)}, got {names}")
    if args.gpu and args.peers:
        parser.error("--gpu runs without peers: the peer drivers run on the CPU")
    rounds = args.repeats if args.repeats is not None else (1 if args.quick else 5)
    if rounds < 1:
        parser.error(f"--repeats must be at least 1, got {rounds}")

    peer_names = [name for name in args.peers.split(",") if name]
    kept = False if args.fresh_pages else bench_spec.keep_freed_memory()
    peers, messages = start_peers(
        peer_names, {"chainer": args.chainer_python, "torch": args.torch_python},
        "wall" if args.gpu else args.clock, args.fresh_pages)
    for message in messages:
        print(message, file=sys.stderr)

    def log(text: str) -> None:
        if args.verbose:
            print(text, file=sys.stderr, flush=True)

    started = time.perf_counter()
    results = []
    try:
        for name in names:
            results.append(run_workload(WORKLOADS[name], sizes, rounds, peers,
                                        not args.no_memory, log))
    finally:
        for peer in peers:
            peer.close()

    print(f"chainer_compat {C.__version__}, numpy {numpy.__version__}, python "
          f"{sys.version.split()[0]}; {bench_spec.machine()}")
    checks = ("on (chainer_compat.autograd imported)" if _autograd is not None
              else f"off (chainer_compat.autograd unavailable: {AUTOGRAD_ERROR})")
    device = "CPU"
    if xp is not numpy:
        name = xp.cuda.runtime.getDeviceProperties(xp.cuda.Device().id)["name"]
        device = f"GPU {name.decode() if isinstance(name, bytes) else name}, cupy {xp.__version__}"
    clock = "wall" if args.gpu else args.clock
    threads = ", ".join(f"{name}={os.environ.get(name)}" for name in
                        ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"))
    print(f"saved-array checks {checks}; sizes {'QUICK' if sizes == QUICK else 'FULL'}; "
          f"{device}; clock: {clock} ({threads}); freed large blocks "
          f"{'kept in the process' if kept else 'returned to the kernel'}")
    for peer in peers:
        print(f"peer {peer.name}: {peer.version}")
    print(f"medians of {rounds} rounds after a warm-up round (± half the range); ratios are "
          f"medians of each round's time over the same round's floor (peers' in parentheses); "
          f"took {time.perf_counter() - started:.0f} s")
    print(report(results, [peer.name for peer in peers]))
    failures = [failure for result in results for failure in result.failures]
    for failure in failures:
        print(f"GRADIENT CHECK FAILED: {failure}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({
                "sizes": sizes.as_dict(), "rounds": rounds, "machine": bench_spec.machine(),
                "peers": {peer.name: peer.version for peer in peers},
                "results": {r.workload.name: {
                    "unit": r.workload.unit, "figures": r.figures, "memory": r.memory,
                    "unavailable": r.unavailable, "failures": r.failures,
                    "verdict": verdict(r)} for r in results},
            }, out, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
