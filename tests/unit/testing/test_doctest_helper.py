"""doctest_helper's skip conditions, as Chainer's documentation uses them."""

from __future__ import annotations

import importlib.metadata

import pytest

from chainer_compat.testing import doctest_helper


def test_skipif_passes_the_condition_through_except_on_read_the_docs(monkeypatch):
    monkeypatch.delenv("READTHEDOCS", raising=False)
    assert doctest_helper.skipif(True) is True
    assert doctest_helper.skipif(False) is False
    monkeypatch.setenv("READTHEDOCS", "True")
    assert doctest_helper.skipif(True) is False


def test_requirements_skip_only_when_all_are_installed_at_an_admitted_version(monkeypatch):
    monkeypatch.delenv("READTHEDOCS", raising=False)
    numpy_version = importlib.metadata.version("numpy")
    assert doctest_helper.skipif_requires_satisfied("numpy") is True
    assert doctest_helper.skipif_requires_satisfied(f"numpy=={numpy_version}", "pytest") is True
    assert doctest_helper.skipif_requires_satisfied("numpy<1") is False
    assert doctest_helper.skipif_requires_satisfied(
        "numpy", "a-distribution-that-is-not-installed") is False


def test_requirements_with_extras_need_the_extras_offered_and_installed(monkeypatch):
    monkeypatch.delenv("READTHEDOCS", raising=False)
    assert doctest_helper.skipif_requires_satisfied("numpy[an-extra-numpy-lacks]") is False

    class Metadata:
        def get_all(self, key):
            return ["arrays", "exotic"] if key == "Provides-Extra" else None

    class Distribution:  # what importlib.metadata knows of an installed "toolkit"
        version = "2.0"
        metadata = Metadata()
        requires = ["numpy; extra == 'arrays'", "not-installed-anywhere>=1; extra == 'exotic'"]

    real = importlib.metadata.distribution
    monkeypatch.setattr(importlib.metadata, "distribution",
                        lambda name: Distribution() if name == "toolkit" else real(name))
    assert doctest_helper.skipif_requires_satisfied("toolkit[arrays]>=2") is True
    assert doctest_helper.skipif_requires_satisfied("toolkit[exotic]") is False
    assert doctest_helper.skipif_requires_satisfied("toolkit[missing]") is False
    assert doctest_helper.skipif_requires_satisfied("toolkit[arrays]>=3") is False


@pytest.mark.parametrize(("limit", "needed", "skip"), [
    (None, 8, False), ("-1", 8, False), ("1", 2, True), ("2", 2, False), ("0", 1, True)])
def test_cuda_device_count_skips_follow_the_test_gpu_limit(monkeypatch, limit, needed, skip):
    monkeypatch.delenv("READTHEDOCS", raising=False)
    if limit is None:
        monkeypatch.delenv("CHAINER_TEST_GPU_LIMIT", raising=False)
    else:
        monkeypatch.setenv("CHAINER_TEST_GPU_LIMIT", limit)
    assert doctest_helper.skipif_not_enough_cuda_devices(needed) is skip


def test_the_mock_updater_module_reports_itself_available():
    from chainer_compat.testing import training

    assert training.is_available() is True
    assert training.check_available() is None
    assert training.get_error() is None
    assert training.get_trainer_with_mock_updater().updater.iteration == 0
