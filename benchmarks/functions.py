"""Forward + backward of Chainer's functions and links, one by one, in chainer_compat and Chainer.

``models.py`` times whole models; this times the parts: about 250 cases of
``chainer.functions`` and ``chainer.links`` (``function_cases.py``) on typical sizes, CPU,
float32 unless named otherwise. Each library runs every case in its own process, the two
alternating round by round; a case's figure is the median over rounds of its best repeat. The
table lists chainer_compat's time over Chainer's, slowest first, so the top rows are the ones
to look at; a case that fails in one library is listed below it.

    python benchmarks/functions.py --chainer-python /tmp/chvenv/bin/python      # about 10 min
    python benchmarks/functions.py --chainer-python PATH --only embed_id,linear -r 3
    python benchmarks/functions.py --only relu,linear                           # ours alone

Not a test: it reports numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

CASES_PY = Path(__file__).resolve().parent / "function_cases.py"


def _run(python: str, library: str, only: str | None, reps: int) -> dict[str, Any]:
    command = [python, str(CASES_PY), library, "--reps", str(reps)]
    if only:
        command += ["--only", only]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(output)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-r", "--rounds", type=int, default=2)
    parser.add_argument("--reps", type=int, default=5, help="repeats per case and round")
    parser.add_argument("--only", help="comma-separated case names (see function_cases.py)")
    parser.add_argument("--chainer-python", default=os.environ.get("BENCH_CHAINER_PYTHON"),
                        help="an interpreter with Chainer 7.8.1 (see benchmarks/README.md)")
    args = parser.parse_args()
    sides = [("chainer_compat", sys.executable)]
    if args.chainer_python:
        sides.append(("chainer", args.chainer_python))
    best: dict[str, dict[str, list[float]]] = {library: {} for library, _ in sides}
    errors: dict[str, dict[str, str]] = {library: {} for library, _ in sides}
    for round_index in range(args.rounds):
        for library, python in (sides if round_index % 2 == 0 else sides[::-1]):
            for name, figures in _run(python, library, args.only, args.reps).items():
                if "error" in figures:
                    errors[library][name] = figures["error"]
                else:
                    best[library].setdefault(name, []).append(figures["min"])
    ours = {name: statistics.median(times) for name, times in best["chainer_compat"].items()}
    theirs = {name: statistics.median(times) for name, times in best.get("chainer", {}).items()}
    print(f"ms forward + backward, median over {args.rounds} rounds of the best of {args.reps}")
    rows = sorted(ours, key=lambda name: -ours[name] / theirs[name] if name in theirs else 0)
    print(f"{'case':36s} {'chainer_compat':>15s} {'Chainer 7.8.1':>15s} {'ratio':>7s}")
    for name in rows:
        line = f"{name:36s} {ours[name]:15.3f}"
        if name in theirs:
            line += f" {theirs[name]:15.3f} {ours[name] / theirs[name]:7.2f}"
        print(line)
    for library, failed in errors.items():
        for name, error in sorted(failed.items()):
            print(f"{library} failed {name}: {error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
