"""tools/chainer_suite/run_suite.py: how it compares the two JUnit reports (the runs themselves
need Chainer's tests and a Chainer 7.8.1 interpreter; see tools/chainer_suite/README.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "run_suite", ROOT / "tools" / "chainer_suite" / "run_suite.py")
assert _spec is not None and _spec.loader is not None
run_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_suite)


def _report(path: Path, cases: list[tuple[str, str, str]]) -> Path:
    """A JUnit report of (test id, outcome, error line) cases."""
    body = []
    for test_id, outcome, error in cases:
        classname, name = test_id.split("::")
        inner = {"passed": "",
                 "skipped": '<skipped message="no GPU"/>',
                 "failure": f'<failure message="m">E   AssertionError: Parameterized test '
                            f'failed.\nE   \nE   {error}</failure>'}[outcome]
        body.append(f'<testcase classname="{classname}" name="{name}">{inner}</testcase>')
    path.write_text(f'<testsuites><testsuite>{"".join(body)}</testsuite></testsuites>')
    return path


def test_lists_what_passes_on_chainer_and_not_here_by_its_error(tmp_path):
    chainer = _report(tmp_path / "chainer.xml", [
        ("t.A_{x=0.6}::test_a", "passed", ""),
        ("t.A_{x=0.6}::test_b", "passed", ""),
        ("t.B::test_c", "passed", ""),
        ("t.B::test_d", "failure", "ImportError: newer API"),
        ("t.B::test_e", "passed", ""),
    ])
    compat = _report(tmp_path / "compat.xml", [
        ("t.A_{x=np.float32(0.6)}::test_a", "passed", ""),  # NumPy 2's repr of the parameter
        ("t.A_{x=np.float32(0.6)}::test_b", "failure", "TypeError: takes no arguments"),
        ("t.B::test_c", "failure", "TypeError: takes no arguments"),
        ("t.B::test_d", "passed", ""),
    ])
    counts, differences = run_suite.compare(chainer, compat)
    assert counts == {"passing on both": 1, "passing on Chainer, failure here": 2,
                      "not passing on Chainer (failure)": 1,
                      "passing on Chainer, not run here": 1}
    assert differences["TypeError: takes no arguments"] == ["t.A_{x=0.6}::test_b",
                                                            "t.B::test_c"]
    assert list(differences) == ["TypeError: takes no arguments",
                                 "(not run here: collection error or another test id)"]


def test_tests_whose_ids_differ_only_in_random_values_stay_apart(tmp_path):
    chainer = _report(tmp_path / "chainer.xml", [
        ("t.A_{b=array([0.1])}::test", "passed", ""),
        ("t.A_{b=array([0.2])}::test", "passed", ""),
    ])
    compat = _report(tmp_path / "compat.xml", [
        ("t.A_{b=array([0.3])}::test", "failure", "AssertionError: wrong"),
        ("t.A_{b=array([0.4])}::test", "passed", ""),
    ])
    counts, differences = run_suite.compare(chainer, compat)
    assert counts == {"passing on both": 1, "passing on Chainer, failure here": 1}
    assert list(differences) == ["AssertionError: wrong"]


def test_test_ids_are_compared_without_numpy_reprs_addresses_or_random_values():
    normalized = run_suite._normalized(
        "T_{d=bool_, s=np.float64(1.5), f=<function f at 0x7f3a2c>, "
        "b=array([[0.5, 0.1],\n       [0.2, 0.3]]), i=array([1, 2], dtype=int32), "
        "l=array([[0.3, ..., 0.6]], shape=(15, 32))}::test")
    assert normalized == ("T_{d=bool, s=1.5, f=<function f at 0x>, b=array(...), "
                          "i=array(...), l=array(...)}::test")


def test_refuses_a_folder_without_chainer_tests(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        run_suite.main(["--chainer-tests", str(tmp_path), "--chainer-python", "python"])
    assert exit_info.value.code == 2
    assert "no chainer_tests/ folder" in capsys.readouterr().err
