"""Ready-made function hooks: timing, debug printing and CuPy memory profiling.

Layer 8: each hook lives in its own module, as in Chainer (``chainer.function_hooks.timer``, ...).
"""

from chainer_compat.function_hooks.cuda_profile import CUDAProfileHook
from chainer_compat.function_hooks.cupy_memory_profile import CupyMemoryProfileHook
from chainer_compat.function_hooks.debug_print import PrintHook
from chainer_compat.function_hooks.timer import TimerHook

__all__ = ["CUDAProfileHook", "CupyMemoryProfileHook", "PrintHook", "TimerHook"]
