"""Chainer-visible behaviour of ``chainer.serializers.hdf5``: the group and dataset layout of
the files, how None and scalars are stored and loaded, and the errors for missing values.
Each case was checked against Chainer 7.8.1; set CHAINER_CONFORMANCE_TARGET=chainer to run
this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import h5py
import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
L = importlib.import_module(chainer.__name__ + ".links")
npz = importlib.import_module(chainer.__name__ + ".serializers.npz")
hdf5 = importlib.import_module(chainer.__name__ + ".serializers.hdf5")
testing_serializer = importlib.import_module(chainer.__name__ + ".testing.serializer")


class Model(chainer.Chain):
    def __init__(self, units=3):
        super().__init__()
        with self.init_scope():
            self.fc = L.Linear(2, units)
            self.bn = L.BatchNormalization(units)
        self.add_persistent("steps", 0)
        self.add_persistent("rate", 0.5)
        self.add_persistent("memo", None)


def randomized(seed, units=3):
    model = Model(units)
    rng = numpy.random.RandomState(seed)
    for param in model.params():
        param.array[...] = rng.uniform(-1, 1, param.shape)
    model.bn.avg_mean[...] = rng.uniform(-1, 1, units)
    model.bn.N = seed + 1
    model.steps = seed * 10
    model.rate = seed / 7.0
    return model


def datasets_of(path):
    found = {}
    with h5py.File(path, "r") as file:
        file.visititems(lambda name, item: found.__setitem__(
            name, (item.shape, item.dtype.str, item.compression))
            if isinstance(item, h5py.Dataset) else None)
    return found


def test_hdf5_datasets_sit_at_the_npz_keys_with_the_same_shapes_and_dtypes(tmp_path):
    model = randomized(1)
    hdf5.save_hdf5(str(tmp_path / "m.h5"), model)
    npz.save_npz(str(tmp_path / "m.npz"), model)
    found = datasets_of(str(tmp_path / "m.h5"))
    with numpy.load(str(tmp_path / "m.npz"), allow_pickle=True) as arrays:
        assert sorted(found) == sorted(arrays.files)
        for key in arrays.files:
            if key == "memo":
                continue
            assert found[key][0] == arrays[key].shape, key
            assert numpy.dtype(found[key][1]) == arrays[key].dtype, key


def test_children_are_groups_and_none_is_an_empty_float32_dataset(tmp_path):
    hdf5.save_hdf5(str(tmp_path / "m.h5"), randomized(1))
    with h5py.File(str(tmp_path / "m.h5"), "r") as file:
        assert sorted(file.keys()) == ["bn", "fc", "memo", "rate", "steps"]
        assert isinstance(file["fc"], h5py.Group)
        assert file["memo"].shape is None
        assert file["memo"].dtype == numpy.float32


def test_arrays_are_gzip_compressed_at_the_given_level_and_scalars_are_not(tmp_path):
    hdf5.save_hdf5(str(tmp_path / "m.h5"), randomized(1), compression=6)
    with h5py.File(str(tmp_path / "m.h5"), "r") as file:
        assert file["fc/W"].compression == "gzip"
        assert file["fc/W"].compression_opts == 6
        assert file["steps"].compression is None
        assert file["bn/N"].compression is None


def test_round_trip_restores_values_and_python_scalar_types(tmp_path):
    source, target = randomized(2), randomized(5)
    hdf5.save_hdf5(str(tmp_path / "m.h5"), source)
    hdf5.load_hdf5(str(tmp_path / "m.h5"), target)
    for (name, param), (_, other) in zip(source.namedparams(), target.namedparams()):
        numpy.testing.assert_array_equal(param.array, other.array, err_msg=name)
    numpy.testing.assert_array_equal(source.bn.avg_mean, target.bn.avg_mean)
    assert (target.steps, target.rate, target.memo, target.bn.N) == (20, 2 / 7.0, None, 3)
    assert type(target.steps) is int and type(target.rate) is float


def test_a_file_laid_out_by_hand_loads(tmp_path):
    source = randomized(3)
    with h5py.File(str(tmp_path / "m.h5"), "w") as file:
        for name, param in source.namedparams():
            file.create_dataset(name.lstrip("/"), data=param.array)
        for name in ("avg_mean", "avg_var", "N"):
            file.create_dataset("bn/" + name, data=getattr(source.bn, name))
        file.create_dataset("steps", data=7)
        file.create_dataset("rate", data=0.25)
        file.create_dataset("memo", data=numpy.arange(3))
    target = randomized(4)
    hdf5.load_hdf5(str(tmp_path / "m.h5"), target)
    numpy.testing.assert_array_equal(target.fc.W.array, source.fc.W.array)
    assert (target.steps, target.rate) == (7, 0.25)
    assert target.memo.tolist() == [0, 1, 2]


def test_loading_float_into_int_truncates(tmp_path):
    source = randomized(1)
    source.steps = 2.75
    hdf5.save_hdf5(str(tmp_path / "m.h5"), source)
    target = randomized(1)
    hdf5.load_hdf5(str(tmp_path / "m.h5"), target)
    assert target.steps == 2 and type(target.steps) is int


def test_missing_group_is_value_error_and_missing_value_is_key_error(tmp_path):
    hdf5.save_hdf5(str(tmp_path / "fc.h5"), L.Linear(2, 3))
    parent = chainer.Chain()
    with parent.init_scope():
        parent.child = L.Linear(2, 3)
    with pytest.raises(ValueError, match="Inexistent group is specified"):
        hdf5.load_hdf5(str(tmp_path / "fc.h5"), parent)
    hdf5.save_hdf5(str(tmp_path / "empty.h5"), chainer.Chain())
    with pytest.raises(KeyError):
        hdf5.load_hdf5(str(tmp_path / "empty.h5"), L.Linear(2, 3))


def test_shape_mismatch_is_type_error(tmp_path):
    hdf5.save_hdf5(str(tmp_path / "m.h5"), randomized(1, units=3))
    with pytest.raises(TypeError):
        hdf5.load_hdf5(str(tmp_path / "m.h5"), randomized(1, units=4))


def test_non_strict_deserializer_skips_missing_groups_and_values(tmp_path):
    hdf5.save_hdf5(str(tmp_path / "fc.h5"), L.Linear(2, 3))
    target = randomized(1)
    before = target.bn.avg_mean.copy()
    with h5py.File(str(tmp_path / "fc.h5"), "r") as file:
        target.serialize(hdf5.HDF5Deserializer(file, strict=False))
    numpy.testing.assert_array_equal(target.bn.avg_mean, before)
    assert target.steps == 10


def test_save_hdf5_writes_a_dict_item_by_item_at_path_keys(tmp_path):
    hdf5.save_hdf5(str(tmp_path / "d.h5"), {"a/b": numpy.arange(3), "c": 1})
    with h5py.File(str(tmp_path / "d.h5"), "r") as file:
        assert isinstance(file["a"], h5py.Group)
        assert file["a/b"][()].tolist() == [0, 1, 2]
        assert file["c"][()] == 1


def test_serializer_on_a_group_writes_under_it(tmp_path):
    with h5py.File(str(tmp_path / "two.h5"), "w") as file:
        randomized(1).serialize(hdf5.HDF5Serializer(file.require_group("first")))
        randomized(2).serialize(hdf5.HDF5Serializer(file.require_group("second")))
    target = randomized(9)
    with h5py.File(str(tmp_path / "two.h5"), "r") as file:
        assert sorted(file.keys()) == ["first", "second"]
        target.serialize(hdf5.HDF5Deserializer(file["second"]))
    assert target.steps == 20


def test_testing_save_and_load_hdf5_copies_state():
    source, target = randomized(1), randomized(2)
    testing_serializer.save_and_load_hdf5(source, target)
    numpy.testing.assert_array_equal(source.fc.W.array, target.fc.W.array)
    assert target.steps == 10
