"""The bad-input catalogue: each mistake gets its exception, a message saying what to do, and
changes nothing (``reliability/catalogue.py``; the cases that wait for a core change are in
``test_bad_input_pending.py``). ``docs/errors.md`` must match the catalogue."""

from __future__ import annotations

import pytest
from reliability import catalogue


@pytest.mark.parametrize("case", catalogue.ready(), ids=lambda case: case.key)
def test_bad_input_gets_a_clear_error_and_changes_nothing(case):
    catalogue.check_case(case)


def test_catalogue_covers_at_least_forty_cases_the_issue_names():
    assert len(catalogue.CASES) >= 40
    keys = {case.key for case in catalogue.CASES}
    named_by_the_issue = {
        "variable-from-number", "mixed-numpy-cupy", "integer-requires-grad",
        "forward-returns-list", "forward-returns-array", "backward-wrong-count",
        "backward-wrong-shape", "backward-wrong-dtype", "old-output-data-not-retained",
        "retain-inputs-out-of-range", "backward-from-non-scalar", "backward-after-unchain-backward",
        "call-function-node", "nan-in-forward-debug", "custom-type-check",
        "using-config-name-not-str", "global-hook-twice",
    }
    assert named_by_the_issue <= keys


def test_every_case_names_words_of_its_message():
    for case in catalogue.CASES:
        assert case.words, case.key
        assert issubclass(case.raises, (Exception, Warning)), case.key


def test_docs_errors_md_is_up_to_date():
    expected = catalogue.render()
    actual = catalogue.DOC_PATH.read_text() if catalogue.DOC_PATH.exists() else ""
    assert actual == expected, (
        "docs/errors.md is out of date: run `python3 tests/reliability/catalogue.py --write`")
