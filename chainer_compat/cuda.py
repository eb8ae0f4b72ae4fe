"""Legacy path ``chainer.cuda``: the very module object ``chainer_compat.backends.cuda``.

Layer 1. Importing this module replaces its own ``sys.modules`` entry with the real one, so
``chainer_compat.cuda is chainer_compat.backends.cuda`` and both share every lazy attribute.
"""

from __future__ import annotations

import sys

from chainer_compat.backends import cuda as _cuda_module

# compat: Chainer keeps `from chainer import cuda` working as an alias of chainer.backends.cuda.
# The import system hands out whatever sys.modules holds after this body runs.
sys.modules[__name__] = _cuda_module
