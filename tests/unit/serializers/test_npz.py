"""Tests for chainer_compat.serializers (NPZ) and testing.save_and_load_npz on Links."""

from __future__ import annotations

import fractions
import io
import pickle
import re

import numpy
import pytest

from chainer_compat import initializers, serializers, testing
from chainer_compat.link import Chain, ChainList, Link
from chainer_compat.serializers import npz
from chainer_compat.variable import Parameter


class Leaf(Link):
    def __init__(self, lazy: bool = False) -> None:
        super().__init__()
        with self.init_scope():
            self.W = Parameter(initializers.Normal(), None if lazy else (3, 2))
            self.b = Parameter(initializers.Zero(), (3,))
        self.add_persistent("count", 0)
        self.add_persistent("ratio", 0.5)
        self.add_persistent("running", numpy.zeros(3, numpy.float32))
        self.add_persistent("nothing", None)


class Tree(Chain):
    def __init__(self, lazy: bool = False) -> None:
        super().__init__()
        with self.init_scope():
            self.leaf = Leaf(lazy)
            self.stack = ChainList(Leaf(lazy), Leaf(lazy))


def randomize(tree: Tree, seed: int) -> None:
    rng = numpy.random.default_rng(seed)
    for link in tree.links():
        if isinstance(link, Leaf):
            link.W.array = rng.uniform(-1, 1, (3, 2)).astype(numpy.float32)
            link.b.array[...] = rng.uniform(-1, 1, 3)
            link.count = int(rng.integers(1, 100))
            link.ratio = float(rng.uniform())
            link.running[...] = rng.uniform(-1, 1, 3)


def assert_same_state(a: Tree, b: Tree) -> None:
    for (path, p), (other_path, q) in zip(a.namedparams(), b.namedparams()):
        assert path == other_path
        numpy.testing.assert_array_equal(p.array, q.array)
    for (path, x), (_, y) in zip(a.namedlinks(), b.namedlinks()):
        if isinstance(x, Leaf):
            assert (x.count, x.ratio, x.nothing) == (y.count, y.ratio, y.nothing), path
            assert type(y.count) is int and type(y.ratio) is float
            numpy.testing.assert_array_equal(x.running, y.running)


# ----------------------------------------------------------------------------- DictionarySerializer

def test_dictionary_serializer_flattens_paths_and_keeps_values():
    tree = Tree()
    serializer = serializers.DictionarySerializer()
    serializer.save(tree)
    target = serializer.target
    assert {"leaf/W", "leaf/b", "leaf/count", "leaf/ratio", "leaf/running", "leaf/nothing",
            "stack/0/W", "stack/1/running"} <= set(target)
    assert all(isinstance(value, numpy.ndarray) for value in target.values())
    assert target["leaf/count"].shape == () and target["leaf/count"] == 0
    assert target["leaf/nothing"].dtype == object and target["leaf/nothing"][()] is None
    # The hierarchy itself is unchanged by saving.
    assert tree.leaf.count == 0 and tree.leaf.nothing is None


def test_dictionary_serializer_strips_slashes():
    serializer = serializers.DictionarySerializer()
    assert serializer["/child/"]("/x", 1) == 1
    assert list(serializer.target) == ["child/x"]


# ----------------------------------------------------------------------------- round trips

@pytest.mark.parametrize("compression", [True, False])
def test_save_and_load_npz_round_trip(tmp_path, compression):
    source, target = Tree(), Tree()
    randomize(source, 0)
    path = tmp_path / "model"  # no extension: the name is used as given
    serializers.save_npz(str(path), source, compression=compression)
    assert path.exists() and not (tmp_path / "model.npz").exists()
    serializers.load_npz(str(path), target)
    assert_same_state(source, target)


def test_round_trip_through_file_objects():
    source, target = Tree(), Tree()
    randomize(source, 1)
    stream = io.BytesIO()
    serializers.save_npz(stream, source)
    stream.seek(0)
    serializers.load_npz(stream, target)
    assert_same_state(source, target)


def test_loading_initializes_lazy_parameters(tmp_path):
    source, target = Tree(), Tree(lazy=True)
    randomize(source, 2)
    serializers.save_npz(tmp_path / "m.npz", source)
    serializers.load_npz(tmp_path / "m.npz", target)
    assert target.leaf.W.shape == (3, 2)
    assert_same_state(source, target)


def test_testing_save_and_load_npz_copies_state():
    source, target = Tree(), Tree()
    randomize(source, 3)
    testing.save_and_load_npz(source, target)
    assert_same_state(source, target)


def test_testing_save_and_load_calls_saver_then_loader(tmp_path):
    calls = []
    testing.save_and_load("src", "dst", str(tmp_path / "f"),
                          lambda name, obj: calls.append(("save", obj)),
                          lambda name, obj: calls.append(("load", obj)))
    assert calls == [("save", "src"), ("load", "dst")]


def test_load_npz_with_path_reads_a_sub_hierarchy(tmp_path):
    outer = Chain(model=Tree())
    randomize(outer.model, 4)
    serializers.save_npz(tmp_path / "outer.npz", outer)
    inner = Tree()
    serializers.load_npz(tmp_path / "outer.npz", inner, path="model/")
    assert_same_state(outer.model, inner)


@pytest.mark.parametrize("content", [b"garbage", pickle.dumps({"W": numpy.ones(2)})],
                         ids=["garbage", "a pickle"])
def test_load_npz_of_a_file_that_is_not_npz_raises_chainers_unpickling_error(tmp_path, content):
    # Chainer tries to unpickle such a file; we never do (it could run code), but the error
    # is the UnpicklingError Chainer code catches, and NumPy's ValueError, with Chainer's words.
    path = tmp_path / "not.npz"
    path.write_bytes(content)
    leaf = Leaf()
    before = leaf.W.array.copy()
    with pytest.raises(pickle.UnpicklingError, match=r"^Failed to interpret file .* as a pickle: "
                       r"load_npz reads NPZ archives") as raised:
        serializers.load_npz(str(path), leaf)
    assert isinstance(raised.value, ValueError)
    numpy.testing.assert_array_equal(leaf.W.array, before)


# ----------------------------------------------------------------------------- strictness

def test_strict_missing_key_raises_and_non_strict_keeps_value(tmp_path):
    serializers.save_npz(tmp_path / "leaf.npz", Leaf())
    tree = Tree()
    with pytest.raises(KeyError):
        serializers.load_npz(tmp_path / "leaf.npz", tree)
    tree = Tree()
    before = tree.leaf.W.array.copy()
    serializers.load_npz(tmp_path / "leaf.npz", tree, strict=False)
    numpy.testing.assert_array_equal(tree.leaf.W.array, before)


def test_ignore_names_by_string_callable_and_list(tmp_path):
    source = Leaf()
    source.count = 5
    source.ratio = 0.25
    source.b.array[...] = 1
    serializers.save_npz(tmp_path / "leaf.npz", source)
    for ignore in ("count", lambda key: key == "count", ["ratio", lambda key: key == "count"]):
        target = Leaf()
        serializers.load_npz(tmp_path / "leaf.npz", target, ignore_names=ignore)
        assert target.count == 0
        assert (target.b.array == 1).all()
    with pytest.raises(ValueError, match="ignore_names"):
        serializers.load_npz(tmp_path / "leaf.npz", Leaf(), ignore_names=[3])


def test_mismatched_shape_names_the_key():
    deserializer = serializers.NpzDeserializer({"W": numpy.zeros((2, 2))})
    with pytest.raises(ValueError, match="'W'"):
        deserializer("W", numpy.zeros((3, 3)))


def test_scalar_loading_refuses_lossy_casts():
    deserializer = serializers.NpzDeserializer({"n": numpy.asarray(2.5), "m": numpy.asarray(7)})
    # Chainer 7.8.1's wording.
    with pytest.raises(TypeError, match=re.escape(
            "Cannot safely deserialize from numpy array with dtype=float64 into a variable of "
            "type <class 'int'>.")):
        deserializer("n", 1)
    assert deserializer("m", 1) == 7 and type(deserializer("m", 1)) is int
    assert deserializer("m", 1.0) == 7.0


def test_deserializer_returns_loaded_array_for_none_value():
    array = numpy.arange(3)
    assert serializers.NpzDeserializer({"a": array})("a", None) is array


# -------------------------------------------------------------------------- no general unpickling

def test_object_members_other_than_none_are_refused(tmp_path):
    path = tmp_path / "evil.npz"
    numpy.savez(path, count=numpy.asarray(fractions.Fraction(1, 3), dtype=object))
    link = Link()
    link.add_persistent("count", 0)
    with pytest.raises(pickle.UnpicklingError, match="fractions.Fraction"):
        serializers.load_npz(path, link)


def test_none_written_by_numpy_with_pickle_loads_as_none(tmp_path):
    path = tmp_path / "none.npz"
    numpy.savez(path, value=numpy.asarray(None))
    link = Link()
    link.add_persistent("value", 3)
    serializers.load_npz(path, link)
    assert link.value is None


class _Stores:
    """Serializes one value under the key ``v``."""

    def __init__(self, value):
        self.value = value

    def serialize(self, serializer):
        serializer("v", self.value)


def test_dictionary_serializer_refuses_a_variable_instead_of_storing_an_object_array():
    # compat: Chainer raises TypeError here; storing it wrote a file load_npz then refused.
    from chainer_compat import Variable

    with pytest.raises(TypeError, match=r"^Array cannot be converted into an numpy\.ndarray\n"
                       r"Actual type: <class .*Variable.>\.\n.*pass Variable\.array rather"):
        serializers.save_npz(io.BytesIO(), _Stores(Variable(numpy.ones(2, numpy.float32))))


@pytest.mark.parametrize("value, stored", [([1.0, 2.0], [1.0, 2.0]), ((3, 4), [3, 4]),
                                            (2.5, 2.5), (True, True)])
def test_dictionary_serializer_stores_lists_tuples_and_scalars_as_arrays(value, stored):
    target = npz.serialize(_Stores(value))
    assert numpy.asarray(target["v"]).tolist() == stored


@pytest.mark.gpu
def test_cupy_state_saves_and_loads_into_either_device(cupy):
    source = Tree()
    randomize(source, 6)
    source.leaf.running = numpy.arange(3, dtype=numpy.float32) + 1
    source.to_gpu()
    assert isinstance(source.leaf.running, cupy.ndarray)
    stream = io.BytesIO()
    serializers.save_npz(stream, source)

    on_cpu = Tree()
    stream.seek(0)
    serializers.load_npz(stream, on_cpu)
    assert isinstance(on_cpu.leaf.W.array, numpy.ndarray)
    assert isinstance(on_cpu.leaf.running, numpy.ndarray)

    on_gpu = Tree()
    on_gpu.to_gpu()
    weight, running = on_gpu.leaf.W.array, on_gpu.leaf.running
    stream.seek(0)
    serializers.load_npz(stream, on_gpu)
    assert on_gpu.leaf.W.array is weight  # loaded in place, on the device
    assert isinstance(on_gpu.leaf.running, cupy.ndarray)
    assert running is on_gpu.leaf.running

    source.to_cpu()
    on_gpu.to_cpu()
    assert_same_state(source, on_cpu)
    assert_same_state(source, on_gpu)
