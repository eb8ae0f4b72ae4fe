"""Names that libraries built on Chainer (ChainerCV and others) import from it, beyond the
documented API. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import collections.abc
import importlib
import os

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
utils = importlib.import_module(chainer.__name__ + ".utils")


def test_utils_collections_abc_is_the_standard_module():
    assert utils.collections_abc is collections.abc
    assert isinstance((1, 2), utils.collections_abc.Sequence)
