"""``LinkHook``, the data its callbacks receive, and the thread-local registry of global hooks.

Layer 2: imports only ``function_hook`` (its registration helper). ``Link.__call__`` reads the
registry and runs the hooks around ``forward``; a hook never keeps the link or its arguments
alive after the call.
"""

from __future__ import annotations

import threading
from typing import Any

from chainer_compat.function_hook import _register_hook

__all__ = ["LinkHook", "get_link_hooks"]


class _ThreadLinkHooks(threading.local):
    """Each thread's global link hooks, by name, in registration order."""

    def __init__(self) -> None:
        self.hooks: dict[str, LinkHook] = {}


# Link.__call__ reads ``thread_link_hooks.hooks`` directly: one attribute read of a plain
# threading.local is the whole cost of a call when no hook is registered.
thread_link_hooks = _ThreadLinkHooks()


def get_link_hooks() -> dict[str, LinkHook]:
    """Returns the current thread's global link hooks, by name, in registration order."""
    return thread_link_hooks.hooks


def _describe(callback_args: Any, names: tuple[str, ...]) -> str:
    kind = type(callback_args)
    fields = " ".join(f"{name}={getattr(callback_args, name)}" for name in names)
    return f"<{kind.__module__}.{kind.__qualname__} {fields}>"


class _ForwardPreprocessCallbackArgs:
    """What :meth:`LinkHook.forward_preprocess` gets about the call that is about to run.

    Attributes:
        link: The called link.
        forward_name: Name of the method about to run (``'forward'``).
        args: Positional arguments of the call.
        kwargs: Keyword arguments of the call; the same dict the forward method receives.
    """

    __slots__ = ("link", "forward_name", "args", "kwargs")

    def __init__(self, link: Any, forward_name: str, args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> None:
        self.link = link
        self.forward_name = forward_name
        self.args = args
        self.kwargs = kwargs

    def __repr__(self) -> str:
        return _describe(self, ("link", "forward_name", "args", "kwargs"))


class _ForwardPostprocessCallbackArgs(_ForwardPreprocessCallbackArgs):
    """What :meth:`LinkHook.forward_postprocess` gets about the call that has just returned:
    the fields of the preprocess arguments, and ``out``, what the forward method returned."""

    __slots__ = ("out",)

    def __init__(self, link: Any, forward_name: str, args: tuple[Any, ...],
                 kwargs: dict[str, Any], out: Any) -> None:
        super().__init__(link, forward_name, args, kwargs)
        self.out = out

    def __repr__(self) -> str:
        return _describe(self, ("link", "forward_name", "args", "kwargs", "out"))


class LinkHook:
    """Base class of hooks called before and after the forward method of links.

    Register a hook for every link called by the current thread with ``with hook:``, or for
    one link with ``link.add_hook(hook)`` (undone by ``link.delete_hook(name)``). Global hooks
    run first, in registration order, then the link's own; a link's hook replaces a global one
    of the same name. Override the callbacks you need; by default they do nothing.

    Attributes:
        name: Name the hook is registered under unless another is given.
    """

    name = "LinkHook"

    def __enter__(self) -> LinkHook:
        _register_hook(get_link_hooks(), self.name, self, None,
                       "hook {name} already exists: a link hook name must be registered at most "
                       "once per thread; give the second hook another name")
        return self

    def __exit__(self, *exc_info: Any) -> None:
        hooks = get_link_hooks()
        if hooks.get(self.name) is not self:
            return
        try:
            self.deleted(None)  # still registered while told, as in Chainer
        finally:
            del hooks[self.name]

    def added(self, link: Any) -> None:
        """Called when the hook is registered.

        Args:
            link: The link it was added to, or None for a global registration.
        """

    def deleted(self, link: Any) -> None:
        """Called when the hook is unregistered.

        Args:
            link: The link it was removed from, or None for a global registration.
        """

    def forward_preprocess(self, args: _ForwardPreprocessCallbackArgs) -> None:
        """Called before the forward method of a link runs.

        Args:
            args: The call: ``link``, ``forward_name``, ``args`` and ``kwargs``.
        """

    def forward_postprocess(self, args: _ForwardPostprocessCallbackArgs) -> None:
        """Called after the forward method of a link has returned (not when it raised).

        Args:
            args: The call: ``link``, ``forward_name``, ``args``, ``kwargs`` and ``out``.
        """
