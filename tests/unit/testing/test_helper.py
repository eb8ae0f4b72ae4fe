"""Tests for chainer_compat.testing.helper: with_requires, without_requires, assert_warns, patch."""

from __future__ import annotations

import importlib.metadata
import json
import sys
import types
import unittest
import warnings

import pytest

from chainer_compat import testing
from chainer_compat.testing import helper

NUMPY_VERSION = importlib.metadata.version("numpy")
MISSING = "chainer-compat-no-such-distribution"


def skip_reason(obj: object) -> str | None:
    for mark in getattr(obj, "pytestmark", []):
        if mark.name == "skip":
            return mark.kwargs["reason"]
    return None


def test_met_requirement_leaves_the_test_unchanged():
    def test_it():
        return "ran"

    decorated = testing.with_requires("numpy>=1.0", f"pytest>={pytest.__version__}")(test_it)
    assert decorated is test_it
    assert decorated() == "ran"


@pytest.mark.parametrize("requirement", [f"numpy<{NUMPY_VERSION}", "numpy>=9999", MISSING])
def test_unmet_requirement_skips_a_function(requirement):
    @testing.with_requires(requirement)
    def test_it():
        raise AssertionError("must not run")

    assert skip_reason(test_it) == f"requires: {requirement}"
    with pytest.raises(unittest.SkipTest, match=f"requires: {requirement}"):
        test_it()


def test_unmet_requirement_skips_a_unittest_class():
    @testing.with_requires("numpy>=1.0", MISSING)
    class TestFoo(unittest.TestCase):
        def test_it(self):
            raise AssertionError("must not run")

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(TestFoo).run(result)
    assert result.skipped and result.skipped[0][1] == f"requires: numpy>=1.0,{MISSING}"
    assert result.wasSuccessful()


def test_requirement_for_another_platform_counts_as_met():
    def test_it():
        pass

    assert testing.with_requires(f"{MISSING}; python_version < '3'")(test_it) is test_it


def test_without_requires_is_the_opposite():
    def test_it():
        pass

    assert testing.without_requires(MISSING)(test_it) is test_it
    assert skip_reason(testing.without_requires("numpy>=1.0")(test_it)) == "requires: numpy>=1.0"


def test_requirement_check_uses_installed_metadata():
    assert helper._requirement_met(f"numpy=={NUMPY_VERSION}")
    assert not helper._requirement_met(f"numpy!={NUMPY_VERSION}")
    assert not helper._requirement_met(MISSING)


def test_assert_warns_passes_when_the_warning_is_emitted_even_if_filtered():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with testing.assert_warns(DeprecationWarning):
            warnings.warn("old", DeprecationWarning, stacklevel=2)


def test_assert_warns_fails_without_the_warning():
    with (pytest.raises(AssertionError, match="DeprecationWarning not triggerred"),
          testing.assert_warns(DeprecationWarning)):
        warnings.warn("other", UserWarning, stacklevel=1)


def test_patch_wraps_the_target_by_default():
    with testing.patch("json.dumps") as mocked:
        assert json.dumps([1]) == "[1]"
    assert mocked.call_count == 1


def test_patch_rejects_unimported_module():
    with pytest.raises(RuntimeError, match="must be imported"):
        testing.patch("chainer_compat_not_imported_module.f")


def test_run_module_runs_pytest_only_as_main(monkeypatch):
    calls = []
    monkeypatch.setattr(pytest, "main", lambda args: calls.append(args))
    testing.run_module("tests.some_module", "/path/test_x.py")
    assert calls == []
    testing.run_module("__main__", "/path/test_x.py")
    assert calls == [["/path/test_x.py", "-vvs", "-x", "--pdb"]]


@pytest.mark.parametrize("aliased", [True, False])
def test_chainer_requirements_are_checked_against_the_chainer_we_stand_in_for(
        monkeypatch, aliased):
    # Legacy tests guard on Chainer's version; no `chainer` distribution is installed here.
    import chainer_compat

    if aliased:
        monkeypatch.setitem(sys.modules, "chainer", chainer_compat)
    else:
        monkeypatch.delitem(sys.modules, "chainer", raising=False)
    monkeypatch.setattr(chainer_compat, "__version__", "7.8.1")

    def test_it():
        pass

    assert testing.with_requires("chainer>=5")(test_it) is test_it
    assert testing.with_requires("Chainer>=7.8,<8")(test_it) is test_it
    assert skip_reason(testing.with_requires("chainer>=8")(test_it)) == "requires: chainer>=8"
    assert skip_reason(testing.without_requires("chainer>=5")(test_it)) == "requires: chainer>=5"
    assert testing.without_requires("chainer<7")(test_it) is test_it


def test_another_module_imported_as_chainer_is_asked_of_its_distribution(monkeypatch):
    monkeypatch.setitem(sys.modules, "chainer", types.ModuleType("chainer"))
    versions = {"chainer": "4.5.0"}

    def version(name):
        if name not in versions:
            raise importlib.metadata.PackageNotFoundError(name)
        return versions[name]

    monkeypatch.setattr(helper.importlib.metadata, "version", version)

    def test_it():
        pass

    assert skip_reason(testing.with_requires("chainer>=5")(test_it)) == "requires: chainer>=5"
    assert testing.with_requires("chainer>=4")(test_it) is test_it
