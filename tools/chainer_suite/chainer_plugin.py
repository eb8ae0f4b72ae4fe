"""pytest plugin for the Chainer 7.8.1 side of ``run_suite.py``.

Test files from Chainer's branch after 7.8.1 call ``chainer.backend.to_numpy``, which 7.8.1
does not have; the same helper is given on both sides (see compat_plugin.py), so that those
tests compare the libraries rather than fail on a test helper.
"""

from __future__ import annotations

from typing import Any

import chainer.backend
import numpy
from chainer.backends import cuda


def _to_numpy(array: Any) -> Any:
    return numpy.asarray(cuda.to_cpu(array))


if not hasattr(chainer.backend, "to_numpy"):
    chainer.backend.to_numpy = _to_numpy
