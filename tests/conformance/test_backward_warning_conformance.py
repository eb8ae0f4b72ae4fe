"""backward() from a one-element array that is not 0-dimensional warns with Chainer's whole
message, which log filters match on. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on
Chainer itself.
"""

from __future__ import annotations

import importlib
import os
import warnings

import numpy

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))


def test_one_element_backward_warns_with_chainers_message():
    x = chainer.Variable(numpy.array([2.0], numpy.float32))
    y = x * 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y.backward()
    messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert messages == [
        "Treating a variable with only one element as a scalar in Variable.backward is "
        "deprecated. A scalar variable must be a 0-dimensional array. Apply "
        "chainer.functions.squeeze to obtain a scalar variable. If the size of this variable "
        "accidentally becomes one, set zero to grad."]
    numpy.testing.assert_array_equal(x.grad, [3.0])
