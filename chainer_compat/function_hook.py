"""``FunctionHook`` and the thread-local registry of global hooks.

Layer 2: imports only configuration. A hook is told about every forward and backward
of the functions it is registered for; it never keeps graph nodes alive.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.configuration import thread_flags as _thread_flags


def get_function_hooks() -> dict[str, FunctionHook]:
    """Returns the current thread's global hooks, by name, in registration order."""
    # The registry lives in the thread's fast flags: see NOTE [fast flags] in configuration.
    return _thread_flags.flags.hooks


def _register_hook(registry: dict[str, Any], name: str, hook: Any, owner: Any,
                   clash_message: str) -> None:
    """Puts a function or link hook in a registry and tells it, or leaves the registry as it was.

    Args:
        registry: The name-keyed mapping to put the hook in.
        name: The name to register it under.
        hook: The hook; its ``added`` callback is told ``owner``.
        owner: The function or link it is added to, or None for a global registration.
        clash_message: The KeyError message when ``name`` is taken; ``{name}`` is filled in.

    Raises:
        KeyError: If ``name`` is already in the registry.
    """
    if name in registry:
        raise KeyError(clash_message.format(name=name))
    registry[name] = hook
    try:
        hook.added(owner)
    except BaseException:
        # A failed registration leaves nothing behind (a with block never starts, so its
        # __exit__ would never unregister the hook).
        del registry[name]
        raise


class HookHandle:
    """Undoes one hook registration; :meth:`remove` is harmless to call twice.

    Args:
        registry: The name-keyed mapping the hook was put in.
        name: The name it was registered under.
        hook: The registered hook.
        owner: The function the hook was added to, or None for a global registration.
    """

    __slots__ = ("_registry", "_name", "_hook", "_owner")
    _registry: dict[str, Any] | None

    def __init__(self, registry: dict[str, Any], name: str, hook: FunctionHook,
                 owner: Any) -> None:
        self._registry = registry
        self._name = name
        self._hook = hook
        self._owner = owner

    def remove(self) -> None:
        """Unregisters the hook if it is still registered under its name."""
        registry = self._registry
        if registry is not None and registry.get(self._name) is self._hook:
            del registry[self._name]
            self._hook.deleted(self._owner)
        self._registry = None


class FunctionHook:
    """Base class of hooks called around every forward and backward of functions.

    Register it for the current thread with ``with hook:``, or for one function with
    ``function.add_hook(hook)``. Override the callbacks you need; each gets the function
    (a FunctionNode) and the input arrays, and the backward callbacks the output gradients.

    Attributes:
        name: Name the hook is registered under unless another is given.
    """

    name = "FunctionHook"

    def __enter__(self) -> FunctionHook:
        _register_hook(get_function_hooks(), self.name, self, None,
                       "hook {name} already exists: a hook name must be registered at most once "
                       "per thread; give the second hook another name")
        return self

    def __exit__(self, *exc_info: Any) -> None:
        hooks = get_function_hooks()
        if hooks.get(self.name) is self:
            del hooks[self.name]
            self.deleted(None)

    def added(self, function: Any) -> None:
        """Called when the hook is registered (``function`` is None for a global one)."""

    def deleted(self, function: Any) -> None:
        """Called when the hook is unregistered (``function`` is None for a global one)."""

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        """Called before a function's forward."""

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        """Called after a function's forward."""

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...],
                            out_grad: tuple[Any, ...]) -> None:
        """Called before a function's backward."""

    def backward_postprocess(self, function: Any, in_data: tuple[Any, ...],
                             out_grad: tuple[Any, ...]) -> None:
        """Called after a function's backward."""
