"""``gumbel_softmax``: a differentiable, relaxed sample from a categorical distribution.

Layer 5: imports backend and variable; ``activation.softmax`` (imported on use). The Gumbel
noise comes from the array module's global RNG.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable


def gumbel_softmax(log_pi: Any, tau: Any = 0.1, axis: int = 1) -> variable.Variable:
    """Draws ``softmax((log_pi + g) / tau)`` along ``axis`` with ``g ~ Gumbel(0, 1)``.

    Args:
        log_pi: Unnormalized log-probabilities (Variable or array).
        tau: Temperature: a float or a Variable (broadcastable to ``log_pi``).
        axis: The axis holding the categories.

    Returns:
        A Variable of ``log_pi``'s shape; for a 0-dimensional ``log_pi``, the constant 1. For
        an array ``log_pi``, ``(log_pi + g) / tau`` is plain array arithmetic: an int array
        gives a float64 result, and ``tau=0.0`` gives NaN.
    """
    from chainer_compat.functions.activation.softmax import softmax

    array = variable.as_array(log_pi)
    xp = backend.get_array_module(array)
    if array.ndim < 1:
        return variable.Variable(xp.ones((), array.dtype))
    noise = xp.random.gumbel(size=array.shape).astype(array.dtype)
    # compat: a raw array is left to NumPy/CuPy arithmetic, as in Chainer: an int ``log_pi``
    # gives float64 after ``/ tau``, and ``tau=0.0`` gives NaN (with NumPy's warning), not an
    # error.
    return softmax((log_pi + noise) / tau, axis=axis)
