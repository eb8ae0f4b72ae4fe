"""Tests for chainer_compat.link: Link, Chain and ChainList (registration, traversal, copies,
gradients, devices)."""

from __future__ import annotations

import copy
import warnings
from unittest import mock

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import backend, initializers
from chainer_compat.link import Chain, ChainList, Link
from chainer_compat.variable import Parameter, Variable


class Affine(Link):
    """A tiny Linear-like link: y = x W^T + b."""

    def __init__(self, in_size: int | None, out_size: int, initial_w=None) -> None:
        super().__init__()
        self.out_size = out_size
        with self.init_scope():
            self.W = Parameter(initializers.Normal() if initial_w is None else initial_w,
                               None if in_size is None else (out_size, in_size))
            self.b = Parameter(initializers.Zero(), (out_size,))

    def forward(self, x):
        if self.W.array is None:
            self.W.initialize((self.out_size, x.shape[1]))
        y = chainer.functions.matmul(x, self.W, transb=True)
        return y + chainer.functions.broadcast_to(self.b, y.shape)


class Net(Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.second = Affine(3, 2)
            self.first = Affine(4, 3)
        self.add_persistent("steps", 0)
        self.add_persistent("mean", numpy.zeros(3, numpy.float32))

    def forward(self, x):
        return self.second(self.first(x))


# ----------------------------------------------------------------------------- registration

def test_parameters_assigned_in_init_scope_are_registered_and_named():
    link = Affine(4, 3)
    assert sorted(link._params) == ["W", "b"]
    assert link.W.name == "W" and link.b.name == "b"


def test_assignment_outside_init_scope_does_not_register():
    link = Affine(4, 3)
    link.extra = Parameter(numpy.zeros(2, numpy.float32))
    with link.init_scope():
        link.plain = Variable(numpy.zeros(2, numpy.float32))
    assert "extra" not in link._params and "plain" not in link._params
    assert [name for name, _ in link.namedparams()] == ["/W", "/b"]


def test_within_init_scope_is_true_only_inside_and_restored_after_error():
    link = Link()
    assert not link.within_init_scope
    with pytest.raises(ZeroDivisionError), link.init_scope():
        assert link.within_init_scope
        raise ZeroDivisionError
    assert not link.within_init_scope


def test_add_param_creates_nan_parameter_of_dtype():
    link = Link()
    link.add_param("W", (2, 3), dtype=numpy.float64)
    assert link.W.shape == (2, 3) and link.W.dtype == numpy.float64
    assert numpy.isnan(link.W.array).all()
    link.add_param("u")
    assert link.u.array is None
    link.add_param("c", (2,), initializer=initializers.Constant(3.0))
    assert (link.c.array == 3).all()
    with pytest.raises(AttributeError, match="attribute exists"):
        link.add_param("W", (1,))


def test_link_keyword_parameters_take_shape_or_shape_and_dtype():
    link = Link(a=(2, 3), b=((4,), numpy.float16), c=None)
    assert link.a.shape == (2, 3) and link.a.dtype == numpy.float32
    assert link.b.dtype == numpy.float16
    assert link.c.array is None
    assert sorted(link._params) == ["a", "b", "c"]


def test_link_keyword_parameters_read_shapes_with_int_as_chainer_does():
    # What int() takes is an axis (a NumPy integer, a float), so a float axis fails where the
    # array is made, with NumPy's TypeError; int()'s ValueError for a string propagates.
    link = Link(a=numpy.int64(4), b=[2, 3], z=(0, 3))
    assert link.a.shape == (4,) and link.b.shape == (2, 3)
    assert link.z.shape == (0, 3)  # Chainer reads a zero axis as the end of a shape and fails
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        Link(x=(2.5,))
    with pytest.raises(ValueError, match="invalid literal for int"):
        Link(x="bad")


def test_add_persistent_and_register_persistent():
    link = Affine(2, 2)
    link.add_persistent("count", 3)
    assert link.count == 3 and "count" in link._persistent
    with pytest.raises(AttributeError, match="attribute exists"):
        link.add_persistent("count", 4)
    link.W_copy = 5
    link.register_persistent("W_copy")
    assert "W_copy" in link._persistent
    with pytest.raises(AttributeError, match="non-existent attribute missing"):
        link.register_persistent("missing")
    # A parameter re-registered as persistent stops being a parameter.
    link.register_persistent("b")
    assert "b" not in link._params and "b" in link._persistent


def test_delattr_unregisters():
    link = Affine(2, 2)
    link.add_persistent("count", 1)
    del link.W
    del link.count
    assert "W" not in link._params and "count" not in link._persistent


class NoSuperInit(Link):
    def __init__(self) -> None:
        pass

    def forward(self, x):
        return x


def test_init_scope_and_call_need_link_init():
    link = NoSuperInit()
    with pytest.raises(RuntimeError, match=r"^Link\.__init__\(\) has not been called\.\n"), \
            link.init_scope():
        pass
    with pytest.raises(RuntimeError, match="super"):
        link(1)


def test_call_runs_forward_with_arguments():
    class Echo(Link):
        def forward(self, *args, **kwargs):
            return args, kwargs

    assert Echo()(1, 2, key=3) == ((1, 2), {"key": 3})


def test_call_without_forward_raises_attribute_error():
    with pytest.raises(AttributeError, match="must define forward"):
        Link()(1)


def test_mixin_call_is_preferred_over_forward():
    class Mixin:
        def __call__(self, x):
            return ("mixin", x)

    class Mixed(Link, Mixin):
        def forward(self, x):
            return ("forward", x)

    assert Mixed()(1) == ("mixin", 1)


# ----------------------------------------------------------------------------- traversal

def test_params_and_namedparams_in_name_order_with_and_without_uninitialized():
    link = Link()
    with link.init_scope():
        link.z = Parameter(numpy.zeros(1, numpy.float32))
        link.a = Parameter(numpy.zeros(2, numpy.float32))
        link.lazy = Parameter(initializers.Zero())
    assert [name for name, _ in link.namedparams()] == ["/a", "/lazy", "/z"]
    assert [name for name, _ in link.namedparams(include_uninit=False)] == ["/a", "/z"]
    assert [p.name for p in link.params(include_uninit=False)] == ["a", "z"]


def test_chain_children_links_and_paths():
    net = Net()
    assert [child.name for child in net.children()] == ["first", "second"]
    assert [path for path, _ in net.namedlinks()] == ["/", "/first", "/second"]
    assert [path for path, _ in net.namedlinks(skipself=True)] == ["/first", "/second"]
    assert list(net.links(skipself=True)) == [net.first, net.second]
    assert [path for path, _ in net.namedparams()] == [
        "/first/W", "/first/b", "/second/W", "/second/b"]
    assert net["first"] is net.first


def test_nested_chain_paths():
    outer = Chain(inner=Chain(leaf=Affine(2, 2)))
    assert [path for path, _ in outer.namedlinks()] == ["/", "/inner", "/inner/leaf"]
    assert [path for path, _ in outer.namedparams()] == ["/inner/leaf/W", "/inner/leaf/b"]


def test_chain_add_link_errors():
    net = Net()
    with pytest.raises(AttributeError, match="attribute exists"):
        net.add_link("first", Affine(1, 1))
    with pytest.raises(TypeError, match="non-link"):
        net.add_link("other", object())
    with pytest.raises(AttributeError, match="attribute exists"), net.init_scope():
        net.first = Affine(1, 1)


def test_chain_delattr_removes_child():
    net = Net()
    del net.first
    assert [child.name for child in net.children()] == ["second"]


def test_chainlist_sequence_operations_rename_children():
    a, b, c = Affine(1, 1), Affine(1, 1), Affine(1, 1)
    chain_list = ChainList(a, b)
    chain_list.append(c)
    assert [link.name for link in chain_list] == ["0", "1", "2"]
    chain_list.insert(0, Affine(1, 1))
    assert [link.name for link in chain_list] == ["0", "1", "2", "3"]
    assert chain_list[1] is a and len(chain_list) == 4
    del chain_list[0]
    assert chain_list[0] is a and a.name == "0" and c.name == "2"
    replacement = Affine(1, 1)
    chain_list[-1] = replacement
    assert replacement.name == "2"
    assert [path for path, _ in chain_list.namedparams()] == [
        "/0/W", "/0/b", "/1/W", "/1/b", "/2/W", "/2/b"]
    assert [path for path, _ in chain_list.namedlinks()] == ["/", "/0", "/1", "/2"]


def test_chainlist_rejects_non_links_and_registration_by_assignment():
    chain_list = ChainList()
    with pytest.raises(TypeError, match="must be Links"):
        chain_list.append(3)
    with pytest.raises(TypeError, match="init_scope"), chain_list.init_scope():
        chain_list.child = Affine(1, 1)
    with pytest.raises(TypeError, match="integers or slices"):
        chain_list["a"] = Affine(1, 1)


def test_count_params_warns_for_uninitialized():
    link = Affine(None, 3)
    with pytest.warns(UserWarning, match="'/W' has not been initialized"):
        assert link.count_params() == 3
    link(Variable(numpy.ones((2, 4), numpy.float32)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert link.count_params() == 15


def test_str_of_chain_and_chainlist():
    class Spec(Link):
        @property
        def printable_specs(self):
            yield "size", 3

    assert str(Spec()) == "Spec(size=3)"
    assert str(Chain(a=Spec())) == "Chain(\n  (a): Spec(size=3),\n)"
    assert str(ChainList(Spec(), Chain())) == "ChainList(\n  (0): Spec(size=3),\n  (1): Chain(),\n)"
    assert str(Chain()) == "Chain()"


# ----------------------------------------------------------------------------- gradients

def test_forward_backward_fills_parameter_gradients():
    net = Net()
    x = numpy.random.default_rng(0).uniform(-1, 1, (5, 4)).astype(numpy.float32)
    # compat: gradients of fresh parameters are NaN until cleared, as in Chainer.
    assert numpy.isnan(net.second.b.grad).all()
    net.cleargrads()
    y = net(Variable(x))
    chainer.functions.sum(y).backward()
    h = x @ net.first.W.array.T + net.first.b.array
    # d(sum(h W2^T + b2))/d b2 is the batch size; d/d W2 sums h over the batch.
    numpy.testing.assert_allclose(net.second.b.grad, numpy.full(2, 5.0))
    numpy.testing.assert_allclose(net.second.W.grad, numpy.tile(h.sum(0), (2, 1)), rtol=1e-5)


def test_cleargrads_zerograds_addgrads():
    net = Net()
    for param in net.params():
        param.grad = numpy.ones_like(param.array)
    other = Net()
    for param in other.params():
        param.grad = numpy.full_like(param.array, 2.0)
    net.addgrads(other)
    assert all((p.grad == 3).all() for p in net.params())
    with pytest.warns(DeprecationWarning, match="cleargrads"):
        net.zerograds()
    assert all((p.grad == 0).all() for p in net.params())
    net.cleargrads()
    assert all(p.grad is None for p in net.params())


def test_update_flags_follow_update_rules():
    class Rule:
        enabled = True

    link = Affine(2, 2)
    assert not link.update_enabled  # no rules yet
    for param in link.params():
        param.update_rule = Rule()
    assert link.update_enabled
    link.disable_update()
    assert not link.update_enabled and all(not p.update_rule.enabled for p in link.params())
    link.enable_update()
    assert all(p.update_rule.enabled for p in link.params())


# ----------------------------------------------------------------------------- copies

def test_copy_share_shares_arrays_but_not_parameters_or_grads():
    net = Net()
    for param in net.params():
        param.grad = numpy.ones_like(param.array)
    shared = net.copy()
    assert shared.name is None
    assert shared.first is not net.first and shared.first.name == "first"
    assert shared.first.W is not net.first.W
    assert shared.first.W.array is net.first.W.array
    assert shared.first.W.grad is None and net.first.W.grad is not None
    shared.first.W.array[...] = 7
    assert (net.first.W.array == 7).all()
    # Registration sets are copies: registering on the copy leaves the original alone.
    shared.first.add_persistent("new", 1)
    assert "new" not in net.first._persistent


def _lazy_link():
    link = Link()
    with link.init_scope():
        link.W = Parameter(initializers.Normal())
    return link


@pytest.mark.parametrize("first", ["original", "copy"])
def test_copy_share_made_before_lazy_initialization_shares_the_weights(first):
    # compat: as in Chainer (NOTE [shared arrays]): eval_model = model.copy() before the first
    # batch must evaluate the weights the original trains.
    original = _lazy_link()
    shared = original.copy()
    (original if first == "original" else shared).W.initialize((2, 3))
    assert original.W.array is not None and original.W.array is shared.W.array
    original.W.array -= 1.0  # an in-place update through the setter, as an optimizer's
    assert shared.W.array is original.W.array


def test_assigning_the_array_of_a_shallow_copy_reaches_the_original():
    link = Link()
    with link.init_scope():
        link.W = Parameter(numpy.ones(2, numpy.float32))
    shared = link.copy()
    link.W.array = numpy.zeros(2, numpy.float32)
    assert shared.W.array.tolist() == [0.0, 0.0]
    shared.W.data = numpy.full(3, 5.0, numpy.float32)
    assert link.W.array.tolist() == [5.0, 5.0, 5.0] and link.W.node.shape == (3,)
    p = Parameter(initializers.One())
    q = copy.copy(p)
    p.initialize((2,))
    assert q.array is p.array and q.node.shape == (2,)


def test_copies_that_are_gone_do_not_pile_up_in_the_group():
    p = Parameter(numpy.ones(2, numpy.float32))
    for _ in range(50):
        copy.copy(p)
    kept = copy.copy(p)
    assert len(p._shared.members) <= 5  # swept whenever it doubles: about twice the live ones
    p.array = numpy.zeros(2, numpy.float32)
    assert kept.array.tolist() == [0.0, 0.0]


class _OtherHost(backend.CpuDevice):
    """A device other than the CPU, with host arrays: a GPU's stand-in on machines without."""

    def __eq__(self, other):
        return isinstance(other, _OtherHost)

    __hash__ = backend.CpuDevice.__hash__

    def send_array(self, array):
        return None if array is None else numpy.array(array, copy=True)


@pytest.mark.parametrize("initialized", [True, False])
def test_moving_one_of_several_copies_leaves_the_others_shared(initialized):
    # compat: as in Chainer, moving to another device breaks that copy's sharing only.
    p = Parameter(numpy.ones(2, numpy.float32) if initialized else initializers.One())
    moved, kept = copy.copy(p), copy.copy(p)
    moved.to_device(_OtherHost())
    if initialized:
        p.array = numpy.zeros(2, numpy.float32)
    else:
        p.initialize((2,))
    assert kept.array is p.array and moved.array is not p.array
    assert moved._shared is None and len(p._shared.others(p)) == 1


def test_copies_made_and_assigned_from_threads_all_share():
    import threading

    p = Parameter(numpy.ones(2, numpy.float32))
    copies = []

    def make():
        for _ in range(200):
            copies.append(copy.copy(p))

    threads = [threading.Thread(target=make) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    p.array = numpy.full(2, 3.0, numpy.float32)
    assert len(copies) == 800 and all(c.array is p.array for c in copies)


def test_staying_on_the_cpu_keeps_the_sharing():
    original = _lazy_link()
    shared = original.copy()
    shared.to_cpu()  # no move: the slot stays shared, as in Chainer
    original.W.initialize((2,))
    assert shared.W.array is original.W.array


def test_copy_copy_is_independent_with_equal_values():
    net = Net()
    net.mean[...] = 2
    copied = net.copy(mode="copy")
    assert copied.name is None and copied.first.name == "first"
    for (_path, a), (_, b) in zip(net.namedparams(), copied.namedparams()):
        assert a is not b and a.array is not b.array
        numpy.testing.assert_array_equal(a.array, b.array)
    assert copied.mean is not net.mean and (copied.mean == 2).all()
    copied.first.W.array[...] = 0
    assert not (net.first.W.array == 0).all()


def test_copy_init_reinitializes_initialized_parameters():
    numpy.random.seed(0)
    net = Net()
    net.first.W.array[...] = 100.0
    reinit = net.copy(mode="init")
    assert not (reinit.first.W.array == 100.0).any()
    assert reinit.first.W.shape == net.first.W.shape
    assert (reinit.first.b.array == 0).all()  # Zero initializer again


def test_copy_rejects_unknown_mode():
    with pytest.raises(ValueError, match="'init','copy', or 'share'"):
        Affine(1, 1).copy(mode="deep")


def test_chainlist_copy_share_keeps_names_and_shares_arrays():
    chain_list = ChainList(Affine(2, 2), Affine(2, 2))
    copied = chain_list.copy()
    assert [link.name for link in copied] == ["0", "1"]
    assert copied[0] is not chain_list[0]
    assert copied[0].W.array is chain_list[0].W.array
    copied.append(Affine(1, 1))
    assert len(chain_list) == 2


def test_copyparams_copies_arrays_and_persistents():
    source, target = Net(), Net()
    source.mean[...] = 4
    source.steps = 9
    target.copyparams(source)
    for (_, a), (_, b) in zip(source.namedparams(), target.namedparams()):
        numpy.testing.assert_array_equal(a.array, b.array)
        assert a.array is not b.array
    assert (target.mean == 4).all() and target.steps == 9
    other = Net()
    other.copyparams(source, copy_persistent=False)
    assert other.steps == 0 and (other.mean == 0).all()


def test_deepcopy_keeps_the_device_object():
    net = Net()
    copied = copy.deepcopy(net)
    assert copied.device is net.device
    assert copied.first.W.array is not net.first.W.array


# ----------------------------------------------------------------------------- devices

def test_cpu_device_and_to_device_numpy():
    net = Net()
    assert isinstance(net.device, backend.CpuDevice) and net.xp is numpy
    assert net.to_device("@numpy") is net and net.to_cpu() is net
    assert isinstance(net.first.W.array, numpy.ndarray)


def test_unsupported_backends_raise():
    with pytest.raises(RuntimeError, match="iDeep"):
        Link().to_intel64()
    with pytest.raises(RuntimeError, match="ChainerX"):
        Link().to_chx()
    link = Link()
    assert link.from_chx() is link


def test_device_id_is_deprecated():
    with pytest.warns(DeprecationWarning, match="Link.device"):
        assert Link()._device_id is None


def require_cuda():
    """Returns cupy, or skips the test without CuPy or a CUDA device."""
    cupy = pytest.importorskip("cupy")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no driver means no device
        count = 0
    if count == 0:
        pytest.skip("needs a CUDA device")
    return cupy


@pytest.mark.gpu
def test_to_gpu_and_back_moves_parameters_and_persistent_arrays():
    cupy = require_cuda()
    net = Net()
    with net.first.init_scope():
        net.first.lazy = Parameter(initializers.Zero())
    net.to_gpu()
    assert net.xp is cupy and net.first.xp is cupy
    assert isinstance(net.first.W.array, cupy.ndarray)
    assert isinstance(net.mean, cupy.ndarray) and net.steps == 0
    net.first.lazy.initialize((2,))
    assert isinstance(net.first.lazy.array, cupy.ndarray)
    net.cleargrads()
    y = net(Variable(cupy.ones((2, 4), numpy.float32)))
    chainer.functions.sum(y).backward()
    assert isinstance(net.first.W.grad, cupy.ndarray)
    net.to_device("@numpy")
    assert isinstance(net.first.W.array, numpy.ndarray) and isinstance(net.mean, numpy.ndarray)
    assert isinstance(net.first.W.grad, numpy.ndarray)


def test_from_params_is_for_link_classes_that_define_it():
    with pytest.raises(NotImplementedError, match="Link.from_params"):
        Link.from_params(numpy.zeros(2))
    from chainer_compat.links.connection.linear import Linear
    built = Linear.from_params(numpy.ones((3, 2), numpy.float32))
    assert built.W.shape == (3, 2)


def test_serialize_treats_a_mock_serializer_as_an_ordinary_one():
    # A serializer that answers every attribute (a MagicMock, as Chainer's own tests use) is
    # not the check pass of a load: it is called once per parameter, with the array.
    link = Link()
    with link.init_scope():
        link.w = Parameter(numpy.arange(3.0))
        link.u = Parameter()
    serializer = mock.MagicMock(return_value=None)
    link.serialize(serializer)
    calls = {args[0]: args[1] for args, _ in serializer.call_args_list}
    assert sorted(calls) == ["u", "w"]
    assert calls["u"] is None
    numpy.testing.assert_array_equal(calls["w"], numpy.arange(3.0))
