"""Chainer-visible behaviour of Link.copy and Link.repeat beyond array sharing: the gradients
that re-initialized copies carry. Checked against Chainer 7.8.1; set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

import numpy

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
initializers = importlib.import_module(chainer.__name__ + ".initializers")


def _two_level_chain() -> Any:
    inner = chainer.Link()
    with inner.init_scope():
        inner.weight = chainer.Parameter(initializers.Normal(), (2, 3))
        inner.pending = chainer.Parameter()
    outer = chainer.Chain()
    with outer.init_scope():
        outer.inner = inner
        outer.bias = chainer.Parameter(initializers.Zero("d"), (4,))
    return outer


def test_copy_init_gives_nan_gradients_even_after_cleargrads() -> None:
    original = _two_level_chain()
    original.cleargrads()
    copied = original.copy(mode="init")
    for name, param in copied.namedparams(include_uninit=False):
        assert param.grad is not None, name
        assert param.grad.shape == param.shape and param.grad.dtype == param.dtype
        assert numpy.isnan(param.grad).all(), name
    # The original keeps its cleared gradients.
    assert all(param.grad is None for param in original.params())


def test_copy_init_leaves_uninitialized_parameters_uninitialized() -> None:
    copied = _two_level_chain().copy(mode="init")
    assert copied.inner.pending.array is None
    assert not copied.inner.pending.is_initialized


def test_copy_copy_keeps_gradients_as_they_were() -> None:
    original = _two_level_chain()
    original.inner.weight.grad[...] = 5.0
    original.bias.cleargrad()
    copied = original.copy(mode="copy")
    assert (copied.inner.weight.grad == 5.0).all()
    assert copied.inner.weight.grad is not original.inner.weight.grad
    assert copied.bias.grad is None


def test_repeat_init_copies_carry_nan_gradients() -> None:
    original = _two_level_chain()
    original.cleargrads()
    for layer in original.repeat(2, mode="init"):
        assert numpy.isnan(layer.inner.weight.grad).all()
        assert numpy.isnan(layer.bias.grad).all()
