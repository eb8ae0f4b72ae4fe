"""``TimerHook``: measures the time the forward method of every hooked link takes.

Layer 8: imports ``link_hook`` and ``function_hooks.timer`` (whose ``_CallTimer`` does the
timing and the report). On a CuPy link the link's own ``xp`` gives the CUDA events, so timing
NumPy links never imports CuPy.
"""

from __future__ import annotations

import time

from chainer_compat.function_hooks.timer import _CallTimer
from chainer_compat.link_hook import (
    LinkHook,
    _ForwardPostprocessCallbackArgs,
    _ForwardPreprocessCallbackArgs,
)

# The host clock, in seconds: the highest-resolution monotonic one. Tests may replace it.
_clock = time.perf_counter


class TimerHook(LinkHook, _CallTimer):
    """Link hook that measures the elapsed time of every call of a link's forward method.

    Register it with ``with TimerHook() as hook:`` (every link the current thread calls) or with
    ``link.add_hook(hook)`` (one link), then read :meth:`summary` or call :meth:`print_report`::

          LinkName  ElapsedTime  Occurrence
            Linear     41.42sec        2100
               MLP     42.09sec         700

    Links call their children, so the times in :attr:`call_history` overlap: a chain's time
    includes its children's. Only the outermost calls count towards :meth:`total_time`. On a
    link whose ``xp`` is CuPy the time is measured with CUDA events on the current stream, and
    the hook waits for the stop event.

    Attributes:
        call_history: List of ``(link class name, elapsed seconds)`` pairs, one per call, in the
            order the calls finished.
    """

    name = "TimerHook"
    _name_column = "LinkName"

    # This module's clock, so that replacing it here times links (the base reads its own).
    @staticmethod
    def _now() -> float:
        return _clock()

    def forward_preprocess(self, args: _ForwardPreprocessCallbackArgs) -> None:
        self._start(args.link.xp)

    def forward_postprocess(self, args: _ForwardPostprocessCallbackArgs) -> None:
        self._finish(type(args.link).__name__)
