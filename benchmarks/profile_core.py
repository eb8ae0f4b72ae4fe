"""Where the microseconds of apply and the engine go: cProfile by function, callgrind by phase,
bytecodes by line.

    python benchmarks/profile_core.py cprofile [chain|old_style|ctx|fan_in] [-n 20000]
    python benchmarks/profile_core.py callgrind [-n 2000] [--top 12]
    python benchmarks/profile_core.py bytecodes [chain|old_style|ctx|fan_in] [-n 200]

``cprofile`` profiles the forward pass (apply) and the backward pass (the engine) of one workload
separately and lists the functions by own time per node. ``callgrind`` runs the workloads under
``valgrind --tool=callgrind`` and prints instructions per node for each phase (floor and
chainer_compat, forward and backward, and freeing the graph): instruction counts do not move
with the machine's load, so they are the figures to compare before and after a change.
``bytecodes`` counts the bytecode instructions the interpreter executes per node, by function and
by source line, in the forward and the backward of one workload: exact and repeatable like
callgrind's counts, with no valgrind, and at the level of the Python lines that callgrind cannot
see (its counts lie in the interpreter's C functions). Imports ``run`` (the workloads) and
``bench_spec``; needs valgrind on PATH for ``callgrind``.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import gc
import glob
import linecache
import os
import pstats
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import bench_spec  # noqa: E402
import run  # noqa: E402

from chainer_compat import Variable  # noqa: E402


# ======================================================================== the phases, by hand
def _chain_forward(kind: str, n: int) -> Callable[[], tuple[Variable, Variable]]:
    """A function building an n-node chain of one kind; returns (x, y)."""
    def forward() -> tuple[Variable, Variable]:
        x = Variable(numpy.ones(1, numpy.float32))
        h = x
        if kind == "chain":
            for _ in range(n):
                h, = run.Affine().apply((h,))
        elif kind == "old_style":
            for _ in range(n):
                h = run.AffineOldStyle()(h)
        elif kind == "ctx":
            affine = run.ctx_affine()
            for _ in range(n):
                h = affine.apply(h)
        else:
            previous, current = x, x * 1.0
            for _ in range(n):
                out, = run.Mix().apply((previous, current))
                previous, current = current, out
            h = current
        return x, h
    return forward


def _floor_phases(kind: str, n: int) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """The floor's forward and backward of the chain (or fan-in), as two calls."""
    if kind == "fan_in":
        return (functools.partial(bench_spec.fan_in_floor_forward, n),
                functools.partial(bench_spec.fan_in_floor_backward, n))
    return (functools.partial(bench_spec.chain_floor_forward, n),
            functools.partial(bench_spec.chain_floor_backward, n))


# ================================================================================== cProfile
def profile_with_cprofile(kind: str, n: int, top: int) -> None:
    forward = _chain_forward(kind, n)
    forward()  # warm-up: classes, caches
    gc.collect()
    for phase in ("forward (apply)", "backward (engine)"):
        profiler = cProfile.Profile()
        if phase.startswith("forward"):
            profiler.enable()
            x, y = forward()
            profiler.disable()
        else:
            x, y = forward()
            y.grad = numpy.ones(1, numpy.float32)
            gc.collect()
            profiler.enable()
            y.backward()
            profiler.disable()
        del x, y
        gc.collect()
        # Stats.stats is the raw table (undocumented, but stable since Python 2; typeshed omits it).
        stats: Any = pstats.Stats(profiler)
        total = sum(row[2] for row in stats.stats.values())  # own times add up to the total
        print(f"\n{kind} {phase}: {total / n * 1e6:.2f} us/node under cProfile "
              f"(cProfile adds its own cost to every call; compare shares, not totals)")
        print(f"{'own us/node':>12} {'share':>6} {'calls/node':>11}  function")
        rows = sorted(stats.stats.items(), key=lambda item: item[1][2], reverse=True)
        for (filename, line, name), (_, calls, own, _, _) in rows[:top]:
            where = f"{_short(filename)}:{line}" if line else "~"
            print(f"{own / n * 1e6:>12.3f} {own / total:>6.1%} {calls / n:>11.2f}  "
                  f"{name} ({where})")


# ================================================================================= bytecodes
def profile_bytecodes(kind: str, n: int, top: int) -> None:
    """Prints the bytecodes executed per node in the forward and backward of one workload.

    A trace function with ``f_trace_opcodes`` set is called before every bytecode instruction
    of every frame, so the counts are exact: what the interpreter executes, whatever the
    machine's load (the instructions each bytecode costs still differ, so the counts say where
    the Python-level work is, and callgrind how much it costs).
    """
    forward = _chain_forward(kind, n)
    run._backward(forward()[1])  # warm-up: classes, caches, first-call paths
    for phase in ("forward (apply)", "backward (engine)"):
        if phase.startswith("forward"):
            by_line = _count_bytecodes(forward)
        else:
            _, y = forward()
            y.grad = numpy.ones(1, numpy.float32)
            by_line = _count_bytecodes(y.backward)
            del y
        by_function: dict[tuple[str, str], int] = {}
        for (filename, _, name), count in by_line.items():
            by_function[filename, name] = by_function.get((filename, name), 0) + count
        total = sum(by_line.values())
        print(f"\n{kind} {phase}: {total / n:.1f} bytecodes per node")
        print(f"{'per node':>9}  function")
        for (filename, name), count in sorted(by_function.items(), key=lambda item: -item[1]):
            if count / n >= 0.5:
                print(f"{count / n:>9.1f}  {name} ({_short(filename)})")
        print(f"{'per node':>9}  the {top} busiest lines")
        for (filename, line, _), count in sorted(by_line.items(), key=lambda item: -item[1])[:top]:
            source = linecache.getline(filename, line).strip()
            print(f"{count / n:>9.1f}  {_short(filename)}:{line}  {source[:70]}")


def _count_bytecodes(call: Callable[[], Any]) -> dict[tuple[str, int, str], int]:
    """Runs ``call``; returns the bytecodes it executed by (file, line, function)."""
    by_line: dict[tuple[str, int, str], int] = {}

    def trace(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        if event == "opcode":
            code = frame.f_code
            key = (code.co_filename, frame.f_lineno or 0, code.co_name)
            by_line[key] = by_line.get(key, 0) + 1
        return trace

    # CPython 3.12.1 sends no opcode events in a process's first sys.settrace session that
    # turns them on, so a throwaway session turns them on first.
    sys.settrace(trace)
    (lambda: None)()
    sys.settrace(None)
    by_line.clear()
    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(None)
    return by_line


def _short(filename: str) -> str:
    parts = Path(filename).parts
    for anchor in ("chainer_compat", "benchmarks"):
        if anchor in parts:
            return "/".join(parts[parts.index(anchor):])
    return Path(filename).name


# ================================================================================= callgrind
# Each os.getppid() makes callgrind dump the counts since the previous dump (--dump-before),
# so the instructions of each phase land in a file of their own.
PHASES = [
    ("floor chain fwd", "chain"), ("floor chain bwd", "chain"),
    ("FunctionNode fwd", "chain"), ("FunctionNode bwd", "chain"), ("FunctionNode free", "chain"),
    ("old-style fwd", "old_style"), ("old-style bwd", "old_style"),
    ("old-style free", "old_style"),
    ("ctx fwd", "ctx"), ("ctx bwd", "ctx"), ("ctx free", "ctx"),
    ("floor fan-in fwd", "fan_in"), ("floor fan-in bwd", "fan_in"),
    ("fan-in fwd", "fan_in"), ("fan-in bwd", "fan_in"), ("fan-in free", "fan_in"),
]


def run_phases(n: int) -> None:
    """The phases of PHASES in order, each between two markers (runs under callgrind)."""
    kinds = ["chain", "old_style", "fan_in"]
    if run._autograd is not None:
        kinds.insert(2, "ctx")
    for kind in kinds:  # warm-up at a small size: classes, caches, first-call paths
        _, y = _chain_forward(kind, 50)()
        run._backward(y)
        for phase in _floor_phases(kind, 50):
            phase()
    marker = os.getppid
    gc.collect()
    gc.disable()  # a collection would land in whichever phase happened to trigger it
    marker()
    for kind in ("chain", "old_style", "ctx", "fan_in"):
        if kind in ("chain", "fan_in"):
            for phase in _floor_phases(kind, n):
                phase()
                marker()
        if kind not in kinds:
            for _ in range(3):
                marker()  # empty phases keep the numbering
            continue
        x, y = _chain_forward(kind, n)()
        marker()
        run._backward(y)
        marker()
        del x, y
        marker()


def profile_with_callgrind(n: int, top: int) -> int:
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("callgrind needs valgrind: apt-get install valgrind", file=sys.stderr)
        return 2
    directory = tempfile.mkdtemp(prefix="callgrind-")
    environment = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0")
    command = [valgrind, "--tool=callgrind", "--dump-before=getppid",
               f"--callgrind-out-file={directory}/out.%p",
               os.path.realpath(sys.executable), str(Path(__file__).resolve()), "phases",
               "-n", str(n)]
    print("running:", " ".join(command[:4]), "python profile_core.py phases -n", n,
          "(OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0)", flush=True)
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(done.stderr[-3000:], file=sys.stderr)
        return done.returncode
    dumps = sorted(glob.glob(f"{directory}/out.*.*"), key=lambda p: int(p.rsplit(".", 1)[1]))
    # Dump 1 is the start-up and warm-up; then one dump per phase.
    counts = [_instructions(path) for path in dumps[1:1 + len(PHASES)]]
    if len(counts) != len(PHASES):
        print(f"expected {len(PHASES)} phase dumps, got {len(counts)} in {directory}",
              file=sys.stderr)
        return 1
    by_phase = dict(zip((name for name, _ in PHASES), counts, strict=True))
    print(f"\ninstructions per node (n = {n}; ratio to the floor's forward+backward)")
    floors = {"chain": by_phase["floor chain fwd"] + by_phase["floor chain bwd"],
              "fan_in": by_phase["floor fan-in fwd"] + by_phase["floor fan-in bwd"]}
    for name, kind in PHASES:
        floor = floors["fan_in" if kind == "fan_in" else "chain"]
        count = by_phase[name]
        ratio = f"{count / floor:6.2f}x" if count and not name.startswith("floor") else ""
        print(f"  {name:<20} {count / n:>10,.0f} {ratio}")
    for kind, label in (("chain", "FunctionNode"), ("old_style", "old-style"), ("ctx", "ctx"),
                        ("fan_in", "fan-in")):
        total = by_phase[f"{label} fwd"] + by_phase[f"{label} bwd"]
        if total:
            floor = floors["fan_in" if kind == "fan_in" else "chain"]
            print(f"  {label + ' fwd+bwd':<20} {total / n:>10,.0f} {total / floor:6.2f}x")
    annotate = shutil.which("callgrind_annotate")
    if annotate is not None:
        for name in ("FunctionNode fwd", "FunctionNode bwd"):
            path = dumps[1 + [phase for phase, _ in PHASES].index(name)]
            rows = _own_costs(annotate, path, by_phase[name])
            print(f"\n{name}: own instructions per node, by kind of work")
            buckets: dict[str, int] = {}
            for own, function, library in rows:
                bucket = _bucket(function, library)
                buckets[bucket] = buckets.get(bucket, 0) + own
            for bucket, own in sorted(buckets.items(), key=lambda item: -item[1]):
                print(f"  {own / n:>8,.0f}  {own / by_phase[name]:>6.1%}  {bucket}")
            print(f"{name}: top C functions by own instructions per node")
            for own, function, library in rows[:top]:
                print(f"  {own / n:>8,.0f}  {own / by_phase[name]:>6.1%}  {function} [{library}]")
    print(f"\ndumps kept in {directory} (callgrind_annotate FILE for more)")
    return 0


def _instructions(path: str) -> int:
    with open(path) as dump:
        for line in dump:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    return 0


_BUCKETS = [
    ("NumPy (ufunc dispatch, array creation, scalars)", "library", ("_multiarray_umath",)),
    ("bytecode evaluation (_PyEval_EvalFrameDefault)", "function", ("_PyEval_EvalFrameDefault",)),
    ("object allocation and freeing (malloc, dealloc, GC link)", "function",
     ("alloc", "Alloc", "free", "Free", "dealloc", "Dealloc", "GC_", "NewReference", "clear_slots",
      "memset", "memcpy", "weakref", "Weakref")),
    ("attribute, type and dict lookups", "function",
     ("Lookup", "lookup", "GetAttr", "getattr", "SetAttr", "setattr", "IsSubtype", "dict", "Dict",
      "slot_tp", "descr")),
    ("calls (vectorcall, argument handling)", "function",
     ("call", "Call", "vectorcall", "Vectorcall", "args", "Args", "method")),
]


def _bucket(function: str, library: str) -> str:
    for name, kind, needles in _BUCKETS:
        text = library if kind == "library" else function
        if any(needle in text for needle in needles):
            return name
    return "other (tuples, numbers, libc...)"


def _own_costs(annotate: str, path: str, total: int) -> list[tuple[int, str, str]]:
    """(own instructions, function, library) of one dump, largest first.

    A dump taken mid-run also lists the frames that were on the stack with the whole phase
    as their cost (main, the eval of the script...): rows at the phase's total are skipped.
    """
    text = subprocess.run([annotate, "--inclusive=no", "--threshold=100", path],
                          capture_output=True, text=True, check=False).stdout
    rows = []
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(\S+?):(\S+)(?:\s+\[(.*)\])?\s*$", line)
        if not match:
            continue
        own = int(match.group(1).replace(",", ""))
        if own >= total * 0.99:
            continue
        library = Path(match.group(4) or match.group(2)).name
        library = re.sub(r"\.cpython-.*", "", library)
        if library.endswith((".h", ".c")):  # inlined from CPython's headers
            library = "libpython"
        rows.append((own, match.group(3), library))
    return sorted(rows, reverse=True)


# ====================================================================================== main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("tool", choices=["cprofile", "callgrind", "bytecodes", "phases"])
    parser.add_argument("workload", nargs="?", default="chain",
                        choices=["chain", "old_style", "ctx", "fan_in"])
    parser.add_argument("-n", type=int, default=None,
                        help="nodes (default 20000 for cprofile, 2000 for callgrind, 200 for "
                             "bytecodes)")
    parser.add_argument("--top", type=int, default=15, help="functions (or lines) to list")
    args = parser.parse_args(argv)
    if args.tool == "cprofile":
        profile_with_cprofile(args.workload, args.n or 20_000, args.top)
        return 0
    if args.tool == "bytecodes":
        profile_bytecodes(args.workload, args.n or 200, args.top)
        return 0
    if args.tool == "phases":
        run_phases(args.n or 2_000)
        return 0
    return profile_with_callgrind(args.n or 2_000, args.top)


if __name__ == "__main__":
    sys.exit(main())
