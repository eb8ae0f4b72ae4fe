"""``sign``: the elementwise sign of an array, as a Variable outside the graph.

Layer 5: imports the core.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable


def sign(x: Any) -> variable.Variable:
    """Elementwise sign: -1 where ``x < 0``, 0 where ``x == 0``, 1 where ``x > 0``.

    The gradient is None everywhere, so the result starts a new graph.

    Args:
        x: Input Variable or array.

    Returns:
        A Variable of ``x``'s dtype that requires no gradient.
    """
    array = variable.as_array(x)
    xp = backend.get_array_module(array)
    return variable.as_variable(utils.force_array(xp.sign(array)))
