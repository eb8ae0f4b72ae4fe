"""``DeviceResident`` and its visitor: what a move visits, in which order, and how a subclass
adds the arrays and Variables it owns beyond parameters and persistent values."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import backend
from chainer_compat.device_resident import DeviceResident, DeviceResidentsVisitor
from chainer_compat.links.connection.linear import Linear
from chainer_compat.utils.walker_alias import WalkerAlias


class Recorder(DeviceResidentsVisitor):
    """Records every visit; arrays come back as copies, so replacement can be seen."""

    def __init__(self) -> None:
        self.visits: list[tuple[str, object]] = []

    def visit_device_resident(self, device_resident):
        self.visits.append(("resident", type(device_resident).__name__))

    def visit_array(self, arr):
        self.visits.append(("array", arr.shape))
        return arr.copy()

    def visit_variable(self, param):
        self.visits.append(("variable", param.name))


class Net(chainer_compat.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.fc = Linear(2, 3)
        self.add_persistent("count", numpy.zeros(4))
        self.add_persistent("label", "not an array")


def test_link_is_a_device_resident():
    assert issubclass(chainer_compat.Link, DeviceResident)
    assert chainer_compat.DeviceResident is DeviceResident


def test_link_visits_itself_its_params_persistent_arrays_then_children():
    net = Net()
    count = net.count
    recorder = Recorder()
    net.device_resident_accept(recorder)
    assert recorder.visits == [
        ("resident", "Net"), ("array", (4,)),
        ("resident", "Linear"), ("variable", "W"), ("variable", "b")]
    # The persistent array is replaced by what visit_array returned.
    assert net.count is not count
    numpy.testing.assert_array_equal(net.count, count)


class Stateful(chainer_compat.Link):
    """A link owning a Variable that is neither a parameter nor persistent."""

    def __init__(self) -> None:
        super().__init__()
        self.state = chainer_compat.Variable(numpy.ones(2, numpy.float32))

    def device_resident_accept(self, visitor):
        super().device_resident_accept(visitor)
        visitor.visit_variable(self.state)


class MovingDevice(backend.CpuDevice):
    """The CPU under another name: shows that a move hands each array to the target device."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[int, ...]] = []

    def send(self, arrays):
        self.sent.append(arrays.shape)
        return arrays.copy()


def test_to_device_moves_what_an_overriding_subclass_visits():
    link = Stateful()
    before = link.state.array
    device = MovingDevice()
    assert link.to_device(device) is link
    assert link.device is device
    assert link.state.array is not before
    numpy.testing.assert_array_equal(link.state.array, before)


def test_a_plain_device_resident_moves_through_its_own_accept():
    class Table(DeviceResident):
        def __init__(self) -> None:
            super().__init__()
            self.values = numpy.arange(3)

        def device_resident_accept(self, visitor):
            super().device_resident_accept(visitor)
            self.values = visitor.visit_array(self.values)

    table = Table()
    device = MovingDevice()
    assert table.to_device(device) is table
    assert device.sent == [(3,)]
    assert table.device is device and table.xp is numpy
    assert table.to_cpu() is table and isinstance(table.device, backend.CpuDevice)


def test_walker_alias_moves_its_table():
    sampler = WalkerAlias([1.0, 2.0, 3.0])
    device = MovingDevice()
    sampler.to_device(device)
    assert sorted(device.sent) == [(3,), (6,)]
    assert sampler.device is device and not sampler.use_gpu


def test_visitor_base_names_the_missing_method():
    visitor = DeviceResidentsVisitor()
    with pytest.raises(NotImplementedError, match="visit_array"):
        visitor.visit_array(numpy.zeros(1))
    with pytest.raises(NotImplementedError, match="visit_variable"):
        visitor.visit_variable(None)
    with pytest.raises(NotImplementedError, match="visit_device_resident"):
        DeviceResident().device_resident_accept(visitor)


def test_unsupported_backends_say_so():
    with pytest.raises(RuntimeError, match="ChainerX"):
        DeviceResident().to_chx()
    with pytest.raises(RuntimeError, match="iDeep"):
        DeviceResident().to_intel64()
    resident = DeviceResident()
    assert resident.from_chx() is resident


class _MovesItsTableInToGpu(chainer_compat.Link):
    """A pre-v7 link: moves an array of its own by overriding to_gpu."""

    def __init__(self):
        super().__init__()
        self.table = numpy.arange(3)
        self.to_gpu_devices = []

    def to_gpu(self, device=None):
        self.to_gpu_devices.append(device)
        super().to_gpu(device)
        self.table = backend.GpuDevice.from_device_id(0).send(self.table)
        return self


def test_a_move_to_a_gpu_calls_an_overridden_to_gpu_of_a_descendant(cupy):
    child = _MovesItsTableInToGpu()
    parent = chainer_compat.Sequential(child)
    with pytest.warns(DeprecationWarning, match="to_gpu is deprecated"):
        parent.to_device("@cupy:0")
    assert len(child.to_gpu_devices) == 1
    assert child.to_gpu_devices[0].id == 0
    assert isinstance(child.table, cupy.ndarray)
    assert child.device == backend.GpuDevice.from_device_id(0)


def test_a_descendant_without_overrides_is_moved_by_the_visitor_alone():
    calls = []

    class Plain(chainer_compat.Link):
        def device_resident_accept(self, visitor):
            calls.append(type(visitor).__name__)
            super().device_resident_accept(visitor)

    parent = chainer_compat.Sequential(Plain())
    with pytest.warns(DeprecationWarning):
        parent.to_cpu()
    assert calls == ["_ToDevice"]
