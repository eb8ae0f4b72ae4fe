"""The porting report (``python -m chainer_compat check``): every import style is followed, and
the supported/unsupported split comes from ``chainer_compat._surface``."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import chainer_compat.functions
from chainer_compat import _porting, _surface

FIXTURES = Path(__file__).resolve().parent / "porting_fixtures" / "project"
REPOSITORY = Path(__file__).resolve().parents[2]


def line_of(relative: str, text: str) -> int:
    """The 1-based line of the first line of a fixture file containing ``text``."""
    for number, line in enumerate((FIXTURES / relative).read_text().splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} is not in {relative}")


@pytest.fixture(scope="module")
def fixture_scan() -> _porting.ScanResult:
    return _porting.scan([FIXTURES])


def by_name(rows):
    return {row["name"]: row for row in rows}


# --------------------------------------------------------------------------------- import styles

def test_import_chainer_and_attribute_chains(fixture_scan):
    uses = fixture_scan.uses
    assert uses["chainer.Variable"].files >= {"styles/plain_import.py"}
    assert uses["chainer.config"].kind == "name"  # an object in chainer, not a module
    assert uses["chainer.config"].first_line == line_of("styles/plain_import.py", "config")
    assert uses["chainer.links.Linear"].files == {"styles/plain_import.py",
                                                  "styles/from_package.py"}


def test_import_module_as_alias(fixture_scan):
    uses = fixture_scan.uses
    assert uses["chainer.functions"].kind == "module"
    relu = uses["chainer.functions.relu"]
    assert relu.first_file == "styles/module_alias.py"
    assert relu.first_line == line_of("styles/module_alias.py", "F.relu")
    assert uses["chainer.functions.no_such_function"].count == 1


def test_from_package_import_module_as_alias_and_names(fixture_scan):
    uses = fixture_scan.uses
    assert uses["chainer.links"].kind == "module"
    assert "styles/from_package.py" in uses["chainer.links"].files
    # One reference at the import, one at the use.
    variable_in_file = [line for line in (FIXTURES / "styles/from_package.py").read_text()
                        .splitlines() if "Variable" in line]
    assert len(variable_in_file) == 2
    assert "styles/from_package.py" in uses["chainer.Variable"].files


def test_from_subpackage_import_module(fixture_scan):
    uses = fixture_scan.uses
    assert uses["chainer.backends.cuda"].kind == "module"
    assert uses["chainer.backends.cuda.to_gpu"].first_line == line_of(
        "styles/from_subpackage.py", "to_gpu")
    assert uses["chainer.backends.cuda.get_array_module"].count == 1


def test_plain_dotted_import(fixture_scan):
    uses = fixture_scan.uses
    assert "styles/dotted_import.py" in uses["chainer.links"].files
    assert uses["chainer.links.Classifier"].first_file == "styles/dotted_import.py"


def test_star_import_binds_the_modules_names(fixture_scan):
    uses = fixture_scan.uses
    assert "styles/star_import.py" in uses["chainer.functions.relu"].files
    # `sum` after `from chainer.functions import *` is F.sum, as in Python.
    assert "styles/star_import.py" in uses["chainer.functions.sum"].files


def test_every_reference_counts_once(fixture_scan):
    uses = fixture_scan.uses
    # F.relu, chainer.functions.relu and relu after the star import.
    assert uses["chainer.functions.relu"].count == 3
    # chainer.links.Linear and L.Linear, not also chainer.links or chainer.
    assert uses["chainer.links.Linear"].count == 2
    assert uses["chainer"].count == 2  # two `import chainer` lines; `chainer.x` counts as x


def test_chainerx_names_are_recorded(fixture_scan):
    uses = fixture_scan.uses
    assert uses["chainerx"].kind == "module"
    assert uses["chainerx.is_available"].kind == "name"
    assert uses["chainer.backend.ChainerxDevice"].first_file == "styles/chainerx_use.py"


def test_other_libraries_with_chainer_like_names_are_ignored(fixture_scan):
    # not_chainer.py binds F to numpy: F.sum there is numpy.sum.
    assert all("other/not_chainer.py" not in use.files for use in fixture_scan.uses.values())
    assert "other/not_chainer.py" in fixture_scan.files


def test_chainer_family_packages_are_listed(fixture_scan):
    assert fixture_scan.family == {"chainercv": {"other/uses_family.py"},
                                   "chainermn": {"other/uses_family.py"}}


def test_unparseable_hidden_and_environment_files(tmp_path):
    (tmp_path / "legacy_py2.py").write_text("import chainer\nprint 'hello'\n")
    (tmp_path / "good.py").write_text("import chainer\nchainer.Variable(None)\n")
    for ignored in (".git", "venv", "__pycache__"):
        (tmp_path / ignored).mkdir()
        (tmp_path / ignored / "inside.py").write_text("import chainer.links\n")
    (tmp_path / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    result = _porting.scan([tmp_path])
    assert result.files == ["good.py"]
    assert [(path, line) for path, line, _ in result.skipped] == [("legacy_py2.py", 2)]
    assert "chainer.links" not in result.uses
    stdout = io.StringIO()
    assert _porting.main([str(tmp_path)], stdout=stdout) == 0
    assert "1 file could not be parsed as Python 3" in stdout.getvalue()


def test_missing_path_raises(tmp_path):
    with pytest.raises(FileNotFoundError, match="path must exist"):
        _porting.scan([tmp_path / "nope"])


# ------------------------------------------------------------------------- supported or not

def test_supported_split_is_the_surfaces(fixture_scan):
    stand_in = {"chainerx", "chainerx.is_available", "chainerx.ndarray"}
    for row in _porting.records(fixture_scan):
        expected = row["name"] in stand_in or (
            not row["name"].startswith("chainerx") and _surface.exists(row["name"]))
        assert row["supported"] is expected, row["name"]
        assert (row["status"] == "supported") is expected


def test_split_follows_what_chainer_compat_functions_exports(monkeypatch):
    monkeypatch.setattr(chainer_compat.functions, "relu", lambda x: x, raising=False)
    monkeypatch.delattr(chainer_compat.functions, "sum")
    rows = by_name(_porting.records(_porting.scan([FIXTURES])))
    assert rows["chainer.functions.relu"]["supported"] is True
    assert rows["chainer.functions.sum"]["supported"] is False
    assert rows["chainer.functions.sum"]["status"] == "planned"  # a Chainer 7.8.1 name


def test_chainerx_checks_the_stand_in_answers_are_supported_and_the_rest_out(fixture_scan):
    # `import chainerx`, `chainerx.is_available()` and `isinstance(a, chainerx.ndarray)` run
    # under the alias, whose chainerx is a stand-in that is never available.
    rows = by_name(_porting.records(fixture_scan))
    for name in ("chainerx", "chainerx.is_available"):
        assert rows[name]["status"] == "supported", name
    out = [row for row in rows.values() if row["name"].startswith("chainerx.")
           and row["name"] not in ("chainerx.is_available", "chainerx.ndarray")]
    assert out, "the fixture uses more of ChainerX than the stand-in answers"
    for row in out:
        assert row["status"] == "out" and "ChainerX" in row["reason"], row["name"]


def test_names_chainer_never_had_are_missing(fixture_scan):
    row = by_name(_porting.records(fixture_scan))["chainer.functions.no_such_function"]
    assert row["status"] == "missing"
    assert "not a public name of chainer.functions in Chainer 7.8.1" in row["reason"]


def test_unimplemented_chainer_module_is_planned(tmp_path, monkeypatch):
    # Every top-level Chainer module exists now, so the surface gains one that does not.
    module = "chainer.module_not_written_yet"
    monkeypatch.setattr(_surface, "CHAINER_MODULES", _surface.CHAINER_MODULES | {module})
    assert not _surface.exists(module)
    (tmp_path / "uses.py").write_text(f"import {module}\n")
    row = by_name(_porting.records(_porting.scan([tmp_path])))[module]
    assert (row["kind"], row["status"], row["supported"]) == ("module", "planned", False)


# ------------------------------------------------------------------------------------- output

def test_summary_counts_add_up(fixture_scan):
    rows = _porting.records(fixture_scan)
    totals = _porting.summary(rows)
    assert totals["total"] == len(rows)
    assert totals["supported"] == sum(row["supported"] for row in rows)
    assert sum(totals["by_status"].values()) == len(rows)
    assert sum(counts["total"] for counts in totals["by_module"].values()) == len(rows)
    assert sum(counts["supported"] for counts in totals["by_module"].values()) \
        == totals["supported"]


def test_json_output_has_records_and_summary():
    stdout = io.StringIO()
    assert _porting.main(["--json", str(FIXTURES)], stdout=stdout) == 0
    document = json.loads(stdout.getvalue())
    assert document["chainer_version"] == "7.8.1"
    for row in document["names"]:
        assert {"name", "supported", "count", "status", "first", "module"} <= set(row)
    names = by_name(document["names"])
    assert names["chainer.functions.relu"]["count"] == 3
    assert names["chainer.functions.relu"]["first"] == (
        f"styles/module_alias.py:{line_of('styles/module_alias.py', 'F.relu')}")
    assert document["summary"]["total"] == len(document["names"])


def test_text_report_ends_with_a_one_screen_summary():
    stdout = io.StringIO()
    assert _porting.main([str(FIXTURES)], stdout=stdout) == 0
    text = stdout.getvalue()
    table, _, summary = text.partition("\nSummary\n")
    assert "chainer.functions.relu" in table
    summary_lines = summary.splitlines()
    assert len(summary_lines) <= 24
    assert all(len(line) <= 100 for line in summary_lines)
    assert summary_lines[-2].startswith("Verdict: not ready.")
    assert any(line.split()[:1] == ["chainer.functions"] and "no_such_function (1)" in line
               for line in summary_lines)


def test_ready_verdict_when_everything_is_supported(tmp_path):
    (tmp_path / "simple.py").write_text(
        "import chainer\nfrom chainer import Variable\nx = Variable(None)\n")
    text = _porting.format_report(_porting.scan([tmp_path]))
    assert "Verdict: ready." in text
    assert "2 of 2 names supported (100%)" in text


def test_no_chainer_at_all(tmp_path):
    (tmp_path / "plain.py").write_text("import numpy\n")
    text = _porting.format_report(_porting.scan([tmp_path]))
    assert "No Chainer names found" in text


def test_command_line_exit_status(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPOSITORY), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "chainer_compat", "check"]
    scanned = subprocess.run([*command, "--json", str(FIXTURES)], capture_output=True,
                             text=True, env=env, check=False, timeout=120)
    assert scanned.returncode == 0, scanned.stderr  # whatever the coverage
    totals = json.loads(scanned.stdout)["summary"]
    assert totals["supported"] < totals["total"]
    missing = subprocess.run([*command, str(tmp_path / "nope")], capture_output=True,
                             text=True, env=env, check=False, timeout=120)
    assert missing.returncode == 2
    assert "path must exist" in missing.stderr


# ------------------------------------------------------------------------ NumPy 1 names

NUMPY1_SOURCE = """\
import numpy as np
import numpy
import chainer
from numpy import asscalar, float32
x = np.zeros(3, dtype=np.float)
y = np.float(2) + numpy.NaN + np.float32(1) + np.random.rand() + np.bool(1)
"""


def test_numpy_1_names_are_listed_with_where_and_what_to_write(tmp_path):
    (tmp_path / "legacy.py").write_text(NUMPY1_SOURCE)
    result = _porting.scan([tmp_path])
    assert sorted(result.numpy1) == ["numpy.NaN", "numpy.asscalar", "numpy.float"]
    assert result.numpy1["numpy.float"].count == 2
    assert result.numpy1["numpy.asscalar"].first_line == 4  # the from-import
    assert result.numpy1["numpy.NaN"].first_line == 6  # `import numpy` counts too
    text = _porting.format_report(result)
    assert "Also uses 3 NumPy 1 names that NumPy has since removed: numpy.float (2)" in text
    assert "write float for numpy.float" in text
    assert "`python -m chainer_compat --numpy1-aliases SCRIPT [ARGS...]`" in text
    stdout = io.StringIO()
    assert _porting.main(["--json", str(tmp_path)], stdout=stdout) == 0
    listed = {row["name"]: row for row in json.loads(stdout.getvalue())["numpy1_names"]}
    assert listed["numpy.asscalar"] == {"name": "numpy.asscalar", "count": 1, "files": 1,
                                        "first": "legacy.py:4", "replacement": "a.item()"}


def test_numpy_1_names_are_listed_without_chainer_and_not_when_absent(tmp_path):
    (tmp_path / "plain.py").write_text("import numpy\nnumpy.product([2, 3])\n")
    text = _porting.format_report(_porting.scan([tmp_path]))
    assert "No Chainer names found" in text and "numpy.product (1)" in text
    (tmp_path / "plain.py").write_text("import numpy\nimport chainer\nnumpy.prod([2, 3])\n")
    text = _porting.format_report(_porting.scan([tmp_path]))
    assert "NumPy 1 name" not in text and "--numpy1-aliases" not in text
