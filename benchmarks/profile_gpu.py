"""Where the host time of a CuPy train step goes: launch cost, per-function timings, cProfile.

    python benchmarks/profile_gpu.py [--xp numpy|cupy] [--quick] [--top 30]

On a GPU most of chainer_compat's cost is kernel launches and the Python around them, not the
kernels: a CuPy launch costs the host microseconds whatever the array's size. This prints, for
workload (6)'s MLP step and its parts, the wall time per call with the device synchronised once
per batch of calls (so it is the host's throughput, as in a training loop), ours next to the
floor's same arithmetic, then a cProfile of the step by own time. ``--xp numpy`` runs the same
on the CPU, for comparison and as a smoke test where there is no CUDA device.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import bench_spec  # noqa: E402
import run  # noqa: E402

import chainer_compat as C  # noqa: E402
import chainer_compat.functions as F  # noqa: E402


def per_call_us(fn: Callable[[], Any], synchronize: Callable[[], None], calls: int,
                rounds: int = 5) -> float:
    """Median over rounds of the wall time per call, synchronising after each round."""
    times = []
    for _ in range(rounds):
        fn()
        synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        synchronize()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--xp", choices=("cupy", "numpy"), default="cupy")
    parser.add_argument("--quick", action="store_true", help="tiny sizes and few calls")
    parser.add_argument("--top", type=int, default=30, help="cProfile rows to print")
    args = parser.parse_args(argv)

    if args.xp == "cupy":
        import cupy as xp

        synchronize = xp.cuda.Device().synchronize
    else:
        xp = numpy

        def synchronize() -> None:
            pass

    sizes = bench_spec.QUICK if args.quick else bench_spec.FULL
    calls = 5 if args.quick else 200

    def report(what: str, fn: Callable[[], Any], floor: Callable[[], Any] | None = None,
               per: int = 1, n: int = calls) -> None:
        ours = per_call_us(fn, synchronize, n) / per
        line = f"{what:<44} {ours:9.1f} us"
        if floor is not None:
            floor_us = per_call_us(floor, synchronize, n) / per
            line += f"   floor {floor_us:9.1f} us   ratio {ours / floor_us:5.2f}x"
        print(line)

    print(f"chainer_compat on {xp.__name__} {xp.__version__}; sizes "
          f"{'QUICK' if args.quick else 'FULL'}; wall time per call, host throughput")
    small = xp.ones(10, numpy.float32)
    report("one launch (10-element a += 1)", lambda: small.__iadd__(1))

    x, t, arrays = bench_spec.mlp_data(sizes, xp)
    floor_params = [a.copy() for a in arrays]
    params = [C.Parameter(a.copy()) for a in arrays]
    step = run.mlp_step(x, t, params)
    steps = max(calls // 4, 2)
    report("MLP train step", step, lambda: bench_spec.mlp_floor_step(x, t, floor_params),
           n=steps)
    with C.using_config("type_check", False):
        report("MLP train step, type_check off", step, n=steps)

    w, b = params[0], params[1]
    report("F.linear forward (first layer)", lambda: F.linear(x, w, b),
           lambda: x.dot(w.array.T).__iadd__(b.array))
    hidden = C.Variable(xp.asarray(numpy.random.default_rng(0).standard_normal(
        (sizes.mlp_batch, sizes.mlp_units[1])).astype(numpy.float32)))
    report("F.relu forward", lambda: F.relu(hidden), lambda: xp.maximum(hidden.array, 0))

    def relu_both() -> None:
        hidden.cleargrad()
        y = F.relu(hidden)
        y.grad = xp.ones_like(y.array)
        y.backward()

    report("F.relu forward + backward", relu_both)
    logits = C.Variable(xp.asarray(numpy.random.default_rng(1).standard_normal(
        (sizes.mlp_batch, sizes.mlp_units[-1])).astype(numpy.float32)))
    report("F.softmax_cross_entropy forward", lambda: F.softmax_cross_entropy(logits, t))

    def loss_both() -> None:
        logits.cleargrad()
        F.softmax_cross_entropy(logits, t).backward()

    report("F.softmax_cross_entropy forward + backward", loss_both)
    one = C.Variable(xp.ones(1, numpy.float32))
    length = 100

    def chain() -> None:
        h = one
        for _ in range(length):
            h = h * 2.0
        h.grad = xp.ones(1, numpy.float32)
        h.backward()

    report(f"chain of {length} 'h * 2.0' nodes, per node", chain, per=length,
           n=max(calls // 10, 2))

    profile = cProfile.Profile()
    profile.enable()
    for _ in range(steps):
        step()
    synchronize()
    profile.disable()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(args.top)
    print(f"\ncProfile of {steps} MLP steps, by own time:")
    print(text.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
