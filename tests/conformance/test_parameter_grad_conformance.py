"""When a Parameter's gradient may be read: Chainer refuses to read the gradient of a Parameter
made without data until the gradient is set, cleared or initialized. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import copy
import importlib
import os
import pickle

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
initializers = importlib.import_module(chainer.__name__ + ".initializers")
links = importlib.import_module(chainer.__name__ + ".links")
optimizers = importlib.import_module(chainer.__name__ + ".optimizers")
F = importlib.import_module(chainer.__name__ + ".functions")

UNSET = "Cannot retrieve Variable.grad"


def uninitialized() -> object:
    return chainer.Parameter(initializers.Constant(1.0))


@pytest.mark.parametrize("make", [
    chainer.Parameter,
    uninitialized,
    lambda: links.Linear(None, 2).W,
])
def test_uninitialized_parameter_grad_raises_until_set(make):
    param = make()
    with pytest.raises(RuntimeError, match=UNSET):
        _ = param.grad
    assert param.grad_var is None  # only .grad refuses


@pytest.mark.parametrize("duplicate", [copy.copy, copy.deepcopy,
                                       lambda p: pickle.loads(pickle.dumps(p))])
def test_copies_keep_the_unset_state(duplicate):
    param = duplicate(uninitialized())
    with pytest.raises(RuntimeError, match=UNSET):
        _ = param.grad
    cleared = uninitialized()
    cleared.cleargrad()
    assert duplicate(cleared).grad is None


def test_clearing_makes_it_readable_and_drops_the_nan_gradient():
    param = uninitialized()
    param.cleargrad()
    assert param.grad is None
    param.initialize((2,))
    assert param.grad is None  # cleared before initialization: no NaN gradient


def test_setting_none_makes_it_readable_and_keeps_the_nan_gradient():
    param = uninitialized()
    param.grad = None
    assert param.grad is None
    param.initialize((2,))
    assert numpy.isnan(param.grad).all()


def test_initialization_gives_a_nan_gradient():
    param = uninitialized()
    param.initialize((3,))
    assert param.grad.shape == (3,) and numpy.isnan(param.grad).all()


def test_zerograd_before_initialization_gives_zeros_after():
    param = uninitialized()
    with pytest.warns(DeprecationWarning):  # Variable.zerograd is deprecated in both
        param.zerograd()
    assert param.grad is None
    param.initialize((2,))
    numpy.testing.assert_array_equal(param.grad, numpy.zeros(2))


def test_assigning_the_array_does_not_make_the_grad_readable():
    param = chainer.Parameter()
    param.array = numpy.ones(2, numpy.float32)
    with pytest.raises(RuntimeError, match=UNSET):
        _ = param.grad


def test_optimizer_update_before_a_lazy_links_first_forward_raises():
    link = links.Linear(None, 2)
    opt = optimizers.SGD().setup(link)
    with pytest.raises(RuntimeError, match=UNSET):
        opt.update()
    link.cleargrads()
    opt.update()  # cleared: nothing to update, no error
    assert link.W.array is None


def test_link_copy_gives_readable_none_gradients():
    link = links.Linear(None, 2)
    assert link.copy().W.grad is None


@pytest.mark.parametrize("make", [lambda: chainer.Parameter(numpy.ones(2)), chainer.Parameter])
def test_parameter_zerograd_warns_initialized_or_not(make):
    param = make()
    with pytest.warns(DeprecationWarning, match="Variable.zerograd is deprecated") as caught:
        param.zerograd()
    assert len(caught) == 1  # once, as in Chainer, without silencing other threads' warnings
    if param.array is not None:
        numpy.testing.assert_array_equal(param.grad, numpy.zeros(2))


def test_the_standard_layout_is_accepted_and_reads_none():
    # Chainer 7 takes layout= on Variable and Parameter; None is the standard layout.
    x = chainer.Variable(numpy.ones(2, numpy.float32), layout=None)
    param = chainer.Parameter(numpy.ones(2, numpy.float32), layout=None)
    assert x.layout is None and param.layout is None
    assert chainer.Variable(numpy.ones(2, numpy.float32)).layout is None


def test_private_grad_attribute_is_the_gradient_array():
    # Code that reaches past the API (der-network's gradient all-reduce) reads and adds into
    # Variable._grad, where Chainer 7 keeps the gradient array.
    variable = chainer.Variable(numpy.ones(3, numpy.float32))
    assert variable._grad is None
    variable.grad = numpy.full(3, 2.0, numpy.float32)
    assert variable._grad is variable.grad
    variable._grad += 1.0
    numpy.testing.assert_array_equal(variable.grad, numpy.full(3, 3.0, numpy.float32))
    variable._grad = numpy.zeros(3, numpy.float32)
    numpy.testing.assert_array_equal(variable.grad, numpy.zeros(3, numpy.float32))
    variable._grad = None
    assert variable.grad is None


@pytest.mark.parametrize("use", [
    lambda x, p: F.sum(x * p[:, :]),
    lambda x, p: F.sum(x * F.identity(p)),
    lambda x, p: F.sum(p * 2),
], ids=["indexed", "identity", "scaled"])
def test_clearing_the_private_requires_grad_flag_freezes_a_parameter(use):
    # vat_nmt freezes its positional-encoding table this way.
    p = chainer.Parameter(numpy.arange(4, dtype=numpy.float32).reshape(2, 2))
    p._requires_grad = False
    assert p.requires_grad is False and p._requires_grad is False
    x = chainer.Variable(numpy.ones((2, 2), numpy.float32))
    use(x, p).backward()
    assert p.grad is None
