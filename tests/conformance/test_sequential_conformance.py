"""Chainer-visible behaviour of ``Sequential`` and ``Link.repeat``: forward chaining, the list
operations, child names and parameter paths (in Chainer's child order), copies, repeat modes,
text and the exception types. Each case was checked against Chainer 7.8.1; set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os
import pickle

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = chainer.functions


class Affine(chainer.Link):
    """y = x W^T, with W drawn from a normal distribution."""

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(chainer.initializers.Normal(), (out_size, in_size))

    def forward(self, x):
        return F.matmul(x, self.W, transb=True)


def _x(rows=2, columns=3):
    return numpy.arange(rows * columns, dtype=numpy.float32).reshape(rows, columns) - 2


def _double(x):
    return x * 2


def _split(x):
    return x, x + 1


# ----------------------------------------------------------------------------- the class

def test_sequential_is_a_chainlist_exported_at_top_level():
    assert chainer.Sequential is chainer.sequential.Sequential
    assert issubclass(chainer.Sequential, chainer.ChainList)
    assert isinstance(chainer.Sequential(), chainer.Link)


# ----------------------------------------------------------------------------- forward

def test_forward_calls_links_and_functions_in_order():
    first, second = Affine(3, 4), Affine(4, 2)
    model = chainer.Sequential(first, F.relu, second, _double)
    x = _x()
    expected = (numpy.maximum(x @ first.W.array.T, 0) @ second.W.array.T) * 2
    numpy.testing.assert_allclose(model(x).array, expected, rtol=1e-5)


def test_forward_unpacks_a_tuple_output_into_the_next_layer():
    model = chainer.Sequential(_split, lambda a, b: a * 10 + b)
    numpy.testing.assert_array_equal(model(numpy.float32(2)), numpy.float32(23))


def test_forward_passes_several_inputs_to_the_first_layer():
    model = chainer.Sequential(lambda a, b: a - b, _double)
    assert model(7, 3) == 8


def test_forward_of_an_empty_sequential_raises_runtime_error():
    with pytest.raises(RuntimeError, match="Sequential does not have any layer"):
        chainer.Sequential()(_x())


def test_forward_passes_backprop_through_every_link():
    first, second = Affine(3, 4), Affine(4, 2)
    model = chainer.Sequential(first, F.tanh, second)
    F.sum(model(_x())).backward()
    assert first.W.grad is not None and second.W.grad is not None
    assert first.W.grad.shape == (4, 3)


# ----------------------------------------------------------------------------- list operations

def test_length_iteration_reversal_membership_and_indexing_see_every_layer():
    link = Affine(2, 2)
    model = chainer.Sequential(link, F.relu, _double)
    assert len(model) == 3
    assert list(model) == [link, F.relu, _double]
    assert list(reversed(model)) == [_double, F.relu, link]
    assert F.relu in model and F.tanh not in model
    assert model[0] is link and model[-1] is _double
    assert model[1:] == [F.relu, _double]  # a slice is a plain list
    assert not chainer.Sequential()


def test_append_extend_insert_pop_remove():
    model = chainer.Sequential(F.relu)
    model.append(_double)
    model.extend(chainer.Sequential(F.tanh, F.sigmoid))
    model.insert(1, _split)
    model.insert(-1, F.exp)
    assert list(model) == [F.relu, _split, _double, F.tanh, F.exp, F.sigmoid]
    assert model.pop() is F.sigmoid
    assert model.pop(0) is F.relu
    model.remove(F.tanh)
    assert list(model) == [_split, _double, F.exp]


def test_index_and_count_compare_layers():
    model = chainer.Sequential(F.relu, _double, F.relu)
    assert model.index(_double) == 1
    assert model.count(F.relu) == 2
    with pytest.raises(ValueError):
        model.index(F.tanh)


def test_item_assignment_replaces_a_layer():
    link = Affine(2, 2)
    model = chainer.Sequential(F.relu, _double, F.tanh)
    model[1] = link
    assert list(model) == [F.relu, link, F.tanh]
    assert link.name == "0"
    model[1] = F.exp
    assert list(model) == [F.relu, F.exp, F.tanh]
    assert list(model.children()) == []


def test_delete_removes_the_layer_and_renames_remaining_links():
    a, b, c = Affine(2, 2), Affine(2, 2), Affine(2, 2)
    model = chainer.Sequential(a, b, c)
    del model[0]
    assert list(model) == [b, c]
    assert sorted(link.name for link in model.children()) == ["0", "1"]
    assert [path for path, _ in model.namedparams()] == ["/0/W", "/1/W"]


@pytest.mark.parametrize("mutate", [
    lambda model: model.append(3),
    lambda model: model.insert(0, "relu"),
    lambda model: model.__setitem__(0, None),
    lambda model: chainer.Sequential(F.relu, 1.5),
], ids=["append", "insert", "setitem", "constructor"])
def test_a_layer_that_is_not_callable_raises_value_error(mutate):
    with pytest.raises(ValueError):
        mutate(chainer.Sequential(F.relu))


def test_index_errors_have_chainers_types():
    model = chainer.Sequential(F.relu, F.tanh)
    with pytest.raises(IndexError):
        model.insert(3, F.relu)
    with pytest.raises(IndexError):
        model.insert(-3, F.relu)
    with pytest.raises(ValueError):
        model[2] = F.relu  # past the end: ValueError in Chainer
    with pytest.raises(IndexError):
        model[-3] = F.relu
    with pytest.raises(TypeError):
        model[0:1] = [F.relu]
    with pytest.raises(TypeError):
        del model[0:1]
    with pytest.raises(IndexError):
        model.pop(5)
    with pytest.raises(ValueError):
        model.remove(F.sigmoid)
    assert list(model) == [F.relu, F.tanh]


# ----------------------------------------------------------------------------- operators

def test_add_makes_a_new_sequential_of_the_same_layers():
    left_link, right_link = Affine(2, 2), Affine(2, 2)
    left = chainer.Sequential(left_link, F.relu)
    right = chainer.Sequential(right_link, F.tanh)
    both = left + right
    assert type(both) is chainer.Sequential
    assert list(both) == [left_link, F.relu, right_link, F.tanh]
    assert len(left) == 2 and len(right) == 2


def test_in_place_add_appends_and_keeps_the_object():
    model = chainer.Sequential(F.relu)
    same = model
    model += chainer.Sequential(F.tanh)
    assert model is same and list(model) == [F.relu, F.tanh]


def test_add_with_anything_but_a_sequential_raises_value_error():
    model = chainer.Sequential(F.relu)
    with pytest.raises(ValueError):
        model + [F.tanh]
    with pytest.raises(ValueError):
        model += [F.tanh]
    with pytest.raises(TypeError):
        [F.tanh] + model  # no __radd__


def test_multiplication_is_not_defined():
    model = chainer.Sequential(F.relu)
    with pytest.raises(TypeError):
        model * 2
    with pytest.raises(TypeError):
        2 * model


# ----------------------------------------------------------------------------- by layer type

def test_layer_types_are_class_names_for_links_and_names_for_functions():
    model = chainer.Sequential(Affine(2, 2), F.relu, Affine(2, 2), F.relu, F.tanh)
    assert model.count_by_layer_type("Affine") == 2
    assert model.count_by_layer_type("relu") == 2
    model.remove_by_layer_type("relu")
    assert [getattr(layer, "__name__", None) for layer in model] == [None, None, "tanh"]
    model.remove_by_layer_type("Affine")
    assert list(model) == [F.tanh]
    assert list(model.children()) == []


# ----------------------------------------------------------------------------- children

def test_children_follow_chainers_order_and_name_parameter_paths():
    a, b, c = Affine(2, 3), Affine(3, 4), Affine(4, 5)
    model = chainer.Sequential(a, F.relu, b, F.relu, c)
    # Chainer files a link appended after others right behind the first link.
    assert list(model.children()) == [a, c, b]
    assert (a.name, b.name, c.name) == ("0", "2", "1")
    paths = dict(model.namedparams())
    assert paths["/0/W"] is a.W and paths["/1/W"] is c.W and paths["/2/W"] is b.W
    assert model.count_params() == 6 + 12 + 20


def test_inserting_at_the_front_puts_the_link_first_among_children():
    a, b = Affine(2, 2), Affine(2, 2)
    model = chainer.Sequential(F.relu, a)
    model.insert(0, b)
    assert list(model.children()) == [b, a]
    assert [path for path, _ in model.namedlinks(skipself=True)] == ["/0", "/1"]


def test_saved_keys_are_child_names(tmp_path):
    a, b, c = Affine(2, 3), Affine(3, 4), Affine(4, 5)
    model = chainer.Sequential(a, F.relu, b, F.relu, c)
    path = str(tmp_path / "model.npz")
    chainer.serializers.save_npz(path, model)
    with numpy.load(path) as saved:
        assert sorted(saved.files) == ["0/W", "1/W", "2/W"]
        numpy.testing.assert_array_equal(saved["1/W"], c.W.array)
        numpy.testing.assert_array_equal(saved["2/W"], b.W.array)


def test_load_restores_the_arrays_into_the_same_layers(tmp_path):
    source = chainer.Sequential(Affine(2, 3), F.relu, Affine(3, 4), Affine(4, 2))
    target = chainer.Sequential(Affine(2, 3), F.relu, Affine(3, 4), Affine(4, 2))
    path = str(tmp_path / "model.npz")
    chainer.serializers.save_npz(path, source)
    chainer.serializers.load_npz(path, target)
    for position in (0, 2, 3):
        numpy.testing.assert_array_equal(target[position].W.array, source[position].W.array)


# ----------------------------------------------------------------------------- copies

@pytest.mark.parametrize("mode", ["share", "copy", "init"])
def test_copy_copies_links_in_mode_and_keeps_functions(mode):
    model = chainer.Sequential(Affine(3, 3), F.relu)
    copied = model.copy(mode)
    assert type(copied) is chainer.Sequential
    assert copied[1] is F.relu
    assert copied[0] is not model[0] and copied[0].W is not model[0].W
    shares = copied[0].W.array is model[0].W.array
    assert shares == (mode == "share")
    same_values = numpy.array_equal(copied[0].W.array, model[0].W.array)
    assert same_values == (mode != "init")


def test_copy_with_an_unknown_mode_raises_value_error():
    with pytest.raises(ValueError):
        chainer.Sequential(Affine(2, 2)).copy("deep")


def test_copyparams_copies_values_between_sequentials():
    source = chainer.Sequential(Affine(2, 2), F.relu, Affine(2, 2))
    target = chainer.Sequential(Affine(2, 2), F.relu, Affine(2, 2))
    target.copyparams(source)
    for position in (0, 2):
        numpy.testing.assert_array_equal(target[position].W.array, source[position].W.array)
        assert target[position].W.array is not source[position].W.array
    with pytest.raises(ValueError):
        target.copyparams(chainer.Chain())


def test_flatten_splices_nested_sequentials():
    inner_link = Affine(2, 2)
    inner = chainer.Sequential(inner_link, chainer.Sequential(F.relu, F.tanh))
    model = chainer.Sequential(F.exp, inner, _double)
    flat = model.flatten()
    assert list(flat) == [F.exp, inner_link, F.relu, F.tanh, _double]
    assert list(model) == [F.exp, inner, _double]


# ----------------------------------------------------------------------------- repeat

@pytest.mark.parametrize("mode", ["share", "copy", "init"])
def test_repeat_returns_n_copies_in_mode(mode):
    link = Affine(3, 3)
    repeated = link.repeat(3, mode=mode)
    assert type(repeated) is chainer.Sequential and len(repeated) == 3
    assert all(type(layer) is Affine and layer is not link for layer in repeated)
    assert [layer.name for layer in repeated] == ["0", "2", "1"]  # Chainer's child order
    shares = [layer.W.array is link.W.array for layer in repeated]
    assert shares == [mode == "share"] * 3
    equal = [numpy.array_equal(layer.W.array, link.W.array) for layer in repeated]
    assert equal == [mode != "init"] * 3


def test_repeat_defaults_to_init():
    link = Affine(4, 4)
    repeated = link.repeat(2)
    assert not numpy.array_equal(repeated[0].W.array, link.W.array)
    assert not numpy.array_equal(repeated[0].W.array, repeated[1].W.array)


@pytest.mark.parametrize("count", [0, -3])
def test_repeat_zero_or_fewer_times_is_empty_and_checks_no_mode(count):
    repeated = Affine(2, 2).repeat(count, mode="unknown")
    assert type(repeated) is chainer.Sequential and len(repeated) == 0


def test_repeat_with_an_unknown_mode_raises_value_error():
    with pytest.raises(ValueError, match="'init','copy', or 'share'"):
        Affine(2, 2).repeat(2, mode="deep")


def test_repeat_of_a_sequential_nests_it():
    block = chainer.Sequential(Affine(2, 2), F.relu)
    repeated = block.repeat(2, mode="copy")
    assert all(type(layer) is chainer.Sequential for layer in repeated)
    assert len(list(repeated.params())) == 2
    numpy.testing.assert_allclose(repeated(_x(1, 2)).array,
                                  block(block(_x(1, 2))).array, rtol=1e-5)


# ----------------------------------------------------------------------------- text, pickling

def test_str_lists_layers_with_indices():
    model = chainer.Sequential(Affine(2, 2), F.relu, chainer.Sequential(F.tanh))
    lines = str(model).splitlines()
    assert lines[0] == "Sequential("
    assert lines[1] == "  (0): Affine(),"
    assert lines[2].startswith("  (1): <function relu at 0x") and lines[2].endswith(">,")
    assert lines[3:] == ["  (2): Sequential(", "    (0): " + str(F.tanh) + ",", "  ),", ")"]
    assert str(chainer.Sequential()) == "Sequential()"


def test_str_shows_a_lambda_by_its_source_line():
    model = chainer.Sequential(lambda x: x + 1)
    assert str(model).splitlines()[1] == "  (0): model = chainer.Sequential(lambda x: x + 1),"


def test_repr_is_the_default_object_repr():
    assert " object at 0x" in repr(chainer.Sequential(F.relu))


def test_pickling_a_lambda_layer_raises_value_error():
    with pytest.raises(ValueError, match="lambda"):
        pickle.dumps(chainer.Sequential(F.relu, lambda x: x))


def test_pickling_named_layers_round_trips():
    model = chainer.Sequential(Affine(2, 2), F.relu)
    restored = pickle.loads(pickle.dumps(model))
    assert restored[1] is F.relu
    numpy.testing.assert_array_equal(restored[0].W.array, model[0].W.array)
    assert [path for path, _ in restored.namedparams()] == ["/0/W"]
