"""Loads the pickles make.py wrote, under chainer_compat's alias, runs each probe and prints a
JSON object: for every entry, null when it matches what Chainer's own copy gave, else what
went wrong. Run by tests/unit/test_chainer_pickles.py in a fresh interpreter (the alias
changes ``sys.modules``).

    python tests/data/chainer_pickles/read.py chainer781.pkl
"""

from __future__ import annotations

import json
import pathlib
import pickle
import sys
import traceback
import warnings

import numpy

import chainer_compat

chainer_compat.install_as_chainer()
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import specs  # noqa: E402 - imports chainer, which the alias provides now


def mismatch(got: list, expected: list) -> str | None:
    """What differs between two probe results, or None."""
    if len(got) != len(expected):
        return f"{len(got)} values != {len(expected)}"
    for index, (value, reference) in enumerate(zip(got, expected)):
        value, reference = numpy.asarray(value), numpy.asarray(reference)
        if value.shape != reference.shape:
            return f"value {index}: shape {value.shape} != {reference.shape}"
        # Pickled state must give Chainer's numbers: only the last bits of float32 may differ
        # (a few reductions round differently: NOTE [Chainer's rounding]).
        if not numpy.allclose(value.astype(float), reference.astype(float), rtol=1e-6,
                              atol=1e-7, equal_nan=True):
            return f"value {index}: {value!r} != {reference!r}"
    return None


warnings.simplefilter("ignore")
with open(sys.argv[1], "rb") as file:
    fixture = pickle.load(file)
report: dict[str, str | None] = {}
for name, (data, expected) in fixture["entries"].items():
    try:
        loaded = pickle.loads(data)
        numpy.random.seed(1)
        report[name] = mismatch(specs.SPECS[name][1](loaded), expected)
    except Exception:  # the report names it; the test fails on it
        report[name] = traceback.format_exc(limit=-3)
print(json.dumps(report))
