"""pytest plugin for the Chainer 7.8.1 side of ``run_suite.py``.

Test files from Chainer's branch after 7.8.1 call ``chainer.backend.to_numpy`` and
``chainer.distributions.kl_divergence``, which 7.8.1 does not have (it has
``chainer.kl_divergence``); the same names are given on both sides (see compat_plugin.py), so
that those tests compare the libraries rather than fail on a name.
"""

from __future__ import annotations

from typing import Any

import chainer
import chainer.backend
import chainer.distributions
import numpy
from chainer.backends import cuda


def _to_numpy(array: Any) -> Any:
    return numpy.asarray(cuda.to_cpu(array))


if not hasattr(chainer.backend, "to_numpy"):
    chainer.backend.to_numpy = _to_numpy
if not hasattr(chainer.distributions, "kl_divergence"):
    chainer.distributions.kl_divergence = chainer.kl_divergence
