"""pytest plugin for the Chainer 7.8.1 side of ``run_suite.py``.

Test files from Chainer's branch after 7.8.1 call ``chainer.backend.to_numpy`` and
``chainer.distributions.kl_divergence``, which 7.8.1 does not have (it has
``chainer.kl_divergence``); the same names are given on both sides (see compat_plugin.py), so
that those tests compare the libraries rather than fail on a name.

Chainer 7.8.1 itself still uses ``numpy.float`` (in ``F.resize_images``), which NumPy 1.24
removed; the aliases NumPy 1.24 removed are put back for it, as the NumPy it was written for
had them.
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


for _name, _type in (("bool", bool), ("int", int), ("float", float), ("complex", complex),
                     ("object", object), ("str", str)):
    if not hasattr(numpy, _name):
        setattr(numpy, _name, _type)
if not hasattr(chainer.backend, "to_numpy"):
    chainer.backend.to_numpy = _to_numpy
if not hasattr(chainer.distributions, "kl_divergence"):
    chainer.distributions.kl_divergence = chainer.kl_divergence
