"""``FailOnNonNumber``: stops training when a parameter holds NaN or infinity.

Layer 8: imports ``training.extension``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.training import extension

__all__ = ["FailOnNonNumber"]


class FailOnNonNumber(extension.Extension):
    """Raises RuntimeError when a parameter of an optimizer's target is not finite."""

    def __call__(self, trainer: Any) -> None:
        """Checks every parameter of every optimizer's target.

        Raises:
            RuntimeError: If a parameter holds NaN or infinity.
        """
        for name, optimizer in trainer.updater.get_all_optimizers().items():
            target = optimizer.target
            xp = target.xp
            for param in target.params():
                if param.array is not None and not xp.isfinite(param.array).all():
                    # compat: Chainer's wording.
                    raise RuntimeError(
                        f"Kill the process since parameters in optimizer '{name}' diverge. "
                        "R.I.P.")
