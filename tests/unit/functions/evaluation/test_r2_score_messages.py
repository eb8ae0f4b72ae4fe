"""r2_score's own messages start with Chainer's."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat.functions as F


def test_unknown_multioutput_message_starts_with_chainers():
    x = numpy.ones((3, 2), numpy.float32)
    with pytest.raises(ValueError, match="^invalid multioutput argument\n"):
        F.r2_score(x, x, multioutput="foo")
