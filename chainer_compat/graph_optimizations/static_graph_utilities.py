"""``static_code``: marks code a static chain must run on every call.

Layer 8: imports nothing from chainer_compat.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["static_code", "static_forward_optimizations"]


# NOTE [static chains run define-by-run]
# Chainer 7.8.1's @static_graph traces a chain's first call into a schedule and from then on
# replays the schedule instead of running __call__; code outside @static_code functions runs
# only while a schedule is built. chainer_compat runs every call define-by-run, which is what
# Chainer does with ``config.use_static_graph`` False: the same functions on the same arrays,
# so the same values and gradients. Where Chainer's schedule differs from its own
# define-by-run, ours follows the define-by-run: code outside @static_code runs on every call;
# a @static_code function, or a function with side effects such as batch normalization's
# running statistics, runs once per call (Chainer's runs twice on a call that builds a
# schedule); and random functions draw afresh on every call (Chainer's schedule replays the
# mask dropout drew while the schedule was built). Chainer refuses a static chain inside
# another (RuntimeError) and the decorator on a Link that is not a Chain (AssertionError);
# both simply run here.


def static_code(*args: Any, **kwargs: Any) -> Any:
    """Marks a function whose side effects a static chain must repeat on every call.

    Usable bare (``@static_code``) or with Chainer's keyword (``@static_code(func_name='f')``).
    Here every call runs define-by-run (NOTE [static chains run define-by-run]), so the
    decorated function is simply called.

    Args:
        func_name: The name Chainer's schedule would show for the function; accepted and unused.

    Returns:
        The wrapped function, or a decorator when called with keywords.

    Raises:
        TypeError: On positional arguments other than the one function, or a keyword other
            than ``func_name``.
    """
    if len(args) == 1 and not kwargs and callable(args[0]):
        return _called_as_is(args[0])
    if args:
        raise TypeError(
            f"static_code takes a function, or only the keyword func_name, got positional "
            f"arguments {args!r}: write @static_code or @static_code(func_name=...)")
    unknown = sorted(set(kwargs) - {"func_name"})
    if unknown:
        raise TypeError(f"static_code got unexpected keyword arguments {unknown}: the only "
                        f"keyword it takes is func_name")
    return _called_as_is


def _called_as_is(func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapped


def static_forward_optimizations(func: Any, inputs: Sequence[Any]) -> Any:
    """Runs ``func.forward`` on ``inputs``: the static-schedule hook of Chainer's
    ``FunctionNode.apply``, with no schedule to record into.

    Args:
        func: A FunctionNode.
        inputs: Its input arrays.

    Returns:
        The forward's tuple of output arrays.
    """
    return func.forward(tuple(inputs))
