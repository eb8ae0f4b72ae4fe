"""``static_graph``: Chainer's static-chain decorator, run define-by-run.

Layer 8: imports the configuration and Link.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from chainer_compat.configuration import config
from chainer_compat.link import Link

__all__ = ["ScheduleManager", "static_graph"]

_OPTIONS = ("force_test_define_by_run", "minimize_cache_size", "verbosity_level",
            "enable_double_backprop")


class ScheduleManager:
    """What a static chain's ``schedule_manager`` attribute holds; there is no schedule here.

    Chainer asks code that runs several forward passes before a backward to call
    ``chain.schedule_manager.end_forward()`` after each; such code runs unchanged.

    Args:
        minimize_cache_size: Chainer's cache option; kept, unused.
        verbosity_level: Chainer's debug-print level; kept, unused.
    """

    def __init__(self, minimize_cache_size: bool = True, verbosity_level: int = 0) -> None:
        self.minimize_cache_size = minimize_cache_size
        self.verbosity_level = verbosity_level

    def end_forward(self) -> None:
        """Marks the end of a forward pass: nothing to do when every pass runs define-by-run."""

    def __repr__(self) -> str:
        return (f"ScheduleManager(minimize_cache_size={self.minimize_cache_size}, "
                f"verbosity_level={self.verbosity_level})")


def static_graph(*args: Any, **kwargs: Any) -> Any:
    """Marks a Chain's ``__call__`` (or ``forward``) as a static subgraph.

    Usable bare (``@static_graph``) or with Chainer's keywords
    (``@static_graph(force_test_define_by_run=True)``). Chainer traces the first call into a
    schedule and replays it afterwards; chainer_compat runs every call define-by-run, as
    Chainer does with ``config.use_static_graph`` False (NOTE [static chains run
    define-by-run]), so the values and gradients are the ones the code defines. While
    ``config.use_static_graph`` is True, the chain gets a ``schedule_manager`` attribute on its
    first call, as in Chainer, whose ``end_forward()`` may be called.

    Args:
        force_test_define_by_run: Chainer's option to run test mode define-by-run; every call
            already does.
        minimize_cache_size: Chainer's schedule-cache option; kept on the schedule manager.
        verbosity_level: Chainer's debug-print level; kept on the schedule manager.
        enable_double_backprop: Chainer's option to let the schedule be differentiated twice;
            a define-by-run call always can be.

    Returns:
        The wrapped method, or a decorator when called with keywords.

    Raises:
        TypeError: On positional arguments other than the one method, or a keyword Chainer
            does not define (Compat: Chainer ignores unknown keywords; here a misspelt option
            is reported rather than silently dropped).
    """
    if len(args) == 1 and not kwargs and callable(args[0]):
        return _run_define_by_run(args[0], {})
    if args:
        raise TypeError(
            f"static_graph takes a method, or only keywords, got positional arguments "
            f"{args!r}: write @static_graph or @static_graph(verbosity_level=..., ...)")
    unknown = sorted(set(kwargs) - set(_OPTIONS))
    if unknown:
        raise TypeError(f"static_graph got unexpected keyword arguments {unknown}: the keywords "
                        f"it takes are {', '.join(_OPTIONS)}")
    return functools.partial(_run_define_by_run, options=kwargs)


def _run_define_by_run(func: Callable[..., Any], options: dict[str, Any]) -> Callable[..., Any]:
    minimize_cache_size = options.get("minimize_cache_size", False)  # Chainer's default here
    verbosity_level = options.get("verbosity_level", 0)
    force_test_define_by_run = options.get("force_test_define_by_run", False)

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        # Chainer makes the manager when it would trace: static graphs on, and not a test-mode
        # call of a chain that asked to run test mode define-by-run.
        traced = config.use_static_graph and (config.train or not force_test_define_by_run)
        if (traced and args and isinstance(args[0], Link)
                and not hasattr(args[0], "schedule_manager")):
            args[0].schedule_manager = ScheduleManager(
                minimize_cache_size=minimize_cache_size, verbosity_level=verbosity_level)
        return func(*args, **kwargs)

    return wrapped
