"""chainer_compat benchmark suite: every figure is a ratio to a NumPy floor timed in the same run.

The floor does the same arithmetic by hand, with no graph, in the same process, interleaved with
the measured code, so a noisy machine moves both. Each workload checks its gradients against the
floor's, so a fast wrong answer fails loudly.

    python benchmarks/run.py                  # all workloads, 5 repeats
    python benchmarks/run.py chain fan_in -r 9
    python benchmarks/run.py --json out.json  # also write the figures as JSON

Not a test: tests check behaviour, this reports numbers.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy

import chainer_compat as C
from chainer_compat import FunctionNode, Variable

WORKLOADS: dict[str, Callable[[int], Result]] = {}


@dataclass
class Result:
    """Medians (and spreads) of one workload: seconds per unit, floor and chainer_compat."""

    name: str
    unit: str
    per: int
    figures: dict[str, list[float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(self, key: str, seconds: float) -> None:
        self.figures.setdefault(key, []).append(seconds / self.per)

    def median(self, key: str) -> float:
        return statistics.median(self.figures[key])

    def spread(self, key: str) -> float:
        values = self.figures[key]
        return (max(values) - min(values)) / 2


def workload(name: str) -> Callable[[Callable[[int], Result]], Callable[[int], Result]]:
    def register(fn: Callable[[int], Result]) -> Callable[[int], Result]:
        WORKLOADS[name] = fn
        return fn
    return register


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def check_close(name: str, actual: Any, expected: Any, rtol: float = 1e-4) -> None:
    if not numpy.allclose(actual, expected, rtol=rtol, atol=1e-6):
        raise AssertionError(f"{name}: gradient differs from the floor's: {actual} vs {expected}")


# ------------------------------------------------------------------------------- workload 1
K = numpy.float32(0.999)
B = numpy.float32(0.001)


class Affine(FunctionNode):
    """y = K x + B, elementwise; backward written with Variable operators."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return x * K + B,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return grad_outputs[0] * K,


CHAIN_LENGTH = 20_000


@workload("chain")
def chain(repeats: int) -> Result:
    """(1) A 20,000-node chain of a custom elementwise FunctionNode on 1-element arrays."""
    n = CHAIN_LENGTH
    result = Result("chain", "us/node", n)
    for _ in range(repeats):
        x = numpy.ones(1, numpy.float32)

        def floor_forward() -> Any:
            h = x
            for _ in range(n):
                h = h * K + B
            return h

        def floor_backward() -> Any:
            g = numpy.ones(1, numpy.float32)
            for _ in range(n):
                g = g * K
            return g

        t, _ = timed(floor_forward)
        result.add("floor fwd", t)
        t, expected = timed(floor_backward)
        result.add("floor bwd", t)

        v = Variable(x.copy())

        def cc_forward() -> Any:
            h = v
            for _ in range(n):
                h, = Affine().apply((h,))
            return h

        t, y = timed(cc_forward)
        result.add("fwd", t)
        y.grad = numpy.ones(1, numpy.float32)
        t, _ = timed(y.backward)
        result.add("bwd", t)
        check_close("chain", v.grad, expected)
        del y
    return result


# ------------------------------------------------------------------------------- workload 4
H = numpy.float32(0.5)


class Mix(FunctionNode):
    """y = (a + b) / 2; backward written with Variable operators."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = inputs
        return (a + b) * H,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        g = grad_outputs[0] * H
        return g, g


FAN_IN_LENGTH = 10_000


@workload("fan_in")
def fan_in(repeats: int) -> Result:
    """(4) A fan-in DAG where each layer combines the two previous ones."""
    n = FAN_IN_LENGTH
    result = Result("fan_in", "us/node", n)
    for _ in range(repeats):
        def floor_forward() -> Any:
            prev, cur = numpy.ones(1, numpy.float32), numpy.ones(1, numpy.float32)
            for _ in range(n):
                prev, cur = cur, (prev + cur) * H
            return cur

        def floor_backward() -> Any:
            # grads[i] of layer i; layer i feeds layers i+1 and i+2.
            grads = [None] * (n + 2)
            grads[n + 1] = numpy.ones(1, numpy.float32)
            for i in range(n + 1, 1, -1):
                g = grads[i] * H
                for j in (i - 1, i - 2):
                    grads[j] = g if grads[j] is None else grads[j] + g
            return grads[0] + grads[1]

        t, _ = timed(floor_forward)
        result.add("floor fwd", t)
        t, expected = timed(floor_backward)
        result.add("floor bwd", t)

        x = Variable(numpy.ones(1, numpy.float32))

        def cc_forward() -> Any:
            prev, cur = x, x * 1.0
            for _ in range(n):
                out, = Mix().apply((prev, cur))
                prev, cur = cur, out
            return cur

        t, y = timed(cc_forward)
        result.add("fwd", t)
        y.grad = numpy.ones(1, numpy.float32)
        t, _ = timed(y.backward)
        result.add("bwd", t)
        check_close("fan_in", x.grad, expected)
        del y
    return result


# ------------------------------------------------------------------------------- report
def report(results: list[Result]) -> str:
    lines = [
        f"{'workload':<10} {'unit':<8} {'floor':>12} {'chainer_compat':>16} {'ratio':>7}",
    ]
    for r in results:
        if "floor fwd" in r.figures:
            floor = [a + b for a, b in zip(r.figures["floor fwd"], r.figures["floor bwd"])]
            ours = [a + b for a, b in zip(r.figures["fwd"], r.figures["bwd"])]
            f_med, o_med = statistics.median(floor), statistics.median(ours)
            scale = 1e6 if r.unit.startswith("us") else 1.0
            lines.append(
                f"{r.name:<10} {r.unit:<8} {f_med * scale:>8.2f}±{_spread(floor) * scale:<4.2f}"
                f"{o_med * scale:>11.2f}±{_spread(ours) * scale:<4.2f} {o_med / f_med:>6.2f}x")
            lines.append(
                f"{'':<10} {'':<8} fwd {r.median('floor fwd') * scale:.2f} / "
                f"{r.median('fwd') * scale:.2f}   bwd {r.median('floor bwd') * scale:.2f} / "
                f"{r.median('bwd') * scale:.2f}")
        for note in r.notes:
            lines.append(f"{'':<10} {note}")
    return "\n".join(lines)


def _spread(values: list[float]) -> float:
    return (max(values) - min(values)) / 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"workloads (default: all of {list(WORKLOADS)})")
    parser.add_argument("-r", "--repeats", type=int, default=5)
    parser.add_argument("--json", help="also write the raw figures to this file")
    args = parser.parse_args(argv)
    names = args.names or list(WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workloads {unknown}: choose from {list(WORKLOADS)}")
    results = []
    for name in names:
        gc.collect()
        results.append(WORKLOADS[name](args.repeats))
    print(f"chainer_compat {C.__version__}, numpy {numpy.__version__}, python "
          f"{sys.version.split()[0]}; medians of {args.repeats} repeats (± half the range)")
    print(report(results))
    if args.json:
        with open(args.json, "w") as out:
            json.dump({r.name: {"unit": r.unit, "per": r.per, "figures": r.figures,
                                "notes": r.notes} for r in results}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
