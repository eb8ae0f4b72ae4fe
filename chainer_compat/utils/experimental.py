"""``experimental``: the call an API makes to warn its users that its interface may change.

Layer 1: imports only the standard library; the package's on/off switch is read at call time.
"""

from __future__ import annotations

import sys
import warnings


def _warning_disabled() -> bool:
    # chainer_compat's top level owns the switch and sits above this layer; by the time any API
    # calls experimental() the package has been imported, so read it from sys.modules.
    package = sys.modules.get("chainer_compat")
    return bool(getattr(package, "disable_experimental_feature_warning", False))


def experimental(api_name: str) -> None:
    """Warns, with a ``FutureWarning``, that the API ``api_name`` is experimental.

    Call it at the start of the experimental function (or of ``__init__`` for a class). Setting
    ``chainer.disable_experimental_feature_warning = True`` silences every such warning.

    Args:
        api_name: The name shown in the warning, such as ``'chainer.foo.bar'``.
    """
    if not _warning_disabled():
        warnings.warn(
            f"{api_name} is experimental. The interface can change in the future.",
            FutureWarning, stacklevel=2)
