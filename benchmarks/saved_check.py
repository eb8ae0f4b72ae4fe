"""What the saved-array version check costs: the chain of workload (1), retaining its input.

Each round times, interleaved: the NumPy floor; the chain with the check on (the default once
``chainer_compat.autograd`` is imported); the same chain with the no-op stand-in put back (check
off); and the chain of a node that retains nothing. The difference between on and off is the
check's cost per node (a record taken as forward returns, a comparison as backward reads the
array). Gradients are checked against the floor's.

    python benchmarks/saved_check.py            # 20,000 nodes, 7 rounds
    python benchmarks/saved_check.py -n 2000 -r 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
from typing import Any

import numpy

import chainer_compat.autograd  # noqa: F401  installs the checker
from chainer_compat import FunctionNode, Variable
from chainer_compat import function_node as function_node_module

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import bench_spec  # noqa: E402  (the benchmarks folder is not a package)

K, B = bench_spec.K, bench_spec.B


class AffineRetaining(FunctionNode):
    """y = K x + B, retaining x and reading it back in backward (the gradient is unchanged)."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return inputs[0] * K + B,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        self.get_retained_inputs()
        return grad_outputs[0] * K,


class Affine(FunctionNode):
    """The same node retaining nothing: what the chain costs without anything to check."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return inputs[0] * K + B,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return grad_outputs[0] * K,


def chain_seconds(node_class: type[FunctionNode], n: int, expected: Any) -> float:
    """Forward+backward seconds of an n-node chain; checks the gradient."""
    x = Variable(numpy.ones(1, numpy.float32))

    def forward() -> Variable:
        h = x
        for _ in range(n):
            h, = node_class().apply((h,))
        return h

    forward_seconds, y = bench_spec.timed(forward)
    y.grad = numpy.ones(1, numpy.float32)
    backward_seconds, _ = bench_spec.timed(y.backward)
    bench_spec.check_close(node_class.__name__, x.grad, expected)
    return forward_seconds + backward_seconds


def measure(n: int, rounds: int) -> dict[str, float]:
    """Median microseconds per node of the floor and of the three chains."""
    checker = function_node_module._saved_arrays
    if checker is function_node_module._NoSavedArrayChecks:
        raise RuntimeError("chainer_compat.autograd did not install the saved-array checker")
    figures: dict[str, list[float]] = {"floor": [], "check on": [], "check off": [],
                                       "nothing retained": []}
    for _ in range(rounds + 1):  # the first round warms up and is dropped
        times, expected = bench_spec.chain_floor(n)
        round_figures = {"floor": times["fwd"] + times["bwd"],
                         "check on": chain_seconds(AffineRetaining, n, expected)}
        function_node_module._saved_arrays = function_node_module._NoSavedArrayChecks
        try:
            round_figures["check off"] = chain_seconds(AffineRetaining, n, expected)
        finally:
            function_node_module._saved_arrays = checker
        round_figures["nothing retained"] = chain_seconds(Affine, n, expected)
        for key, seconds in round_figures.items():
            figures[key].append(seconds / n * 1e6)
    return {key: statistics.median(values[1:]) for key, values in figures.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20_000, help="nodes in the chain")
    parser.add_argument("-r", "--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    figures = measure(args.n, args.rounds)
    print(f"{args.n}-node chain, medians of {args.rounds} rounds, us per node forward+backward")
    for key, value in figures.items():
        print(f"  {key:<17} {value:6.2f}  ({value / figures['floor']:.2f}x the floor)")
    print(f"  the check costs {figures['check on'] - figures['check off']:+.2f} us per node "
          "(one 1-element array recorded and compared)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
