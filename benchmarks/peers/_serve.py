"""The loop every peer driver runs: one workload round per JSON request, or one memory probe.

Imports only the standard library and ``bench_spec`` (NumPy), so it runs in any peer's venv.
``--serve`` answers JSON lines on stdin/stdout until stdin closes; ``--memory NAME --sizes JSON``
measures one pass of workload NAME in this fresh process and prints its peak as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench_spec

Round = Callable[[bench_spec.Sizes], dict[str, Any]]


class Unavailable(Exception):
    """The peer has no counterpart of this workload (e.g. Chainer has no ctx Function)."""


def serve(version: str, rounds: dict[str, Round],
          memory: dict[str, Callable[[bench_spec.Sizes], dict[str, Any]]],
          argv: list[str] | None = None) -> int:
    """Runs the driver's command line (see the module docstring)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("--memory")
    parser.add_argument("--sizes")
    parser.add_argument("--clock", choices=sorted(bench_spec.CLOCKS), default="cpu")
    parser.add_argument("--fresh-pages", action="store_true")
    args = parser.parse_args(argv)
    bench_spec.set_clock(args.clock)
    if args.memory:
        sizes = bench_spec.Sizes.from_dict(json.loads(args.sizes))
        print(json.dumps(memory[args.memory](sizes)))
        return 0
    if not args.fresh_pages:
        bench_spec.keep_freed_memory()  # as run.py does
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if request["command"] == "hello":
                answer: dict[str, Any] = {"version": version}
            else:
                sizes = bench_spec.Sizes.from_dict(request["sizes"])
                name = request["workload"]
                if name not in rounds:
                    raise Unavailable(f"no counterpart of workload {name!r} in this peer")
                answer = {"figures": rounds[name](sizes)}
        except Unavailable as why:
            answer = {"unavailable": str(why)}
        except Exception as error:  # reported to run.py, which records the failure
            answer = {"error": f"{type(error).__name__}: {error}\n{traceback.format_exc()}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


class References:
    """The floor's gradients, computed once per size in the peer's own interpreter."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, bench_spec.Sizes], Any] = {}

    def get(self, key: str, sizes: bench_spec.Sizes, make: Callable[[], Any]) -> Any:
        if (key, sizes) not in self.values:
            self.values[(key, sizes)] = make()
        return self.values[(key, sizes)]

    def chain(self, sizes: bench_spec.Sizes) -> Any:
        return self.get("chain", sizes, lambda: bench_spec.chain_floor(sizes.chain)[1])

    def fan_in(self, sizes: bench_spec.Sizes) -> Any:
        return self.get("fan_in", sizes, lambda: bench_spec.fan_in_floor(sizes.fan_in)[1])

    def big_input(self, sizes: bench_spec.Sizes) -> Any:
        return self.get("big_input", sizes, lambda: bench_spec.big_input(sizes))

    def elementwise(self, sizes: bench_spec.Sizes) -> Any:
        return self.get("elementwise", sizes, lambda: bench_spec.big_floor(
            self.big_input(sizes), sizes.big_nodes)[1])

    def mlp_data(self, sizes: bench_spec.Sizes) -> Any:
        return self.get("mlp_data", sizes, lambda: bench_spec.mlp_data(sizes))

    def mlp(self, sizes: bench_spec.Sizes) -> Any:
        def make() -> Any:
            x, t, arrays = self.mlp_data(sizes)
            return bench_spec.mlp_floor(x, t, [a.copy() for a in arrays], sizes.mlp_steps)[1]
        return self.get("mlp", sizes, make)

    def check_mlp(self, sizes: bench_spec.Sizes, grads: list[Any]) -> None:
        for index, (grad, expected) in enumerate(zip(grads, self.mlp(sizes))):
            bench_spec.check_close(f"mlp param {index}", grad, expected, rtol=1e-3, atol=1e-5)
