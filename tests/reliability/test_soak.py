"""The soak (``benchmarks/soak.py``): a shorter run here, the million-iteration one by hand.

The default run only checks that the harness works (a few hundred iterations, gradients
re-checked); ``-m slow`` runs 100,000 iterations and bounds the resident-memory drift.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

SOAK_PATH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "soak.py"


def load_soak():
    name = "chainer_compat_soak"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SOAK_PATH)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_soak_harness_runs_every_kind_of_step_and_checks_gradients():
    soak = load_soak()
    # 1,000 iterations cover each kind of step: plain, double backprop, hooked, failing.
    result = soak.soak(iterations=1000, warmup=0, sample_every=500)
    assert [i for i, _ in result.samples] == [0, 500, 1000]
    assert all(rss > 0 for _, rss in result.samples)


@pytest.mark.slow
def test_resident_memory_does_not_drift_over_100k_iterations():
    soak = load_soak()
    result = soak.soak(iterations=100_000, warmup=20_000, sample_every=10_000)
    assert result.drift < soak.MIB, f"resident memory drifted by {result.drift / soak.MIB:.3f} MiB"
