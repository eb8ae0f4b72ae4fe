"""Objects pickled by Chainer 7.8.1 load under the alias and behave as Chainer's own copies do
(NOTE [pickles] in variable.py), and chainer_compat's pickles keep loading."""

from __future__ import annotations

import copy
import json
import os
import pathlib
import pickle
import subprocess
import sys

import numpy
import pytest

import chainer_compat
from chainer_compat import backend, distributions, variable
from chainer_compat.iterators import _statemachine, serial_iterator
from chainer_compat.links.loss.hierarchical_softmax import BinaryHierarchicalSoftmaxFunction

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "data" / "chainer_pickles"
FIXTURE = FIXTURES / "chainer781.pkl"
CHAINER_PYTHON = pathlib.Path("/tmp/chvenv/bin/python")


def _names(path: pathlib.Path) -> list[str]:
    with open(path, "rb") as file:
        return list(pickle.load(file)["entries"])


def _read(path: pathlib.Path) -> dict[str, str | None]:
    """Runs read.py on a fixture in a fresh interpreter (the alias changes sys.modules)."""
    done = subprocess.run([sys.executable, str(FIXTURES / "read.py"), str(path)],
                          capture_output=True, text=True, check=True, timeout=120)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def report() -> dict[str, str | None]:
    return _read(FIXTURE)


@pytest.mark.parametrize("name", _names(FIXTURE))
def test_chainer_pickle_loads_and_behaves_as_in_chainer(report, name):
    # The committed pickles were written by make.py on Chainer 7.8.1: a model with its
    # optimizer continues training to Chainer's numbers, an iterator to Chainer's batches, etc.
    assert name in report
    assert report[name] is None, report[name]


@pytest.mark.skipif(not CHAINER_PYTHON.exists(),
                    reason=f"Chainer 7.8.1 interpreter not found at {CHAINER_PYTHON}")
def test_pickles_written_now_by_chainer_load_too(tmp_path):
    # make.py run again on Chainer: the committed fixture is what the specs produce today.
    output = tmp_path / "fresh.pkl"
    env = {**os.environ, "PYTHONPATH": ""}
    subprocess.run([str(CHAINER_PYTHON), str(FIXTURES / "make.py"), str(output)], check=True,
                   env=env, cwd=tmp_path, capture_output=True, timeout=300)
    fresh = _read(output)
    assert set(fresh) == set(_names(FIXTURE))
    assert {name: problem for name, problem in fresh.items() if problem} == {}


# ------------------------------------------------------------------ the argument lists
def _parameter_arguments() -> tuple[numpy.ndarray, numpy.ndarray, object]:
    return (numpy.arange(3, dtype=numpy.float32), numpy.ones(3, numpy.float32),
            chainer_compat.initializers.Constant(2.0))


def test_parameter_pickles_with_chainers_seven_arguments():
    param = chainer_compat.Parameter(numpy.ones(2, numpy.float32), name="w")
    function, arguments = param.__reduce__()
    assert function is variable._recover_parameter
    data, name, grad, grad_valid, initializer, update_rule, device = arguments
    assert data is param.array and name == "w" and grad_valid is True
    assert initializer is param.initializer and update_rule is None
    assert device == backend.CpuDevice()


@pytest.mark.parametrize("layout", ["chainer 7", "chainer 6", "early chainer_compat", "five"])
def test_recover_parameter_reads_every_argument_list(layout):
    data, grad, initializer = _parameter_arguments()
    arguments = {
        "chainer 7": (data, "w", grad, True, initializer, None, backend.CpuDevice()),
        "chainer 6": (data, "w", grad, initializer, None, backend.CpuDevice()),
        "early chainer_compat": (data, "w", grad, initializer, None, True),
        "five": (data, "w", grad, initializer, None),
    }[layout]
    param = variable._recover_parameter(*arguments)
    numpy.testing.assert_array_equal(param.array, data)
    numpy.testing.assert_array_equal(param.grad, grad)
    assert param.name == "w" and param.initializer is initializer


def test_recover_parameter_keeps_an_unset_gradient_unset():
    _, _, initializer = _parameter_arguments()
    param = variable._recover_parameter(None, "w", None, False, initializer, None,
                                        backend.CpuDevice())
    assert param.array is None
    with pytest.raises(RuntimeError):
        param.grad  # NOTE [unset parameter gradient]: as before pickling


def test_recover_parameter_rejects_an_unknown_argument_list():
    with pytest.raises(ValueError, match="5, 6 or 7 arguments, got 3"):
        variable._recover_parameter(None, "w", None)


def test_variable_pickles_with_chainers_arguments_and_reads_the_older_ones():
    source = chainer_compat.Variable(numpy.ones(2, numpy.float32), name="v",
                                     requires_grad=False)
    function, arguments = source.__reduce__()
    assert function is variable._create_variable
    assert arguments[1:4] == ("v", None, False) and arguments[4] == backend.CpuDevice()
    for given in (arguments, arguments[:4]):
        copy = variable._create_variable(*given)
        numpy.testing.assert_array_equal(copy.array, source.array)
        assert copy.name == "v" and copy.requires_grad is False


# ------------------------------------------------------------------ the renamed state
def test_link_reads_chainers_private_init_flag():
    link = chainer_compat.links.Linear(2, 3)
    state = dict(vars(link))
    del state["_init_done"]
    state["_Link__init_done"] = True
    state["_overridden_to_methods"] = ()
    copy = chainer_compat.links.Linear.__new__(chainer_compat.links.Linear)
    copy.__setstate__(state)
    assert copy._init_done is True and "_overridden_to_methods" not in vars(copy)
    with copy.init_scope():  # refused unless the flag was read
        copy.extra = chainer_compat.Parameter(numpy.zeros(1, numpy.float32))
    assert "extra" in copy._params


def test_distribution_reads_chainers_mangled_parameters():
    loc, scale = numpy.zeros(2, numpy.float32), numpy.ones(2, numpy.float32)
    normal = distributions.Normal.__new__(distributions.Normal)
    normal.__setstate__({"_Normal__loc": loc, "_Normal__scale": scale,
                         "_Normal__log_scale": None, "_Normal__device": backend.CpuDevice()})
    reference = distributions.Normal(loc, scale)
    x = numpy.array([0.5, -1.0], numpy.float32)
    numpy.testing.assert_array_equal(normal.log_prob(x).array, reference.log_prob(x).array)
    assert not any("device" in key for key in vars(normal))


def test_uniform_gathers_chainers_parameters():
    uniform = distributions.Uniform.__new__(distributions.Uniform)
    uniform.__setstate__({"_use_low_high": True, "_use_loc_scale": False,
                          "_Uniform__low": numpy.zeros(2, numpy.float32),
                          "_Uniform__high": numpy.full(2, 4.0, numpy.float32),
                          "_Uniform__loc": None, "_Uniform__scale": None})
    numpy.testing.assert_array_equal(uniform.mean.array, [2.0, 2.0])


def test_hierarchical_softmax_rebuilds_its_tables_from_chainers_function():
    links = chainer_compat.links
    tree = links.BinaryHierarchicalSoftmax.create_huffman_tree({0: 1, 1: 2, 2: 3, 3: 1})
    reference = links.BinaryHierarchicalSoftmax(3, tree)
    state = {key: value for key, value in vars(reference).items()
             if key not in ("_nodes", "_signs", "parser_size")}
    state["_func"] = BinaryHierarchicalSoftmaxFunction(tree, numpy.float32)
    copy = links.BinaryHierarchicalSoftmax.__new__(links.BinaryHierarchicalSoftmax)
    copy.__setstate__(state)
    numpy.testing.assert_array_equal(copy._nodes, reference._nodes)
    numpy.testing.assert_array_equal(copy._signs, reference._signs)
    assert copy.parser_size == reference.parser_size
    x = numpy.random.RandomState(0).uniform(-1, 1, (4, 3)).astype(numpy.float32)
    t = numpy.array([0, 1, 2, 3], numpy.int32)
    numpy.testing.assert_array_equal(copy(x, t).array, reference(x, t).array)


def test_state_classes_live_at_chainers_paths():
    assert serial_iterator._IteratorState is _statemachine.IteratorState
    assert _statemachine.IteratorState.__module__ == "chainer_compat.iterators._statemachine"
    from chainer_compat.backends import _cpu
    assert _cpu.CpuDevice is backend.CpuDevice


def test_a_subclass_keeps_its_own_private_attributes_through_a_copy():
    # Only our classes' mangled names are Chainer's parameters; a user subclass's stay.
    class Scaled(distributions.Normal):
        def __init__(self, loc, scale, factor):
            super().__init__(loc, scale)
            self.__factor = factor

        @property
        def factor(self):
            return self.__factor

    original = Scaled(numpy.zeros(2, numpy.float32), numpy.ones(2, numpy.float32), 3.0)
    clone = copy.copy(original)
    assert clone.factor == 3.0
    numpy.testing.assert_array_equal(clone.mean.array, original.mean.array)


def test_unpickled_hyperparameters_hold_numpy_scalars_as_python_numbers():
    # NOTE [NumPy scalars in updates]: a pickle restores the entries without __setattr__.
    hyperparameter = chainer_compat.optimizer.Hyperparameter.__new__(
        chainer_compat.optimizer.Hyperparameter)
    hyperparameter.__setstate__({"_parent": None, "lr": numpy.float64(0.25)})
    assert type(hyperparameter.lr) is float and hyperparameter.lr == 0.25
