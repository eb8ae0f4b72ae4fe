"""Chainer-visible checks of ``chainer.link_hooks`` constructor arguments: the exception types
code written against Chainer 7.8.1 catches. Set CHAINER_CONFORMANCE_TARGET=chainer to run this
file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
link_hooks = importlib.import_module(chainer.__name__ + ".link_hooks")
links = importlib.import_module(chainer.__name__ + ".links")


@pytest.mark.parametrize("n_power_iteration", [0, -1])
def test_spectral_normalization_rejects_a_non_positive_iteration_count_with_assertion_error(
        n_power_iteration: int) -> None:
    with pytest.raises(AssertionError):
        link_hooks.SpectralNormalization(n_power_iteration=n_power_iteration)


def test_spectral_normalization_with_one_iteration_normalizes_a_linear_link() -> None:
    link = links.Linear(3, 4)
    link.add_hook(link_hooks.SpectralNormalization(n_power_iteration=1))
    y = link(numpy.ones((2, 3), numpy.float32))
    assert y.shape == (2, 4)
    assert link.W_u.shape == (4,)
