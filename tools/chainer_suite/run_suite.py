"""Runs Chainer 7.8.1's own test suite on Chainer and on chainer_compat, and lists the tests
that pass on Chainer but not here.

Chainer's tests are the most thorough statement of what Chainer does, and each one that
passes on Chainer 7.8.1 itself is a behaviour legacy code may rely on. This script runs the
same test files in two interpreters: Chainer 7.8.1's (which needs NumPy < 2, so its own
virtual environment) and this one, with ``import chainer`` giving chainer_compat. It compares
the two JUnit reports test by test. Chainer's tests are not part of this repository: check
them out yourself (see README.md beside this file).

    python tools/chainer_suite/run_suite.py --chainer-tests ~/src/chainer/tests \\
        --chainer-python /tmp/chvenv/bin/python functions_tests/math_tests test_variable.py

Exit status: 0 if every test that passes on Chainer passes here, 1 otherwise.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

# GPU, iDeep and ChainerX cases need what neither side has here.
MARKERS = "not gpu and not cudnn and not slow and not ideep and not chainerx and not multi_gpu"
PYTEST_INI = """[pytest]
markers =
    gpu
    cudnn
    slow
    ideep
    chainerx
    multi_gpu
    theano
pythonpath = {tests}
"""


def _run_side(python: str, plugin: str, extra_path: list[str], report: Path, log: Path,
              ini: Path, tests: Path, paths: list[str]) -> subprocess.Popen[bytes]:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(HERE), *extra_path]))
    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", plugin,
               "-c", str(ini), "--rootdir", str(tests), "--continue-on-collection-errors",
               "-m", MARKERS, f"--junitxml={report}", *paths]
    with open(log, "wb") as stream:
        return subprocess.Popen(command, cwd=tests, env=env, stdout=stream,
                                stderr=subprocess.STDOUT)


def _normalized(test_id: str) -> str:
    """A test id as both sides print it: NumPy 2 writes ``np.float32(0.6)``, objects print
    their module (``chainer_compat.links...``) and address, and random arrays their values."""
    test_id = test_id.replace("bool_", "bool").replace("chainer_compat.", "chainer.")
    test_id = re.sub(r"np\.[a-z0-9_]+\(([^()]*)\)", r"\1", test_id)
    # (NumPy 2 adds ``shape=(...)`` to a long array's repr: one level of parentheses inside.)
    test_id = re.sub(r"array\((?:[^()]|\([^()]*\))*\)", "array(...)", test_id)
    return re.sub(r"0x[0-9a-fA-F]+", "0x", test_id)


def _outcomes(report: Path) -> dict[str, tuple[str, str]]:
    """Test id -> (outcome, the last line of its error) from a JUnit report."""
    outcomes: dict[str, tuple[str, str]] = {}
    if not report.exists():
        return outcomes
    seen: collections.Counter[str] = collections.Counter()
    for case in ET.parse(report).getroot().iter("testcase"):
        outcome, reason = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = child.tag
                lines = [line[4:].strip() for line in (child.text or "").splitlines()
                         if line.startswith("E   ") and line[4:].strip()]
                causes = [line for line in lines
                          if "Parameterized test failed" not in line
                          and not line.startswith(("Base test method", "Test parameters"))]
                reason = (causes or lines or [child.get("message") or ""])[-1][:200]
            elif child.tag == "skipped":
                outcome = "skipped"
        # Ids that differ only in what _normalized drops (two random arrays) stay apart: both
        # sides run the tests in the same order, so the n-th of them is the same test.
        test_id = _normalized(f"{case.get('classname')}::{case.get('name')}")
        seen[test_id] += 1
        if seen[test_id] > 1:
            test_id += f" #{seen[test_id]}"
        outcomes[test_id] = (outcome, reason)
    return outcomes


def compare(chainer_report: Path, compat_report: Path) -> tuple[collections.Counter[str],
                                                                 dict[str, list[str]]]:
    """Counts of each pair of outcomes, and the tests Chainer passes but chainer_compat does
    not, grouped by the error they raise here."""
    on_chainer, on_compat = _outcomes(chainer_report), _outcomes(compat_report)
    counts: collections.Counter[str] = collections.Counter()
    differences: dict[str, list[str]] = collections.defaultdict(list)
    for test_id, (outcome, _) in on_chainer.items():
        if outcome != "passed":
            counts[f"not passing on Chainer ({outcome})"] += 1
            continue
        ours = on_compat.get(test_id)
        if ours is None:
            counts["passing on Chainer, not run here"] += 1
            differences["(not run here: collection error or another test id)"].append(test_id)
        elif ours[0] == "passed":
            counts["passing on both"] += 1
        else:
            counts[f"passing on Chainer, {ours[0]} here"] += 1
            differences[ours[1]].append(test_id)
    return counts, differences


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=["."],
                        help="test files or folders, relative to chainer_tests/ (default: all)")
    parser.add_argument("--chainer-tests", type=Path, required=True,
                        help="the tests/ folder of a Chainer 7.8.1 checkout")
    parser.add_argument("--chainer-python", default=os.environ.get("CHAINER_PYTHON"),
                        help="the interpreter that has Chainer 7.8.1 (default: $CHAINER_PYTHON)")
    parser.add_argument("--out", type=Path, help="folder for the reports and logs")
    parser.add_argument("--all", action="store_true", help="list every differing test")
    args = parser.parse_args(argv)
    if not args.chainer_python:
        parser.error("give --chainer-python (or set CHAINER_PYTHON)")
    tests = args.chainer_tests.resolve()
    if not (tests / "chainer_tests").is_dir():
        parser.error(f"{tests} has no chainer_tests/ folder: give the tests/ folder of a "
                     "Chainer checkout")
    out = args.out or Path(tempfile.mkdtemp(prefix="chainer_suite_"))
    out.mkdir(parents=True, exist_ok=True)
    ini = out / "pytest.ini"
    ini.write_text(PYTEST_INI.format(tests=tests))
    paths = [str(Path("chainer_tests") / path) for path in args.paths]

    sides = [("chainer", args.chainer_python, "chainer_plugin", []),
             ("compat", sys.executable, "compat_plugin", [str(ROOT)])]
    running = [_run_side(python, plugin, extra, out / f"{name}.xml", out / f"{name}.log",
                         ini, tests, paths) for name, python, plugin, extra in sides]
    for process in running:
        process.wait()

    counts, differences = compare(out / "chainer.xml", out / "compat.xml")
    for label, count in sorted(counts.items()):
        print(f"{count:7d}  {label}")
    for reason, test_ids in sorted(differences.items(), key=lambda item: -len(item[1])):
        print(f"\n{len(test_ids):5d} x {reason}")
        for test_id in test_ids if args.all else test_ids[:1]:
            print(f"        {test_id[:240]}")
    print(f"\nreports and logs: {out}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
