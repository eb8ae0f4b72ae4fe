"""Chainer-visible behaviour of ``DeviceResident``: links are device residents, a visitor sees
each link, its parameters and its persistent arrays, and a link that owns more overrides
``device_resident_accept``. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer
7.8.1 itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
device_resident = importlib.import_module(chainer.__name__ + ".device_resident")
L = importlib.import_module(chainer.__name__ + ".links")


class Recorder(device_resident.DeviceResidentsVisitor):
    def __init__(self):
        self.residents = []
        self.arrays = []
        self.variables = []

    def visit_device_resident(self, device_resident):
        self.residents.append(type(device_resident).__name__)

    def visit_array(self, arr):
        self.arrays.append(arr.shape)
        return arr

    def visit_variable(self, param):
        self.variables.append(param.name)


class Net(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.fc = L.Linear(2, 3)
            self.bn = L.BatchNormalization(3)
        self.add_persistent("steps", numpy.zeros(5))


def test_links_are_device_residents():
    assert chainer.DeviceResident is device_resident.DeviceResident
    assert issubclass(chainer.Link, chainer.DeviceResident)
    assert isinstance(L.Linear(2, 3), chainer.DeviceResident)


def test_a_visitor_sees_every_link_parameter_and_persistent_array():
    recorder = Recorder()
    Net().device_resident_accept(recorder)
    assert sorted(recorder.residents) == ["BatchNormalization", "Linear", "Net"]
    assert recorder.residents[0] == "Net"
    assert sorted(recorder.variables) == ["W", "b", "beta", "gamma"]
    # BatchNormalization's avg_mean, avg_var (and N, a 0-d array or scalar) are persistent.
    assert (5,) in recorder.arrays and recorder.arrays.count((3,)) == 2


def test_a_link_visiting_its_own_state_moves_it():
    class Stateful(chainer.Link):
        def __init__(self):
            super().__init__()
            self.state = chainer.Variable(numpy.ones(2, numpy.float32))

        def device_resident_accept(self, visitor):
            super().device_resident_accept(visitor)
            visitor.visit_variable(self.state)

    recorder = Recorder()
    link = Stateful()
    link.device_resident_accept(recorder)
    assert recorder.variables == [None]
    assert link.to_device("@numpy") is link
    assert isinstance(link.state.array, numpy.ndarray)


def test_chainerx_conversion_raises_runtime_error():
    with pytest.raises(RuntimeError):
        L.Linear(2, 3).to_chx()
    link = L.Linear(2, 3)
    assert link.from_chx() is link
