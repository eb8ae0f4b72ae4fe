"""Activation arguments Chainer rejects with ``assert`` or its own sentence."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat.functions as F


@pytest.mark.parametrize("z", [0.0, -1.0])
def test_clipped_relu_z_not_positive_is_also_an_assertion_error(z):
    with pytest.raises(AssertionError, match="z must be positive") as info:
        F.clipped_relu(numpy.ones(3, numpy.float32), z)
    assert isinstance(info.value, ValueError)


def test_maxout_pool_size_message_starts_with_chainers():
    with pytest.raises(ValueError, match=r"^pool_size must be a positive integer\."):
        F.maxout(numpy.ones((2, 4), numpy.float32), 0)
