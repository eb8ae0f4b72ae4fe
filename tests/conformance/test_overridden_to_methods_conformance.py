"""A link whose class overrides to_cpu (the pre-v7 way to move arrays of its own) has the
override called when a move reaches it from a parent or from to_device, and to_cpu warns that it
is deprecated. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os
import warnings

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))


def _hierarchy():
    moves = []

    class OwnsATable(chainer.Link):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.w = chainer.Parameter(numpy.zeros(2, numpy.float32))
            self.table = numpy.arange(3)

        def to_cpu(self):
            moves.append(self)
            super().to_cpu()
            self.table = numpy.asarray(self.table)
            return self

    class Parent(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.child = OwnsATable()

    return Parent(), moves


@pytest.mark.parametrize("move", [
    lambda link: link.to_cpu(),
    lambda link: link.to_device("@numpy"),
    lambda link: link.child.to_cpu(),
    lambda link: link.child.to_device("@numpy"),
])
def test_the_override_runs_once_whichever_way_the_move_starts(move):
    parent, moves = _hierarchy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        move(parent)
    assert moves == [parent.child]


def test_to_cpu_warns_that_it_is_deprecated_and_to_device_does_not():
    link = chainer.links.Linear(2, 3)
    with pytest.warns(DeprecationWarning, match=r"to_cpu is deprecated\. Please use "
                                                r"to_device\('@numpy'\) instead\."):
        assert link.to_cpu() is link
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        link.to_device("@numpy")
