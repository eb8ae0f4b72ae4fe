"""Tests for chainer_compat.sequential (Sequential) and Link.repeat: layers and children,
forward, list operations, copies, gradients, serialization and text."""

from __future__ import annotations

import copy
import functools
import pickle

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import functions as F
from chainer_compat import initializers
from chainer_compat.link import Chain, ChainList, Link
from chainer_compat.sequential import Sequential
from chainer_compat.serializers import load_npz, save_npz
from chainer_compat.variable import Parameter, Variable


class Affine(Link):
    """y = x W^T + b, with a random W and a zero b."""

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__()
        with self.init_scope():
            self.W = Parameter(initializers.Normal(), (out_size, in_size))
            self.b = Parameter(initializers.Zero(), (out_size,))
        self.add_persistent("calls", 0)

    def forward(self, x):
        y = F.matmul(x, self.W, transb=True)
        return y + F.broadcast_to(self.b, y.shape)


class Block(Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.inner = Affine(2, 2)

    def forward(self, x):
        return F.relu(self.inner(x))


def _x(rows=2, columns=3):
    return numpy.linspace(-1, 1, rows * columns, dtype=numpy.float32).reshape(rows, columns)


def _double(x):
    return x * 2


def _child_names(model):
    return [child.name for child in model.children()]


# ----------------------------------------------------------------------------- registration

def test_links_become_children_and_functions_do_not():
    first, second = Affine(3, 4), Affine(4, 2)
    model = Sequential(first, F.relu, second)
    assert len(model) == 3
    assert set(model.children()) == {first, second}
    assert sorted(id(p) for p in model.params()) == sorted(
        id(p) for p in (first.W, first.b, second.W, second.b))


def test_namedparams_use_child_names():
    first, second = Affine(3, 4), Affine(4, 2)
    model = Sequential(first, F.relu, second)
    assert dict(model.namedparams()) == {
        "/0/W": first.W, "/0/b": first.b, "/1/W": second.W, "/1/b": second.b}
    assert [path for path, _ in model.namedlinks()] == ["/", "/0", "/1"]


def test_children_keep_chainers_order_not_layer_order():
    links = [Affine(2, 2) for _ in range(4)]
    model = Sequential(*links)
    # NOTE [child order]: each appended link goes right behind the first one.
    assert list(model.children()) == [links[0], links[3], links[2], links[1]]
    assert [link.name for link in links] == ["0", "3", "2", "1"]


def test_deleting_renames_the_remaining_children():
    links = [Affine(2, 2) for _ in range(3)]
    model = Sequential(links[0], F.relu, links[1], links[2])
    del model[0]
    assert list(model) == [F.relu, links[1], links[2]]
    assert sorted(_child_names(model)) == ["0", "1"]
    assert links[0] not in list(model.children())


def test_deleting_a_link_shared_with_another_sequential_removes_it_by_identity():
    a, b = Affine(2, 2), Affine(2, 2)
    left = Sequential(a, b)
    combined = Sequential(F.relu) + left  # renames a and b for their place in combined
    del left[0]
    assert list(left.children()) == [b]
    assert list(combined) == [F.relu, a, b]


def test_links_cannot_be_assigned_in_init_scope():
    model = Sequential()
    with pytest.raises(TypeError), model.init_scope():
        model.extra = Affine(2, 2)


def test_add_link_appends_a_layer():
    link = Affine(2, 2)
    model = Sequential(F.relu)
    model.add_link(link)
    assert list(model) == [F.relu, link]
    assert list(model.children()) == [link]


def test_count_params_counts_every_link():
    model = Sequential(Affine(3, 4), F.relu, Affine(4, 2))
    assert model.count_params() == 3 * 4 + 4 + 4 * 2 + 2


# ----------------------------------------------------------------------------- forward

def test_forward_matches_calling_the_layers_by_hand():
    first, second = Affine(3, 4), Affine(4, 2)
    model = Sequential(first, F.relu, second, _double)
    x = _x()
    expected = _double(second(F.relu(first(x))))
    numpy.testing.assert_allclose(model(x).array, expected.array, rtol=1e-6)


def test_forward_unpacks_tuples_but_not_lists():
    seen = []
    model = Sequential(lambda x: (x, x + 1), lambda a, b: [a, b], seen.append)
    model(1)
    assert seen == [[1, 2]]


def test_forward_with_several_inputs():
    model = Sequential(lambda a, b, c: a * b + c)
    assert model(2, 3, 4) == 10


def test_forward_of_an_empty_sequential_says_what_to_do():
    with pytest.raises(RuntimeError, match=r"^Sequential does not have any layer\. Append one"):
        Sequential()(_x())


def test_backward_reaches_every_parameter():
    model = Sequential(Affine(3, 4), F.tanh, Affine(4, 2))
    loss = F.sum(model(Variable(_x())))
    loss.backward()
    assert all(param.grad is not None for param in model.params())
    model.cleargrads()
    assert all(param.grad is None for param in model.params())


# ----------------------------------------------------------------------------- list operations

def test_sequence_protocol():
    link = Affine(2, 2)
    model = Sequential(link, F.relu, _double)
    assert list(model) == [link, F.relu, _double]
    assert list(reversed(model)) == [_double, F.relu, link]
    assert F.relu in model and F.exp not in model
    assert model[-1] is _double and model[:2] == [link, F.relu]
    assert model.count(F.relu) == 1 and model.index(F.relu) == 1


def test_insert_positions_and_range():
    model = Sequential(F.relu, F.tanh)
    model.insert(0, F.exp)
    model.insert(-1, _double)
    model.insert(len(model), F.sigmoid)
    assert list(model) == [F.exp, F.relu, _double, F.tanh, F.sigmoid]
    with pytest.raises(IndexError, match=r"^Index out of range: 6\. A Sequential's insert "
                       r"index must be in \[-5, 5\]"):
        model.insert(6, F.relu)
    with pytest.raises(IndexError):
        model.insert(-6, F.relu)


def test_not_callable_layers_are_rejected_with_value_error():
    model = Sequential()
    with pytest.raises(ValueError, match=r"^All elements of the argument should be callable\. "
                       r"But given 3 is not callable"):
        model.append(3)
    with pytest.raises(ValueError, match="should be callable. But given tanh is not callable"):
        Sequential(F.relu, "tanh")
    assert len(model) == 0


def test_pop_remove_and_clear():
    a, b = Affine(2, 2), Affine(2, 2)
    model = Sequential(a, F.relu, b, F.tanh)
    assert model.pop() is F.tanh
    assert model.pop(0) is a
    model.remove(F.relu)
    assert list(model) == [b] and _child_names(model) == ["0"]
    with pytest.raises(ValueError, match=r"^There is no layer object that is same as "):
        model.remove(F.relu)
    model.extend([F.relu, Affine(2, 2)])
    model.clear()
    assert len(model) == 0
    assert list(model.children()) == [] and list(model.params()) == []
    with pytest.raises(IndexError):
        model.pop()


def test_index_counts_from_zero_with_a_start():
    model = Sequential(F.relu, F.tanh, F.relu)
    assert model.index(F.relu, 1) == 2
    assert model.index(F.relu, -2) == 2
    with pytest.raises(ValueError):
        model.index(F.tanh, 2)
    with pytest.raises(ValueError):
        model.index(F.relu, 1, 2)


def test_item_assignment_with_positive_and_negative_indices():
    link = Affine(2, 2)
    model = Sequential(F.relu, F.tanh, F.exp)
    model[-1] = link
    assert list(model) == [F.relu, F.tanh, link]
    model[0] = _double
    assert list(model) == [_double, F.tanh, link]
    model[2] = link  # the same layer: nothing changes
    assert list(model.children()) == [link] and link.name == "0"
    model[2] = F.exp
    assert list(model.children()) == []


def test_item_assignment_errors():
    model = Sequential(F.relu)
    with pytest.raises(ValueError,
                       match=r"^1 should be less than 1\. Use append\(\) or insert\(\)"):
        model[1] = F.tanh
    with pytest.raises(IndexError, match="at least -1, got -2"):
        model[-2] = F.tanh
    with pytest.raises(TypeError, match="must be integers, got slice"):
        model[:] = [F.tanh]
    with pytest.raises(ValueError, match="callable"):
        model[0] = 1
    assert list(model) == [F.relu]


def test_deletion_errors():
    model = Sequential(F.relu)
    with pytest.raises(TypeError, match="must be integers, got slice"):
        del model[:]
    with pytest.raises(IndexError):
        del model[1]
    del model[numpy.int64(0)]
    assert len(model) == 0


def test_reverse_from_mutable_sequence_reverses_layers():
    a, b = Affine(2, 2), Affine(2, 2)
    model = Sequential(a, F.relu, b)
    model.reverse()
    assert list(model) == [b, F.relu, a]
    assert sorted(_child_names(model)) == ["0", "1"]


def test_extend_and_add_with_itself():
    model = Sequential(F.relu, _double)
    model.extend(model)
    assert list(model) == [F.relu, _double] * 2
    model += model
    assert len(model) == 8


def test_add_shares_layers_and_leaves_operands_alone():
    a = Affine(2, 2)
    left, right = Sequential(a), Sequential(F.relu)
    both = left + right
    assert list(both) == [a, F.relu] and both[0] is a
    assert list(left) == [a] and list(right) == [F.relu]
    with pytest.raises(ValueError, match=r"^add \(\+\) operator supports only objects of "
                       r"Sequential class, but <class 'list'>"):
        left + [F.relu]
    with pytest.raises(ValueError, match=r"<class 'tuple'> is given\. The other operand of "
                       r"Sequential \+= must"):
        left += (F.relu,)


def test_remove_and_count_by_layer_type():
    partial_relu = functools.partial(F.leaky_relu, slope=0.1)
    model = Sequential(Affine(2, 2), F.relu, Block(), F.relu, partial_relu)
    assert model.count_by_layer_type("relu") == 2
    assert model.count_by_layer_type("Block") == 1
    # A callable without __name__ goes by its class name.
    assert model.count_by_layer_type("partial") == 1
    model.remove_by_layer_type("relu")
    model.remove_by_layer_type("Affine")
    assert [type(layer).__name__ for layer in model] == ["Block", "partial"]
    assert _child_names(model) == ["0"]


def test_flatten_at_every_depth():
    deep = Sequential(F.exp, Sequential(F.relu, Sequential(_double)))
    flat = deep.flatten()
    assert list(flat) == [F.exp, F.relu, _double]
    assert type(flat[1]) is not Sequential and len(deep) == 2


# ----------------------------------------------------------------------------- copies

def test_share_copy_shares_arrays_not_parameters():
    model = Sequential(Affine(2, 2), F.relu)
    copied = model.copy()
    assert copied[0].W is not model[0].W
    assert copied[0].W.array is model[0].W.array
    assert copied[1] is F.relu and copied.name is None


@pytest.mark.parametrize("mode", ["copy", "init"])
def test_deep_copy_modes_make_independent_arrays(mode):
    model = Sequential(Affine(3, 3), F.relu)
    copied = model.copy(mode)
    assert copied[0].W.array is not model[0].W.array
    assert numpy.array_equal(copied[0].W.array, model[0].W.array) == (mode == "copy")
    copied[0].W.array[...] = 7
    assert not numpy.any(model[0].W.array == 7)


def test_copy_checks_the_mode_where_a_link_is_copied():
    # compat: as in Chainer, the links check the mode; functions alone copy whatever it is.
    assert Sequential(F.relu).copy("deep")[0] is F.relu
    with pytest.raises(ValueError, match="'init','copy', or 'share'"):
        Sequential(F.relu, Affine(2, 2)).copy("deep")


def test_copy_of_a_chain_holding_a_lambda_sequential():
    chain = Chain(body=Sequential(Affine(2, 2), lambda x: x * 3))
    for mode in ("share", "copy", "init"):
        copied = chain.copy(mode)
        assert type(copied.body) is Sequential and len(copied.body) == 2
        assert copied.body[0] is not chain.body[0]
    assert copy.deepcopy(chain.body)[1] is chain.body[1]


def test_copyparams_and_addgrads_pair_links_past_functions():
    source = Sequential(F.relu, Affine(2, 2), F.tanh, Affine(2, 2))
    target = source.copy("init")
    target.copyparams(source)
    for position in (1, 3):
        numpy.testing.assert_array_equal(target[position].W.array, source[position].W.array)
    for param in list(source.params()) + list(target.params()):
        param.grad = numpy.ones_like(param.array)
    target.addgrads(source)
    assert all(numpy.all(param.grad == 2) for param in target.params())
    with pytest.raises(ValueError, match=r"^Objects other than Sequential object cannot be "
                       r"copied to a Sequential object\. Got ChainList"):
        target.copyparams(ChainList())


# ----------------------------------------------------------------------------- repeat

def test_repeat_init_gives_fresh_independent_parameters():
    link = Affine(4, 4)
    repeated = link.repeat(3)
    arrays = [layer.W.array for layer in repeated]
    assert all(array is not link.W.array for array in arrays)
    assert not numpy.array_equal(arrays[0], arrays[1])
    numpy.testing.assert_array_equal(repeated[0].b.array, numpy.zeros(4, numpy.float32))


def test_repeat_copy_gives_equal_independent_parameters():
    link = Affine(2, 2)
    repeated = link.repeat(2, mode="copy")
    repeated[0].W.array[...] = 5
    assert not numpy.any(repeated[1].W.array == 5) and not numpy.any(link.W.array == 5)
    numpy.testing.assert_array_equal(repeated[1].W.array, link.W.array)


def test_repeat_share_updates_every_copy_at_once():
    link = Affine(2, 2)
    repeated = link.repeat(3, mode="share")
    link.W.array[...] = 4
    assert all(numpy.all(layer.W.array == 4) for layer in repeated)
    assert len({id(layer) for layer in repeated}) == 3 and link not in list(repeated)


def test_repeat_of_a_chain_forwards_through_every_copy():
    block = Block()
    repeated = block.repeat(2, mode="copy")
    assert [path for path, _ in repeated.namedparams()] == [
        "/0/inner/W", "/0/inner/b", "/1/inner/W", "/1/inner/b"]
    numpy.testing.assert_allclose(repeated(_x(1, 2)).array, block(block(_x(1, 2))).array)


def test_repeat_edge_counts_and_modes():
    link = Affine(2, 2)
    assert len(link.repeat(0)) == 0 and len(link.repeat(-1, mode="nonsense")) == 0
    assert type(link.repeat(1)) is Sequential
    with pytest.raises(ValueError, match="But deep was given"):
        link.repeat(1, mode="deep")


# ----------------------------------------------------------------------------- serialization

def test_save_and_load_npz_round_trip(tmp_path):
    source = Sequential(Affine(3, 4), F.relu, Affine(4, 2), Block())
    source[0].calls = 9
    target = Sequential(Affine(3, 4), F.relu, Affine(4, 2), Block())
    path = tmp_path / "model.npz"
    save_npz(str(path), source)
    with numpy.load(path) as saved:
        assert set(saved.files) == {"0/W", "0/b", "0/calls", "1/inner/W", "1/inner/b",
                                    "1/inner/calls", "2/W", "2/b", "2/calls"}
    load_npz(str(path), target)
    for (name, loaded), (_, original) in zip(target.namedparams(), source.namedparams(),
                                             strict=True):
        numpy.testing.assert_array_equal(loaded.array, original.array, err_msg=name)
    assert target[0].calls == 9


def test_pickle_round_trip_with_partial_layers():
    model = Sequential(Affine(2, 2), functools.partial(F.leaky_relu, slope=0.5))
    restored = pickle.loads(pickle.dumps(model))
    numpy.testing.assert_allclose(restored(_x(1, 2)).array, model(_x(1, 2)).array)
    assert _child_names(restored) == ["0"]


def test_pickling_a_lambda_says_what_to_use_instead():
    # Chainer's message, word for word (code may match on it).
    with pytest.raises(ValueError, match=r"^This Sequential object has at least one lambda "
                       r"function as its component\. .*functools\.partial"):
        pickle.dumps(Sequential(lambda x: x))


def test_assigning_a_layer_that_is_not_callable_says_so_as_chainer():
    model = Sequential(F.relu)
    with pytest.raises(ValueError, match=r"^All elements of a Sequential class should be "
                       r"callable\. But given 3 is not callable\."):
        model[0] = 3
    assert list(model) == [F.relu]


def test_to_device_moves_every_link():
    model = Sequential(Affine(2, 2), F.relu)
    assert model.to_device("@numpy") is model
    assert isinstance(model[0].W.array, numpy.ndarray)
    assert model[0].device == chainer.get_device("@numpy")


# ----------------------------------------------------------------------------- text

def test_str_indents_nested_layers():
    model = Sequential(Affine(2, 2), Sequential(_double))
    assert str(model) == (
        "Sequential(\n"
        "  (0): Affine(),\n"
        "  (1): Sequential(\n"
        f"    (0): {_double},\n"
        "  ),\n"
        ")")


def test_str_of_a_lambda_without_source_falls_back_to_repr():
    nameless = eval("lambda x: x")  # no source file to read
    text = str(Sequential(nameless))
    assert text == f"Sequential(\n  (0): {nameless!r},\n)"


def test_str_of_a_lambda_shows_its_source_line():
    model = Sequential(
        lambda x: x - 1,
    )
    assert str(model).splitlines()[1] == "  (0): lambda x: x - 1,"
