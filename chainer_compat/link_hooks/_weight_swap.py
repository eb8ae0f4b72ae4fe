"""The base of the link hooks that swap a link's weight for a transformed one during each
forward call (``SpectralNormalization``, ``WeightStandardization``).

Layer 8: imports link_hook.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.link_hook import LinkHook, _ForwardPostprocessCallbackArgs

__all__: list[str] = []


class WeightSwapHook(LinkHook):
    """A hook bound to one link that replaces the weight ``weight_name`` during each call.

    Subclasses keep the link's own weight in ``original_weight`` and set the transformed one
    in ``forward_preprocess``; ``forward_postprocess`` puts the original back. As the swap
    needs a link, the hook refuses to be a ``with`` block (a global registration).
    ``_initialized`` starts False, for the subclass to set once the weight exists.

    Args:
        weight_name: Name of the link's weight parameter.
        name: Name to register the hook under; the class's ``name`` when None.
    """

    def __init__(self, weight_name: str, name: str | None) -> None:
        self.weight_name = weight_name
        self._initialized = False
        self.original_weight: Any = None
        if name is not None:
            self.name = name

    def __enter__(self) -> LinkHook:
        raise NotImplementedError(self._not_a_context_manager())

    def __exit__(self, *exc_info: Any) -> None:
        raise NotImplementedError(self._not_a_context_manager())

    def _not_a_context_manager(self) -> str:
        return (f"{type(self).__name__} cannot be used as a context manager: register it on "
                "one link with link.add_hook(hook)")

    def _check_weight_exists(self, link: Any) -> None:
        """Raises ValueError unless ``link`` has the attribute ``weight_name``."""
        if not hasattr(link, self.weight_name):
            # compat: Chainer's message, word for word.
            raise ValueError(f"Weight '{self.weight_name}' does not exist!")

    def forward_postprocess(self, args: _ForwardPostprocessCallbackArgs) -> None:
        setattr(args.link, self.weight_name, self.original_weight)
