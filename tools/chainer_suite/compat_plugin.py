"""pytest plugin that runs Chainer's own tests against chainer_compat.

Loaded with ``-p compat_plugin`` by ``run_suite.py`` before the tests import anything: it makes
``import chainer`` give chainer_compat and puts back the NumPy 1 names old test files use.

Chainer's tests also reach into a few private helpers of Chainer's modules to compute their
expectations or to arrange a case. Those helpers are given here, to the test run only, so
that the tests behind them run; they are not part of chainer_compat's API.
"""

from __future__ import annotations

from typing import Any

import numpy

import chainer_compat

chainer_compat.install_as_chainer()
chainer_compat.install_numpy1_aliases()

from chainer_compat import backend, distributions  # noqa: E402 (after the alias)
from chainer_compat.backends import _cpu, cuda  # noqa: E402
from chainer_compat.functions.array import flip  # noqa: E402
from chainer_compat.functions.math import basic_math  # noqa: E402
from chainer_compat.serializers import hdf5  # noqa: E402
from chainer_compat.testing import matrix  # noqa: E402
from chainer_compat.training.extensions import variable_statistics_plot  # noqa: E402
from chainer_compat.variable import Variable, VariableNode  # noqa: E402


def _to_numpy(array: Any) -> Any:
    return numpy.asarray(cuda.to_cpu(array))


def _init_unchecked(data: Any = None, device: Any = None, name: Any = None, grad: Any = None,
                    grad_valid: bool = True, requires_grad: bool = True,
                    is_chainerx_array: Any = None, node: Any = None,
                    layout: Any = None) -> Variable:
    return Variable(data, name=name, grad=grad, requires_grad=requires_grad)


def _constant_label(value: Any) -> str:
    """Chainer's ``basic_math._convert_value_to_string``: the label of a constant operand."""
    array = value.array if isinstance(value, Variable) else value
    return basic_math._constant_label(array)


def _importable(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


_SHIMS: list[tuple[Any, str, Any]] = [
    # Chainer's private converters and flags that its tests call.
    (_cpu, "_to_cpu", cuda.to_cpu),
    (flip, "_flip", lambda array, axis: numpy.flip(array, axis)),
    (basic_math, "_convert_value_to_string", _constant_label),
    (matrix, "_broadcast_to", numpy.broadcast_to),
    (hdf5, "_available", _importable("h5py")),
    (variable_statistics_plot, "_available", _importable("matplotlib")),
    (Variable, "_init_unchecked", staticmethod(_init_unchecked)),
    (Variable, "_has_chainerx_array", False),
    # Chainer keeps a node's rank in ``_rank``; tests set it to arrange a graph.
    (VariableNode, "_rank", property(lambda node: node.rank,
                                     lambda node, rank: setattr(node, "rank", rank))),
    # Names test files newer than 7.8.1 use (chainer_plugin.py gives them to Chainer too).
    (backend, "to_numpy", _to_numpy),
    (distributions, "kl_divergence", chainer_compat.kl_divergence),
]

for owner, name, value in _SHIMS:
    if not hasattr(owner, name):
        setattr(owner, name, value)
