"""Deprecation warnings are attributed to the library's own modules, as Chainer's are, so
Python's default filters hide them outside tests (they show only when attributed to __main__).
Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os
import warnings

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
L = importlib.import_module(chainer.__name__ + ".links")


def _one_element_backward():
    x = chainer.Variable(numpy.ones(1, numpy.float32))
    (x * 2).backward()


@pytest.mark.parametrize("deprecated", [
    lambda: L.Linear(2, 3).to_cpu(),
    _one_element_backward,
])
def test_a_deprecation_warning_names_a_library_module_not_the_caller(deprecated):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        deprecated()
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert deprecations
    for warning in deprecations:
        assert not os.path.samefile(warning.filename, __file__)
        package_root = os.path.dirname(chainer.__file__)
        assert os.path.commonpath([package_root, os.path.abspath(warning.filename)]) == \
            package_root
