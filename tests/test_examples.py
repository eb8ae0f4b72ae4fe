"""The examples run as a user runs them: in a fresh interpreter, through ``python -m
chainer_compat`` (the README's main-job command), and the porting report finds nothing missing."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
LEGACY = REPOSITORY / "examples" / "legacy_spiral_mlp.py"
TRAINER = REPOSITORY / "examples" / "legacy_train_shapes.py"
# The legacy examples have their own, stricter tests below.
EXAMPLES = sorted(path for path in (REPOSITORY / "examples").glob("*.py")
                  if path not in (LEGACY, TRAINER))


# A guard against a hung example, not a timing check: an example takes seconds, but one run on a
# heavily loaded machine once needed more than 120.
TIMEOUT_SECONDS = 600


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPOSITORY), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, check=False,
                          capture_output=True, text=True, timeout=TIMEOUT_SECONDS)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
def test_example_runs_under_the_runner(example, tmp_path):
    finished = run(["-m", "chainer_compat", str(example)], cwd=tmp_path)
    assert finished.returncode == 0, finished.stdout[-2000:] + finished.stderr[-4000:]


def test_legacy_example_trains_to_its_stated_accuracy_and_writes_the_graph(tmp_path):
    finished = run(["-m", "chainer_compat", str(LEGACY), "--out", "out"], cwd=tmp_path)
    assert finished.returncode == 0, finished.stdout[-2000:] + finished.stderr[-4000:]

    epochs = re.findall(r"^epoch +(\d+)/(\d+) \[[= ]+\] loss ([\d.]+)  test accuracy ([\d.]+)$",
                        finished.stdout, re.MULTILINE)
    assert [int(epoch) for epoch, _, _, _ in epochs] == list(range(1, 31))
    losses = [float(loss) for _, _, loss, _ in epochs]
    assert losses[-1] < losses[0] / 10
    stated = float(re.search(r"^TARGET_ACCURACY = ([\d.]+)$", LEGACY.read_text(), re.MULTILINE)[1])
    final_accuracy = float(epochs[-1][3])
    assert final_accuracy >= stated
    assert f"OK: test accuracy {final_accuracy:.3f} reaches the target {stated:.2f}" \
        in finished.stdout

    dot = (tmp_path / "out" / "graph.dot").read_text()
    assert dot.startswith("digraph")
    for label in ("LeakyReLU", "SoftmaxCrossEntropy", "MatMul", "W1: (2, 64), float32",
                  "loss: float32"):
        assert label in dot
    png = tmp_path / "out" / "graph.png"
    if shutil.which("dot"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert not png.exists()


@pytest.mark.gpu
def test_legacy_example_trains_on_a_cuda_device(cupy, tmp_path):
    # Its old-style LeakyReLU takes forward_gpu/backward_gpu (cuda.elementwise) there.
    finished = run(["-m", "chainer_compat", str(LEGACY), "--out", "out", "--gpu", "0"],
                   cwd=tmp_path)
    assert finished.returncode == 0, finished.stdout[-2000:] + finished.stderr[-4000:]
    assert "OK: test accuracy" in finished.stdout


def test_legacy_example_fails_loudly_below_its_accuracy(tmp_path):
    # One epoch at a tiny learning rate cannot reach the target: the example must say so.
    finished = run(["-m", "chainer_compat", str(LEGACY), "--out", "out", "--epoch", "1",
                    "--lr", "0.0001"], cwd=tmp_path)
    assert finished.returncode == 1
    assert "FAILED: test accuracy" in finished.stdout


def test_porting_report_on_the_legacy_example_finds_everything(tmp_path):
    finished = run(["-m", "chainer_compat", "check", "--json", str(LEGACY)], cwd=tmp_path)
    assert finished.returncode == 0, finished.stderr
    report = json.loads(finished.stdout)
    names = {row["name"]: row for row in report["names"]}
    for legacy_name in ("chainer.Function", "chainer.FunctionNode", "chainer.Parameter",
                        "chainer.Variable", "chainer.cuda.elementwise",
                        "chainer.computational_graph.build_computational_graph"):
        assert names[legacy_name]["supported"] is True, legacy_name
    assert report["summary"]["supported"] == report["summary"]["total"]
    text = run(["-m", "chainer_compat", "check", str(LEGACY)], cwd=tmp_path)
    assert "Verdict: ready." in text.stdout


def _report_rows(stdout: str) -> list[list[str]]:
    # PrintReport starts each line with the terminal's "erase below" sequence, as Chainer's does.
    return [line.replace("\x1b[J", "").split() for line in stdout.splitlines()
            if line.startswith("\x1b[J")]


def test_trainer_example_trains_reports_logs_snapshots_and_resumes(tmp_path):
    finished = run(["-m", "chainer_compat", str(TRAINER), "--out", "out"], cwd=tmp_path)
    assert finished.returncode == 0, finished.stdout[-2000:] + finished.stderr[-4000:]

    header = ["epoch", "main/loss", "validation/main/loss", "main/accuracy",
              "validation/main/accuracy", "lr"]
    assert header == finished.stdout.split("\n", 1)[0].split()
    rows = _report_rows(finished.stdout)
    assert [int(row[0]) for row in rows] == [1, 2, 3, 4, 5, 6]
    # ExponentialShift('lr', 0.7) every 2 epochs, from 0.05: observe_lr reads it each epoch.
    assert [float(row[5]) for row in rows] == pytest.approx(
        [0.05, 0.05, 0.035, 0.035, 0.0245, 0.0245])
    log = json.loads((tmp_path / "out" / "log").read_text())
    assert [entry["epoch"] for entry in log] == [1, 2, 3, 4, 5, 6]
    assert [entry["iteration"] for entry in log] == [30 * epoch for epoch in range(1, 7)]
    assert log[-1]["main/loss"] < log[0]["main/loss"] / 4
    stated = float(re.search(r"^TARGET_ACCURACY = ([\d.]+)$", TRAINER.read_text(),
                             re.MULTILINE)[1])
    assert log[-1]["validation/main/accuracy"] >= stated
    assert "OK: validation accuracy" in finished.stdout

    snapshot = tmp_path / "out" / "snapshot_iter_180"
    assert snapshot.exists()
    resumed = run(["-m", "chainer_compat", str(TRAINER), "--out", "out", "--epoch", "7",
                   "--resume", str(snapshot)], cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-4000:]
    # The resumed run starts at iteration 180 with the log and learning rate it saved.
    assert [int(row[0]) for row in _report_rows(resumed.stdout)] == [1, 2, 3, 4, 5, 6, 7]
    log = json.loads((tmp_path / "out" / "log").read_text())
    assert [entry["iteration"] for entry in log][-2:] == [180, 210]
    assert log[-1]["lr"] == pytest.approx(0.05 * 0.7 ** 3)


def test_trainer_example_snapshot_has_chainers_keys(tmp_path):
    """The snapshot's NPZ keys are those Chainer 7.8.1 writes for the same script, so snapshots
    move between the two in both directions. The list was read from a snapshot Chainer 7.8.1
    wrote running this example (tests/data/shapes_snapshot_keys.txt)."""
    finished = run(["-m", "chainer_compat", str(TRAINER), "--out", "out", "--epoch", "1"],
                   cwd=tmp_path)
    # One epoch is too short for the target accuracy (exit status 1), not for the snapshot.
    assert finished.returncode in (0, 1), finished.stdout[-2000:] + finished.stderr[-4000:]
    assert "validation accuracy" in finished.stdout
    import numpy
    with numpy.load(tmp_path / "out" / "snapshot_iter_30") as saved:
        ours = sorted(saved.files)
    chainers = (REPOSITORY / "tests" / "data" / "shapes_snapshot_keys.txt").read_text().split()
    assert ours == chainers
