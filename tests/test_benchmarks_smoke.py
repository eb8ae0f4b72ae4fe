"""Smoke tests of benchmarks/: each workload runs once at a tiny size and checks its gradients.

No timing is asserted (benchmarks are never timed tests): these prove that the harness runs,
that its gradient checks pass on correct code and catch wrong code, and that the report and the
command line work. Peer drivers are exercised only where their venvs exist.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

ROOT = Path(__file__).resolve().parent.parent
RUN_PY = ROOT / "benchmarks" / "run.py"


def _cuda_device_count() -> int:
    if importlib.util.find_spec("cupy") is None:
        return 0
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:
        return 0


def _load_run_module():
    name = "benchmarks_run_under_test"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, RUN_PY)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench():
    return _load_run_module()


def _run(bench, name, memory=False):
    return bench.run_workload(bench.WORKLOADS[name], bench.QUICK, 1, [], memory, lambda _: None)


@pytest.mark.parametrize("name", ["chain", "old_style", "fan_in", "mlp"])
def test_workload_runs_and_its_gradients_match_the_floor(bench, name):
    result = _run(bench, name)
    assert result.failures == []
    assert result.unavailable == {}
    floor, ours = result.totals("floor"), result.totals("ours")
    assert len(floor) == len(ours) >= 1
    assert all(value > 0 for value in floor + ours)


def test_ctx_workload_runs_or_says_why_not(bench):
    result = _run(bench, "ctx")
    assert result.failures == []
    if bench._autograd is None:
        assert "chainer_compat.autograd" in result.unavailable["ours"]
    else:
        assert result.totals("ours") and result.unavailable == {}


def test_ctx_workload_reports_unavailable_when_autograd_does_not_import(bench, monkeypatch):
    monkeypatch.setattr(bench, "_autograd", None)
    monkeypatch.setattr(bench, "_ctx_affine", None)
    monkeypatch.setattr(bench, "AUTOGRAD_ERROR", "ImportError: not finished")
    result = _run(bench, "ctx")
    assert result.failures == []
    assert "not finished" in result.unavailable["ours"]
    assert result.totals("floor")
    assert "chainer_compat: unavailable" in bench.report([result], [])


def test_elementwise_workload_measures_peak_memory_in_fresh_processes(bench):
    result = _run(bench, "elementwise", memory=True)
    assert result.failures == []
    floor_arrays, ours_arrays = bench._arrays(result, "floor"), bench._arrays(result, "ours")
    # The floor holds every output of the chain (backward needs them) at its peak.
    assert floor_arrays >= bench.QUICK.big_nodes
    assert ours_arrays >= bench.QUICK.big_nodes
    assert "peak memory above the input" in bench.report([result], [])


def test_scaling_workload_reports_per_node_times_for_each_length(bench):
    result = _run(bench, "scaling")
    assert result.failures == []
    expected = [str(n) for n in bench.QUICK.scaling]
    assert sorted(result.figures["ours"]) == sorted(expected + [f"{n} gc off" for n in expected])
    text = bench.report([result], [])
    for n in bench.QUICK.scaling:
        assert f"{n:,} nodes" in text


def test_a_wrong_gradient_fails_the_check(bench, monkeypatch):
    def wrong_backward(self, indexes, grad_outputs):
        return grad_outputs[0] * (bench.K * 1.01),

    monkeypatch.setattr(bench.Affine, "backward", wrong_backward)
    result = _run(bench, "chain")
    assert len(result.failures) == 1
    assert "gradient must match the floor's" in result.failures[0]
    assert "failed its gradient check" in result.unavailable["ours"]


def test_floor_gradients_are_right(bench):
    # The floor is the reference: check it against the closed forms.
    n = 50
    _, chain_grad = bench.bench_spec.chain_floor(n)
    numpy.testing.assert_allclose(chain_grad, [bench.K ** n], rtol=1e-5)
    # One fan-in layer: (x + x * 1.0) H, whose gradient is H + H.
    _, fan_grad = bench.bench_spec.fan_in_floor(1)
    numpy.testing.assert_allclose(fan_grad, [2 * bench.H])
    x = numpy.linspace(-1, 1, 7, dtype=numpy.float32)
    _, big_grad = bench.bench_spec.big_floor(x, 2)
    y1 = numpy.tanh(x)
    y2 = numpy.tanh(y1)
    numpy.testing.assert_allclose(big_grad, (1 - y2 ** 2) * (1 - y1 ** 2), rtol=1e-6)


def test_mlp_floor_gradient_matches_finite_differences(bench):
    sizes = bench.Sizes(mlp_units=(5, 4, 3), mlp_batch=6)
    x, t, params = bench.bench_spec.mlp_data(sizes)
    params64 = [p.astype(numpy.float64) for p in params]
    x64 = x.astype(numpy.float64)

    def loss(values):
        copies = [v.copy() for v in values]
        return float(bench.bench_spec.mlp_floor_step(x64, t, copies)[0])

    _, grads = bench.bench_spec.mlp_floor_step(x64, t, [p.copy() for p in params64])
    for index in [(0, 0), (1, 2), (3, 4)]:
        step = 1e-6
        plus = [p.copy() for p in params64]
        minus = [p.copy() for p in params64]
        plus[0][index] += step
        minus[0][index] -= step
        numeric = (loss(plus) - loss(minus)) / (2 * step)
        assert abs(grads[0][index] - numeric) <= 1e-6 + 1e-4 * abs(numeric), index


def test_command_line_quick_run_writes_json(tmp_path):
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(RUN_PY), "--quick", "chain", "fan_in", "--json", str(out),
         "--peers", "chainer", "--chainer-python", str(tmp_path / "missing" / "python")],
        check=False, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "peer chainer skipped" in done.stderr and "does not exist" in done.stderr
    assert "(1) chain, FunctionNode" in done.stdout
    figures = json.loads(out.read_text())
    assert set(figures["results"]) == {"chain", "fan_in"}
    assert figures["results"]["chain"]["failures"] == []
    assert figures["results"]["chain"]["figures"]["ours"]["fwd"]


def test_command_line_rejects_unknown_workload():
    done = subprocess.run([sys.executable, str(RUN_PY), "no_such_workload"],
                          check=False, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2
    assert "workloads must be among" in done.stderr


def _peer_python(variable, default):
    python = os.environ.get(variable, default)
    return python if Path(python).exists() else None


@pytest.mark.parametrize("peer,variable,default", [
    ("chainer", "BENCH_CHAINER_PYTHON", "/tmp/chvenv/bin/python"),
    ("torch", "BENCH_TORCH_PYTHON", "/tmp/torchvenv/bin/python"),
])
def test_peer_driver_runs_a_workload_and_checks_it(bench, peer, variable, default):
    python = _peer_python(variable, default)
    if python is None:
        pytest.skip(f"the {peer} peer's venv is not set up ({variable})")
    driver = bench.Peer(peer, python)
    try:
        assert peer.lower() in driver.version.lower() or "pytorch" in driver.version.lower()
        figures = driver.run("chain", bench.QUICK)
        assert figures["fwd"] > 0 and figures["bwd"] > 0
    finally:
        driver.close()


@pytest.mark.gpu
def test_large_array_workloads_run_on_cupy(tmp_path):
    if _cuda_device_count() == 0:
        pytest.skip("needs CuPy and a CUDA device")
    out = tmp_path / "gpu.json"
    done = subprocess.run([sys.executable, str(RUN_PY), "--gpu", "--quick", "--json", str(out)],
                          check=False, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(out.read_text())
    assert set(figures["results"]) == {"elementwise", "mlp"}
    assert figures["results"]["elementwise"]["memory"]["ours"]["gpu_pool"] > 0


def _load_saved_check():
    spec = importlib.util.spec_from_file_location("saved_check_under_test",
                                                  ROOT / "benchmarks" / "saved_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_saved_check_script_reports_the_check_cost():
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "saved_check.py"), "-n", "200", "-r", "1"],
        capture_output=True, text=True, check=True)
    assert "the check costs" in result.stdout
    for key in ("floor", "check on", "check off", "nothing retained"):
        assert key in result.stdout


def test_saved_check_measures_all_four_and_puts_the_checker_back():
    from chainer_compat import function_node

    checker = function_node._saved_arrays
    figures = _load_saved_check().measure(50, 1)
    assert set(figures) == {"floor", "check on", "check off", "nothing retained"}
    assert all(value > 0 for value in figures.values())
    assert function_node._saved_arrays is checker


def test_saved_check_catches_a_wrong_gradient(monkeypatch):
    module = _load_saved_check()
    monkeypatch.setattr(module, "K", numpy.float32(0.5))  # the nodes now disagree with the floor
    with pytest.raises(AssertionError, match="gradient"):
        module.measure(50, 1)


def test_gpu_profile_script_runs_on_numpy():
    # benchmarks/profile_gpu.py is meant for a CUDA machine; --xp numpy is its smoke run.
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "profile_gpu.py"), "--xp",
                           "numpy", "--quick", "--top", "5"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    for line in ("MLP train step", "F.softmax_cross_entropy forward + backward",
                 "chain of 100 'h * 2.0' nodes, per node", "cProfile of 2 MLP steps"):
        assert line in done.stdout


def _bytecodes_report(workload: str, n: int) -> str:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "profile_core.py"),
                           "bytecodes", workload, "-n", str(n), "--top", "5"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _per_node(report: str, function: str) -> float:
    """The first per-node count listed for ``function`` in a bytecodes report."""
    for line in report.splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[1] == function:
            return float(fields[0])
    raise AssertionError(f"{function} is not listed in:\n{report}")


def test_bytecode_profile_counts_the_same_work_per_node_at_any_size():
    # Every apply of a chain takes the same path, so its bytecodes per node do not depend on
    # the chain's length: the counts are exact, not sampled.
    small, large = _bytecodes_report("chain", 20), _bytecodes_report("chain", 40)
    assert _per_node(small, "apply") == _per_node(large, "apply") > 0
    assert _per_node(small, "visit_all") > 0
    assert "chainer_compat/function_node.py:" in small  # the busiest lines name their source


MODELS_PY = ROOT / "benchmarks" / "models.py"


def test_models_worker_reports_a_loss_that_does_not_depend_on_the_run():
    """models.py compares the two libraries' losses over three train steps from the same
    parameters and random state: each run must give the same losses, and report one time
    per train step."""
    command = [sys.executable, str(MODELS_PY), "--worker", "chainer_compat", "mlp"]
    first, second = (json.loads(subprocess.run(command, check=True, capture_output=True,
                                               text=True).stdout.splitlines()[-1])["mlp"]
                     for _ in range(2))
    assert len(first["losses"]) == 4 and all(numpy.isfinite(first["losses"]))
    assert first["losses"][3] < first["losses"][0]  # three train steps lowered it
    assert first["losses"] == second["losses"]
    assert len(first["ms"]) == 60 and all(t >= 0 for t in first["ms"])


FUNCTION_CASES_PY = ROOT / "benchmarks" / "function_cases.py"


def _function_cases(*arguments):
    command = [sys.executable, str(FUNCTION_CASES_PY), "chainer_compat", *arguments]
    return json.loads(subprocess.run(command, check=True, capture_output=True,
                                     text=True).stdout)


def test_function_cases_time_the_named_cases():
    figures = _function_cases("--only", "relu,linear,max_pooling_2d_2x2", "--reps", "2")
    assert sorted(figures) == ["linear", "max_pooling_2d_2x2", "relu"]
    for case in figures.values():
        assert 0 < case["min"] <= case["med"]


@pytest.mark.slow
def test_every_function_case_runs_in_chainer_compat():
    figures = _function_cases("--reps", "1")
    assert len(figures) > 250
    assert {name: case["error"] for name, case in figures.items() if "error" in case} == {}
