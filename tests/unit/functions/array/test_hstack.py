"""hstack, vstack and dstack: NumPy's semantics for 0-D to 3-D inputs, gradients, checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.array.dstack import dstack
from chainer_compat.functions.array.hstack import hstack
from chainer_compat.functions.array.vstack import vstack
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
FUNCTIONS = {"hstack": (hstack, numpy.hstack), "vstack": (vstack, numpy.vstack),
             "dstack": (dstack, numpy.dstack)}
# Input shapes per function that NumPy accepts.
CASES = [
    ("hstack", [(), ()]), ("hstack", [(2,), (3,)]), ("hstack", [(2, 1), (2, 3)]),
    ("hstack", [(2, 1, 3), (2, 2, 3)]),
    ("vstack", [(), ()]), ("vstack", [(3,), (3,)]), ("vstack", [(1, 3), (2, 3)]),
    ("vstack", [(1, 2, 3), (2, 2, 3)]),
    ("dstack", [(), ()]), ("dstack", [(3,), (3,)]), ("dstack", [(2, 3), (2, 3)]),
    ("dstack", [(2, 3, 1), (2, 3, 2)]), ("dstack", [(2, 3, 1, 2), (2, 3, 2, 2)]),
]


@pytest.mark.parametrize("name, shapes", CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(name, shapes, dtype, uniform, check_function):
    func, reference = FUNCTIONS[name]
    xs = tuple(uniform(shape, dtype) for shape in shapes)
    check_function(lambda *xs: func(xs), xs, lambda *xs: reference(xs))


@pytest.mark.parametrize("name, shapes", [
    ("hstack", [(2, 3), (3, 3)]), ("vstack", [(3,), (4,)]), ("vstack", [(2, 3), (2, 4)]),
    ("dstack", [(2, 3), (2, 4)]), ("hstack", [(2,), (2, 1)])])
def test_incompatible_shapes_are_rejected(name, shapes):
    func = FUNCTIONS[name][0]
    label = name.capitalize()
    with pytest.raises(type_check.InvalidType, match=rf"{label} \(Forward\)[\s\S]*x1\."):
        func([numpy.ones(shape) for shape in shapes])


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_mismatched_dtypes_are_rejected(name):
    with pytest.raises(type_check.InvalidType, match=r"x1\.dtype"):
        FUNCTIONS[name][0]([numpy.ones(3, numpy.float32), numpy.ones(3)])
