"""Soak: a million forward+backward iterations of a small mixed graph; resident memory must
not drift.

Not a test: it reports the drift of resident memory (RSS) between the end of the warm-up and the
end of the run, with the cyclic garbage collector off, so a single leaked node per step shows.

    python benchmarks/soak.py                      # 1,000,000 iterations, limit 1 MiB
    python benchmarks/soak.py -n 100000 --json soak.json
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy

import chainer_compat as C
import chainer_compat.functions as F
from chainer_compat import FunctionHook, FunctionNode, Variable
from chainer_compat.autograd import Function as CtxFunction
from chainer_compat.function import Function
from chainer_compat.functions.activation.tanh import tanh
from chainer_compat.functions.array.split_axis import split_axis
from chainer_compat.functions.connection.linear import linear

MIB = 1024 * 1024


# ------------------------------------------------------------------------------- the graph
class Cube(FunctionNode):
    """New-style node: retains its input, backward written with Variables (twice-differentiable)."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return x * x * x,

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return 3.0 * x * x * grad_outputs[0],


class Halve(FunctionNode):
    """New-style node that retains its output, which is resurrected when the user dropped it."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        return inputs[0] * 0.5,

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        return grad_outputs[0] * (y * 0 + 0.5),


class OldExpScale(Function):
    """Old-style Function: keeps its output array through retain_outputs."""

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(())
        self.retain_outputs((0,))
        return numpy.exp(inputs[0] * 0.1),

    def backward_cpu(self, inputs: tuple[Any, ...],
                     grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return grad_outputs[0] * self.output_data[0] * 0.1,


class CtxSquare(CtxFunction):
    """ctx-style Function saving its input."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, gy: Any) -> Any:
        x, = ctx.saved_tensors
        return 2.0 * x * gy


class FlakyBackward(FunctionNode):
    """Identity whose backward raises: the soak checks that a failed backward frees its graph."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return inputs[0].copy(),

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise _Expected("backward failed on purpose")


class _Expected(Exception):
    pass


class CountingHook(FunctionHook):
    name = "soak_counter"

    def __init__(self) -> None:
        self.calls = 0

    def backward_preprocess(self, function: Any, in_data: Any, out_grad: Any) -> None:
        self.calls += 1


def mixed_loss(W: Variable, b: Variable, x: Any, old_style: bool) -> Variable:
    """The small mixed graph: built-in, new-style, old-style and ctx nodes, a split and a slice."""
    h = tanh(linear(x, W, b))
    h, = Cube().apply((h,))
    h, = Halve().apply((h,))  # its output Variable is dropped at once: resurrected in backward
    if old_style:
        h = OldExpScale()(h)
    h = CtxSquare.apply(h)
    left, right = split_axis(h, 2, axis=1)
    return F.sum(left * right) + F.sum(h[:, ::2])


@dataclass
class SoakResult:
    iterations: int
    warmup: int
    seconds: float
    baseline_rss: int
    final_rss: int
    peak_rss: int
    samples: list[tuple[int, int]] = field(default_factory=list)

    @property
    def drift(self) -> int:
        return self.final_rss - self.baseline_rss


def resident_bytes() -> int:
    """Current resident set size of this process, in bytes (Linux /proc; else peak RSS)."""
    try:
        with open("/proc/self/statm") as stream:
            return int(stream.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource  # POSIX fallback: peak, not current, RSS

        scale = 1 if sys.platform == "darwin" else 1024
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def make_step(seed: int = 0) -> tuple[Callable[[int], None], Callable[[], None]]:
    """Returns ``step(i)`` running one iteration, and ``check()`` comparing gradients with the
    first."""
    rng = numpy.random.RandomState(seed)
    W = C.Parameter(rng.uniform(-0.5, 0.5, (6, 4)))
    b = C.Parameter(rng.uniform(-0.5, 0.5, (6,)))
    x = rng.uniform(-1, 1, (3, 4))
    hook = CountingHook()

    def gradients(old_style: bool) -> tuple[Any, Any]:
        W.cleargrad()
        b.cleargrad()
        mixed_loss(W, b, x, old_style).backward()
        return W.grad.copy(), b.grad.copy()

    reference = {flag: gradients(flag) for flag in (False, True)}

    def step(i: int) -> None:
        W.cleargrad()
        b.cleargrad()
        if i % 10 == 9:
            # Double backprop (the old-style node cannot take part in it).
            loss = mixed_loss(W, b, x, old_style=False)
            gW, = C.grad([loss], [W], enable_double_backprop=True)
            F.sum(gW * gW).backward()
        elif i % 1000 == 999:
            # A backward that fails halfway: the graph must still be freed.
            loss = F.sum(FlakyBackward().apply((mixed_loss(W, b, x, old_style=True),))[0])
            try:
                loss.backward()
            except _Expected:
                pass
        elif i % 100 == 50:
            with hook:
                mixed_loss(W, b, x, old_style=True).backward()
        else:
            mixed_loss(W, b, x, old_style=True).backward()

    def check() -> None:
        for flag, (gW_ref, gb_ref) in reference.items():
            gW, gb = gradients(flag)
            if not (numpy.array_equal(gW, gW_ref) and numpy.array_equal(gb, gb_ref)):
                raise AssertionError("gradients changed during the soak")

    return step, check


def soak(iterations: int, warmup: int = 20_000, sample_every: int = 10_000,
         collect_cycles: bool = False, report: Callable[[str], None] | None = None) -> SoakResult:
    """Runs the soak and returns its memory figures.

    Args:
        iterations: Measured iterations (after the warm-up).
        warmup: Iterations run before the baseline is taken (allocator caches fill up).
        sample_every: How often resident memory is sampled and gradients are re-checked.
        collect_cycles: Keep the cyclic garbage collector on (off by default, so cycles show).
        report: Called with a progress line at each sample.
    """
    step, check = make_step()
    was_enabled = gc.isenabled()
    gc.collect()
    if not collect_cycles:
        gc.disable()
    try:
        for i in range(warmup):
            step(i)
        baseline = peak = resident_bytes()
        samples = [(0, baseline)]
        start = time.perf_counter()
        for i in range(1, iterations + 1):
            step(i)
            if i % sample_every == 0 or i == iterations:
                check()
                rss = resident_bytes()
                peak = max(peak, rss)
                samples.append((i, rss))
                if report is not None:
                    report(f"{i:>9,d} iterations  rss {rss / MIB:8.2f} MiB  "
                           f"drift {(rss - baseline) / MIB:+.3f} MiB  "
                           f"{(time.perf_counter() - start) / i * 1e6:6.1f} us/iteration")
        seconds = time.perf_counter() - start
    finally:
        if was_enabled:
            gc.enable()
    return SoakResult(iterations, warmup, seconds, baseline, samples[-1][1], peak, samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--iterations", type=int, default=1_000_000)
    parser.add_argument("--warmup", type=int, default=20_000)
    parser.add_argument("--sample-every", type=int, default=10_000)
    parser.add_argument("--limit-mib", type=float, default=1.0,
                        help="fail (exit status 1) when the drift exceeds this")
    parser.add_argument("--gc", action="store_true", help="keep the cyclic collector on")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)

    result = soak(args.iterations, args.warmup, args.sample_every, args.gc,
                  report=lambda line: print(line, flush=True))
    drift_mib = result.drift / MIB
    print(f"\n{result.iterations:,d} iterations in {result.seconds:.1f} s "
          f"({result.seconds / result.iterations * 1e6:.1f} us each), "
          f"gc {'on' if args.gc else 'off'}")
    print(f"resident memory: baseline {result.baseline_rss / MIB:.2f} MiB, "
          f"final {result.final_rss / MIB:.2f} MiB, peak {result.peak_rss / MIB:.2f} MiB")
    print(f"drift: {drift_mib:+.3f} MiB (limit {args.limit_mib} MiB)")
    if args.json:
        with open(args.json, "w") as stream:
            json.dump(dict(asdict(result), drift=result.drift), stream, indent=2)
    return 0 if drift_mib < args.limit_mib else 1


if __name__ == "__main__":
    sys.exit(main())
