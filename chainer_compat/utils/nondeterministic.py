"""``nondeterministic``: the warning a function gives when it runs code whose result may vary
between runs (atomic adds on a GPU) while ``config.warn_nondeterministic`` is on.

Layer 1: imports ``configuration`` only.
"""

from __future__ import annotations

import warnings

from chainer_compat import configuration


def nondeterministic(f_name: str) -> None:
    """Warns that ``f_name`` may give non-deterministic results, if the config asks for it.

    Nothing happens unless ``chainer.config.warn_nondeterministic`` is True (it is False by
    default, or set by the ``CHAINER_WARN_NONDETERMINISTIC`` environment variable).

    Args:
        f_name: The name of the function or code path, shown as the warning's source.
    """
    if configuration.config.warn_nondeterministic:
        # compat: Chainer's wording and category (a plain UserWarning).
        warnings.warn(
            "Potentially non-deterministic code is being executed while "
            "config.warn_nondeterministic set. Source: " + f_name, stacklevel=2)
