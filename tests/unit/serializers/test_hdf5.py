"""Tests for chainer_compat.serializers.hdf5 and testing.save_and_load_hdf5 on Links."""

from __future__ import annotations

import builtins
import sys

import h5py
import numpy
import pytest

from chainer_compat import initializers
from chainer_compat.link import Chain, ChainList, Link
from chainer_compat.serializers import hdf5
from chainer_compat.testing import serializer as testing
from chainer_compat.variable import Parameter, Variable


class Leaf(Link):
    def __init__(self, size: int = 3) -> None:
        super().__init__()
        with self.init_scope():
            self.W = Parameter(initializers.Normal(), (size, 2))
            self.b = Parameter(initializers.Zero(), (size,))
        self.add_persistent("count", 0)
        self.add_persistent("ratio", 0.5)
        self.add_persistent("nothing", None)


class Tree(Chain):
    def __init__(self, size: int = 3) -> None:
        super().__init__()
        with self.init_scope():
            self.leaf = Leaf(size)
            self.stack = ChainList(Leaf(size), Leaf(size))


def randomize(tree: Tree, seed: int) -> None:
    rng = numpy.random.default_rng(seed)
    for link in tree.links():
        if isinstance(link, Leaf):
            link.W.array[...] = rng.uniform(-1, 1, link.W.shape)
            link.b.array[...] = rng.uniform(-1, 1, link.b.shape)
            link.count = int(rng.integers(1, 100))
            link.ratio = float(rng.uniform())


def assert_same_state(a: Tree, b: Tree) -> None:
    for (path, p), (other_path, q) in zip(a.namedparams(), b.namedparams(), strict=True):
        assert path == other_path
        numpy.testing.assert_array_equal(p.array, q.array)
    for (path, x), (_, y) in zip(a.namedlinks(), b.namedlinks(), strict=True):
        if isinstance(x, Leaf):
            assert (x.count, x.ratio, x.nothing) == (y.count, y.ratio, y.nothing), path
            assert type(y.count) is int and type(y.ratio) is float


def test_save_then_load_restores_every_value(tmp_path):
    source, target = Tree(), Tree()
    randomize(source, 1)
    randomize(target, 2)
    target.leaf.nothing = numpy.ones(2)
    hdf5.save_hdf5(tmp_path / "tree.h5", source)
    hdf5.load_hdf5(tmp_path / "tree.h5", target)
    assert_same_state(source, target)


def test_file_mirrors_the_hierarchy_as_groups(tmp_path):
    hdf5.save_hdf5(tmp_path / "tree.h5", Tree(), compression=7)
    with h5py.File(tmp_path / "tree.h5", "r") as file:
        assert isinstance(file["stack"], h5py.Group)
        assert isinstance(file["stack/1"], h5py.Group)
        assert file["stack/1/W"].shape == (3, 2)
        assert file["leaf/W"].compression == "gzip"
        assert file["leaf/W"].compression_opts == 7
        # scalars are not compressed, None is an empty dataset
        assert file["leaf/count"].compression is None
        assert file["leaf/nothing"].shape is None


def test_none_loads_as_none_and_value_for_none_loads_as_array(tmp_path):
    source = Leaf()
    source.nothing = numpy.arange(4.0)
    hdf5.save_hdf5(tmp_path / "leaf.h5", source)
    target = Leaf()
    hdf5.load_hdf5(tmp_path / "leaf.h5", target)
    numpy.testing.assert_array_equal(target.nothing, numpy.arange(4.0))


def test_arrays_are_filled_in_place(tmp_path):
    source, target = Leaf(), Leaf()
    randomize_leaf = numpy.random.default_rng(0).uniform(-1, 1, (3, 2)).astype(numpy.float32)
    source.W.array[...] = randomize_leaf
    array_before = target.W.array
    hdf5.save_hdf5(tmp_path / "leaf.h5", source)
    hdf5.load_hdf5(tmp_path / "leaf.h5", target)
    assert target.W.array is array_before
    numpy.testing.assert_array_equal(array_before, randomize_leaf)


def test_shape_mismatch_raises_type_error(tmp_path):
    hdf5.save_hdf5(tmp_path / "tree.h5", Tree(3))
    with pytest.raises(TypeError):
        hdf5.load_hdf5(tmp_path / "tree.h5", Tree(4))


def test_missing_group_raises_value_error_and_missing_dataset_key_error(tmp_path):
    hdf5.save_hdf5(tmp_path / "leaf.h5", Leaf())
    with pytest.raises(ValueError, match="Inexistent group"):
        hdf5.load_hdf5(tmp_path / "leaf.h5", Tree())

    class Wider(Leaf):
        def __init__(self) -> None:
            super().__init__()
            self.add_persistent("extra", 1)

    with pytest.raises(KeyError):
        hdf5.load_hdf5(tmp_path / "leaf.h5", Wider())


def test_non_strict_deserializer_leaves_missing_values(tmp_path):
    hdf5.save_hdf5(tmp_path / "leaf.h5", Leaf())
    tree = Tree()
    tree.leaf.count = 5
    with h5py.File(tmp_path / "leaf.h5", "r") as file:
        tree.serialize(hdf5.HDF5Deserializer(file, strict=False))
    # the file's root is a Leaf, so the tree's children are all missing
    assert tree.leaf.count == 5
    with h5py.File(tmp_path / "leaf.h5", "r") as file:
        deserializer = hdf5.HDF5Deserializer(file, strict=False)
        assert deserializer("absent", 7) == 7
        assert deserializer["a"]["b"]("W", 8) == 8


def test_serializer_writes_into_a_given_group_and_returns_the_value(tmp_path):
    with h5py.File(tmp_path / "many.h5", "w") as file:
        serializer = hdf5.HDF5Serializer(file.require_group("first"))
        assert serializer("count", 3) == 3
        serializer["child"]("x", numpy.arange(5))
        assert file["first/count"][()] == 3
        numpy.testing.assert_array_equal(file["first/child/x"][()], numpy.arange(5))
    with h5py.File(tmp_path / "many.h5", "r") as file:
        deserializer = hdf5.HDF5Deserializer(file["first"])
        assert deserializer("count", 0) == 3
        assert deserializer["child"]("x", None).tolist() == list(range(5))


def test_serializer_refuses_a_variable(tmp_path):
    with h5py.File(tmp_path / "v.h5", "w") as file:
        with pytest.raises(TypeError):
            hdf5.HDF5Serializer(file)("v", Variable(numpy.zeros(2)))


def test_save_hdf5_writes_a_dict_by_paths(tmp_path):
    hdf5.save_hdf5(tmp_path / "d.h5", {"a/b": numpy.arange(3), "/c": 1})
    with h5py.File(tmp_path / "d.h5", "r") as file:
        numpy.testing.assert_array_equal(file["a/b"][()], numpy.arange(3))
        assert file["c"][()] == 1


def test_save_hdf5_refuses_object_arrays_in_a_dict(tmp_path):
    with pytest.raises(TypeError, match="save_npz"):
        hdf5.save_hdf5(tmp_path / "d.h5", {"x": numpy.array([None, 1], dtype=object)})


def test_testing_save_and_load_hdf5_copies_state():
    source, target = Tree(), Tree()
    randomize(source, 3)
    testing.save_and_load_hdf5(source, target)
    assert_same_state(source, target)


def test_testing_save_and_load_uses_the_name_inside_a_temporary_directory():
    paths = []
    testing.save_and_load("src", "dst", "f.bin", lambda path, obj: paths.append(path),
                          lambda path, obj: paths.append(path))
    assert paths[0] == paths[1] and paths[0].endswith("f.bin") and paths[0] != "f.bin"


@pytest.mark.parametrize("use", ["save", "load", "serializer", "deserializer"])
def test_missing_h5py_raises_runtime_error_that_is_also_import_error(
        monkeypatch, tmp_path, use):
    real_import = builtins.__import__

    def refuse_h5py(name, *args, **kwargs):
        if name == "h5py":
            raise ImportError("No module named 'h5py'")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "h5py")
    monkeypatch.setattr(builtins, "__import__", refuse_h5py)
    calls = {"save": lambda: hdf5.save_hdf5(tmp_path / "x.h5", Leaf()),
             "load": lambda: hdf5.load_hdf5(tmp_path / "x.h5", Leaf()),
             "serializer": lambda: hdf5.HDF5Serializer(None),
             "deserializer": lambda: hdf5.HDF5Deserializer(None)}
    with pytest.raises(RuntimeError, match="pip install h5py") as info:
        calls[use]()
    assert isinstance(info.value, ImportError)


def test_importing_the_module_does_not_import_h5py():
    import subprocess
    code = ("import sys; import chainer_compat.serializers.hdf5; "
            "print('h5py' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "False"


@pytest.mark.gpu
def test_cupy_arrays_are_saved_from_and_loaded_into_the_device(cupy, tmp_path):
    source, target = Tree(), Tree()
    randomize(source, 4)
    source.to_gpu()
    target.to_gpu()
    target_array = target.leaf.W.array
    hdf5.save_hdf5(tmp_path / "tree.h5", source)
    hdf5.load_hdf5(tmp_path / "tree.h5", target)
    assert target.leaf.W.array is target_array
    assert isinstance(target_array, cupy.ndarray)
    for (_, p), (_, q) in zip(source.namedparams(), target.namedparams(), strict=True):
        numpy.testing.assert_array_equal(cupy.asnumpy(p.array), cupy.asnumpy(q.array))
    assert (target.leaf.count, target.leaf.ratio) == (source.leaf.count, source.leaf.ratio)
