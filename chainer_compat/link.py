"""``Link``, ``Chain`` and ``ChainList``: the building blocks that own parameters, persistent
values and child links, and move, copy and serialize them together.

Layer 8: imports backend, device_resident, initializers, function_hook, link_hook,
``serializers._checked``, ``utils._shapes`` and variable.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import warnings
from collections import OrderedDict
from collections.abc import Iterable, Iterator, MutableSequence, Sequence
from typing import TYPE_CHECKING, Any

import numpy

from chainer_compat import backend, initializers
from chainer_compat.device_resident import DeviceResident, DeviceResidentsVisitor
from chainer_compat.function_hook import _register_hook
from chainer_compat.link_hook import (
    LinkHook,
    _ForwardPostprocessCallbackArgs,
    _ForwardPreprocessCallbackArgs,
    thread_link_hooks,
)
from chainer_compat.serializers import _checked
from chainer_compat.utils._shapes import broadcasts_to
from chainer_compat.variable import Parameter, Variable

if TYPE_CHECKING:
    from chainer_compat.sequential import Sequential

__all__ = ["Chain", "ChainList", "Link"]

_COPY_MODES = ("init", "copy", "share")


def _check_copy_mode(mode: str) -> None:
    if mode not in _COPY_MODES:
        # compat: Chainer's wording.
        raise ValueError(
            f"The 'mode' argument should be either 'init','copy', or 'share'. But {mode} was "
            "given.")


def _is_shape(value: Any) -> bool:
    """Whether ``value`` reads as a shape: None, or what ``int()`` takes, or a sequence of them.

    compat: as in Chainer, a sequence of other items is a (shape, dtype) pair, and ``int()``'s
    own ValueError (a string) propagates; unlike Chainer, a zero-length axis is a shape too.
    """
    if value is None:
        return True
    try:
        if isinstance(value, Sequence):
            for item in value:
                int(item)
        else:
            int(value)
    except TypeError:
        return False
    return True


def _shape_and_dtype(value: Any) -> tuple[Any, Any]:
    # A bare shape means float32; anything else is taken as a (shape, dtype) pair.
    if _is_shape(value):
        return value, numpy.float32
    shape, dtype = value
    return shape, dtype


class Link(DeviceResident):
    """A building block of models: it owns parameters and persistent values.

    Parameters are :class:`~chainer_compat.Parameter` objects assigned to attributes inside
    :meth:`init_scope`; persistent values are registered with :meth:`add_persistent` or
    :meth:`register_persistent`. Only those two kinds are serialized, moved between devices and
    copied by :meth:`copyparams`; other attributes belong to the program that builds the link.
    Calling the link calls its ``forward`` method, which subclasses define.

    Args:
        **params: Parameters to create, by name: each value is a shape or a ``(shape, dtype)``
            pair (see :meth:`add_param`).

    Attributes:
        name: The link's name in its parent chain, or None.
    """

    # compat: class-level default, so that a subclass that skips Link.__init__ is detected
    # where Chainer detects it (init_scope and __call__) instead of failing obscurely.
    _init_done = False
    # Made on first access to local_link_hooks; None keeps the hook-free call to one check.
    _local_link_hooks: OrderedDict[str, LinkHook] | None = None
    _within_init_scope = False

    def __init__(self, **params: Any) -> None:
        self._params: set[str] = set()
        self._persistent: set[str] = set()
        self._within_init_scope = False
        self._device: backend.Device = backend.CpuDevice()
        self.name: str | None = None
        self._init_done = True
        for name, value in params.items():
            shape, dtype = _shape_and_dtype(value)
            self.add_param(name, shape, dtype=dtype)

    def __setstate__(self, state: dict[str, Any]) -> None:
        # compat: a link pickled by Chainer 7.8.1 (NOTE [pickles] in variable.py) keeps its
        # init flag under Chainer's private name, and the names of its overridden to_* methods,
        # which chainer_compat reads from the class instead.
        if "_Link__init_done" in state:
            state = dict(state)
            state["_init_done"] = state.pop("_Link__init_done")
            state.pop("_overridden_to_methods", None)
        self.__dict__.update(state)

    def _check_init_done(self) -> None:
        if not self._init_done:
            raise RuntimeError(
                f"Link.__init__() has not been called.\n{type(self).__name__}.__init__ must "
                "call super().__init__() before init_scope() or calling the link")

    # ----------------------------------------------------------------------------- text
    def __str__(self) -> str:
        specs = ", ".join(f"{key}={value}" for key, value in self.printable_specs)
        return f"{type(self).__name__}({specs})"

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        """The ``(keyword, value)`` pairs ``str(link)`` shows; none unless a subclass says."""
        return iter(())

    # ----------------------------------------------------------------------------- scope
    @property
    def within_init_scope(self) -> bool:
        """Whether the code runs inside :meth:`init_scope`, where assignments register."""
        return self._within_init_scope

    @contextlib.contextmanager
    def init_scope(self) -> Iterator[None]:
        """Returns a context manager inside which assigning a Parameter registers it.

        In a :class:`Chain`, assigning a Link inside the scope registers it as a child.

        Raises:
            RuntimeError: If ``Link.__init__`` has not run.
        """
        self._check_init_done()
        previous = self.within_init_scope
        self._within_init_scope = True
        try:
            yield
        finally:
            self._within_init_scope = previous

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Runs ``forward(*args, **kwargs)``, with the link hooks around it if there are any.

        The forward_preprocess of the current thread's global hooks, then of this link's own
        hooks, run before ``forward``; their forward_postprocess, in the same order, after it
        returns (not when it raises). A hook of this link replaces a global one of the same name.
        """
        self._check_init_done()
        # compat: a __call__ injected by a mixin class is preferred over forward, as in Chainer.
        forward = getattr(super(), "__call__", None)  # noqa: B004 - a method, not a callable test
        if forward is None:
            forward = getattr(self, "forward", None)
        if thread_link_hooks.hooks or self._local_link_hooks:
            return self._call_with_hooks(forward, args, kwargs)
        if forward is None:
            raise self._missing_forward()
        return forward(*args, **kwargs)

    def _missing_forward(self) -> AttributeError:
        return AttributeError(
            f"{type(self).__name__} must define forward(...) to be called, got no forward method")

    def _call_with_hooks(self, forward: Any, args: tuple[Any, ...],
                         kwargs: dict[str, Any]) -> Any:
        hooks: dict[str, LinkHook] = dict(thread_link_hooks.hooks)
        if self._local_link_hooks:
            hooks.update(self._local_link_hooks)
        # A snapshot: a hook registered or removed during forward does not change who is told.
        called = tuple(hooks.values())
        before = _ForwardPreprocessCallbackArgs(self, "forward", args, kwargs)
        for hook in called:
            hook.forward_preprocess(before)
        if forward is None:
            raise self._missing_forward()  # after the preprocess hooks, where Chainer raises
        out = forward(*args, **kwargs)
        after = _ForwardPostprocessCallbackArgs(self, "forward", args, kwargs, out)
        for hook in called:
            hook.forward_postprocess(after)
        return out

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, Parameter) and self.within_init_scope:
            # Set first: a name that cannot be set (a read-only property) registers nothing.
            super().__setattr__(name, value)
            value.name = name
            self._params.add(name)
            self._persistent.discard(name)
            return
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self._params.discard(name)
        self._persistent.discard(name)
        super().__delattr__(name)

    # ----------------------------------------------------------------------------- registration
    def add_param(self, name: str, shape: Any = None, dtype: Any = numpy.float32,
                  initializer: Any = None) -> None:
        """Creates a Parameter and registers it under ``name``.

        Args:
            name: Attribute name of the parameter.
            shape: Shape of its array; None leaves it uninitialized.
            dtype: Dtype of the array when ``initializer`` is None (which then fills NaN).
            initializer: An initializer, array or scalar; ``dtype`` is ignored when given.

        Raises:
            AttributeError: If the link already has an attribute ``name``.
        """
        if name in self.__dict__:
            raise AttributeError(
                f"cannot register a new parameter {name}: attribute exists")
        if initializer is None:
            initializer = initializers.NaN(dtype)
        param = Parameter(initializer, shape)
        with self.init_scope():
            setattr(self, name, param)

    def add_persistent(self, name: str, value: Any) -> None:
        """Sets ``value`` as attribute ``name`` and registers it as a persistent value.

        Persistent values are saved and loaded by serializers, and arrays among them follow the
        link between devices.

        Raises:
            AttributeError: If the link already has an attribute ``name``.
        """
        attributes = self.__dict__
        if name in attributes:
            raise AttributeError(
                f"cannot register a new persistent value {name}: attribute exists")
        self._persistent.add(name)
        self._params.discard(name)
        attributes[name] = value

    def register_persistent(self, name: str) -> None:
        """Registers the existing attribute ``name`` as a persistent value.

        A parameter of that name stops being a parameter.

        Raises:
            AttributeError: If there is no attribute ``name``.
        """
        if not hasattr(self, name):
            raise AttributeError(
                f"cannot register non-existent attribute {name} as a persistent value")
        self._persistent.add(name)
        self._params.discard(name)

    # ----------------------------------------------------------------------------- copying
    def copy(self, mode: str = "share") -> Link:
        """Copies the link hierarchy rooted at this link.

        Args:
            mode: ``'share'``: new Parameter objects that share the arrays with this link (and
                no gradients). ``'copy'``: a deep copy, with independent arrays of the same
                values. ``'init'``: a deep copy whose initialized parameters are re-initialized
                with their initializers and given NaN-filled gradients.

        Returns:
            The copy; its ``name`` is None, since it has no parent yet.

        Raises:
            ValueError: If ``mode`` is not one of the three.

        Compat:
            The hierarchy is deep-copied at once, so a link held twice (tied weights) is one
            link held twice in the copy; Chainer copies each child on its own and unties them.
            A ChainList's own parameters follow ``mode`` here; Chainer shares them in every
            mode. The copy of the root has no name in every mode (Chainer keeps a Link's or a
            Chain's in 'copy' and 'init').
        """
        if mode == "share":
            return self._share_copy()
        _check_copy_mode(mode)
        copied = copy.deepcopy(self)
        copied.name = None
        if mode == "init":
            for original, param in zip(self.params(include_uninit=False),
                                       copied.params(include_uninit=False)):
                # A deep-copied Parameter may come back with its data as its initializer;
                # re-initialization must use the initializer the original was built with.
                param.initializer = copy.deepcopy(original.initializer)
                device = param.device
                param.initialize(param.shape)
                if param.device != device:
                    param.to_device(device)
                # compat: Chainer's re-initialized copies carry a NaN-filled gradient, whatever
                # the original's gradient was (it rebuilds each Parameter before initializing).
                if param.array.dtype.kind in "fc":
                    array_module = backend.get_array_module(param.array)
                    param.grad = array_module.full_like(param.array, numpy.nan)
        return copied

    def _share_copy(self) -> Link:
        copied = copy.copy(self)
        copied._params = set(self._params)
        copied._persistent = set(self._persistent)
        copied.name = None
        attributes = copied.__dict__
        for name in copied._params:
            param = copy.copy(attributes[name])
            param.grad = None
            attributes[name] = param
        return copied

    def __deepcopy__(self, memo: dict[int, Any]) -> Link:
        # A device only says where arrays live, and a CUDA device handle cannot be deep-copied:
        # copies stay on the same device object.
        memo.setdefault(id(self._device), self._device)
        cls = type(self)
        copied = cls.__new__(cls)
        memo[id(self)] = copied
        copied.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return copied

    def repeat(self, n_repeat: int, mode: str = "init") -> Sequential:
        """Returns a :class:`~chainer_compat.Sequential` of ``n_repeat`` copies of this link.

        Args:
            n_repeat: How many copies; zero or less gives an empty Sequential.
            mode: How each copy is made, as in :meth:`copy`: ``'init'`` (the default) gives
                independent, freshly initialized parameters; ``'copy'`` gives independent
                arrays with this link's values; ``'share'`` gives new links whose parameters
                share this link's arrays, so updating one updates all.

        Returns:
            The new Sequential; this link itself is not among its layers.

        Raises:
            ValueError: If ``n_repeat`` is positive and ``mode`` is not one of the three.
        """
        from chainer_compat.sequential import Sequential  # sequential builds on this module

        repeated = Sequential()
        # compat: as in Chainer, no copies means no mode check either.
        if n_repeat <= 0:
            return repeated
        _check_copy_mode(mode)
        for _ in range(n_repeat):
            repeated.append(self.copy(mode))
        return repeated

    def _paired_children(self, link: Any, mode: str) -> Iterator[tuple[Link, Any]]:
        """The (child, ``link``'s counterpart) pairs that ``copyparams`` (mode ``'copy'``) or
        ``addgrads`` (``'add'``) descends into, in their order; looking one up raises when
        and as they do for a missing child."""
        return iter(())

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        """Copies the parameter arrays (not gradients) of ``link`` into this hierarchy.

        Values are copied across host and devices. Persistent arrays are copied elementwise
        and other persistent values with :func:`copy.deepcopy`, unless ``copy_persistent`` is
        False.

        Args:
            link: A link with the same structure.
            copy_persistent: Whether persistent values are copied too.

        Raises:
            KeyError, IndexError: If ``link`` lacks a parameter, persistent value or child.
            ValueError, TypeError: If an array of ``link`` cannot be copied into this one's.
            Either is raised before anything is copied (NOTE [copy or add all or nothing]).
        """
        _check_pairs(self, link, "copy", copy_persistent)
        source = link.__dict__
        target = self.__dict__
        for name in self._params:
            target[name].copydata(source[name])
        if copy_persistent:
            for name in self._persistent:
                if backend.is_array(target[name]) and backend.is_array(source[name]):
                    backend.copyto(target[name], source[name])
                else:
                    target[name] = copy.deepcopy(source[name])

    @classmethod
    def from_params(cls, *args: Any, **kwargs: Any) -> Link:
        """Builds a link whose parameters are the given arrays; links that can define it.

        Raises:
            NotImplementedError: For a link class that does not define it (as in Chainer).
        """
        raise NotImplementedError(
            f"{cls.__name__}.from_params must be defined by the link class to build it from "
            "parameter arrays; Linear, EmbedID and the convolution links define it")

    # ----------------------------------------------------------------------------- devices
    # device, xp, to_device, to_cpu, to_gpu, to_chx and from_chx come from DeviceResident,
    # which moves what device_resident_accept visits.
    @property
    def _device_id(self) -> int | None:
        warnings.warn(
            "Link._device_id is left only for backward compatibility and likely to be "
            "removed. Use Link.device instead.", DeprecationWarning, stacklevel=1)
        device = self._device
        return device.device.id if isinstance(device, backend.GpuDevice) else None

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Applies ``visitor`` to this link, its parameters, its persistent arrays and (through
        their own ``device_resident_accept``) its children.

        A link that owns other arrays or Variables (a recurrent state, a sampler) overrides this,
        calls ``super()``, and visits them too, so that ``to_device`` moves them.

        Args:
            visitor: A :class:`~chainer_compat.device_resident.DeviceResidentsVisitor`.
        """
        super().device_resident_accept(visitor)
        attributes = self.__dict__
        for name in sorted(self._params):  # sorted: a move visits in the same order each run
            visitor.visit_variable(attributes[name])
        for name in sorted(self._persistent):
            value = attributes[name]
            if backend.is_array(value):
                attributes[name] = visitor.visit_array(value)
        for child in self.children():
            child.device_resident_accept(visitor)

    # ----------------------------------------------------------------------------- traversal
    def params(self, include_uninit: bool = True) -> Iterator[Parameter]:
        """Yields every parameter of the hierarchy: this link's (by name), then its children's.

        Args:
            include_uninit: Whether parameters without an array are included.
        """
        attributes = self.__dict__
        for name in sorted(self._params):
            param = attributes[name]
            if include_uninit or param.array is not None:
                yield param

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Parameter]]:
        """Yields ``(path, parameter)`` pairs, paths such as ``'/W'`` or ``'/child/W'``.

        Args:
            include_uninit: Whether parameters without an array are included.
        """
        attributes = self.__dict__
        for name in sorted(self._params):
            param = attributes[name]
            if include_uninit or param.array is not None:
                yield "/" + name, param

    def links(self, skipself: bool = False) -> Iterator[Link]:
        """Yields every link of the hierarchy, this one first unless ``skipself``."""
        if not skipself:
            yield self

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        """Yields ``(path, link)`` pairs; this link's path is ``'/'``."""
        if not skipself:
            yield "/", self

    def children(self) -> Iterator[Link]:
        """Yields the direct child links (none for a plain Link)."""
        return iter(())

    def count_params(self) -> int:
        """Returns the number of scalars in all initialized parameters of the hierarchy.

        Warns (UserWarning) for each uninitialized parameter, which is not counted.
        """
        total = 0
        for name, param in self.namedparams():
            if param.array is None:
                warnings.warn(
                    f"Parameter '{name}' has not been initialized, so the resulting count will "
                    "not include the number of parameters in it.", stacklevel=2)
                continue
            total += param.size
        return total

    # ----------------------------------------------------------------------------- hooks
    @property
    def local_link_hooks(self) -> OrderedDict[str, LinkHook]:
        """This link's own hooks, by name, in registration order (see :meth:`add_hook`).

        They run after the current thread's global hooks (see :class:`~chainer_compat.LinkHook`).
        """
        hooks = self._local_link_hooks
        if hooks is None:
            hooks = self._local_link_hooks = OrderedDict()
        return hooks

    def add_hook(self, hook: LinkHook, name: str | None = None) -> Link:
        """Registers a hook that runs around every call of this link only.

        Args:
            hook: The hook; its ``added`` callback is told this link.
            name: Name to register it under; ``hook.name`` when None.

        Returns:
            This link, so that calls can be chained.

        Raises:
            TypeError: If ``hook`` is not a LinkHook.
            KeyError: If a hook of that name is already registered to this link.
        """
        if not isinstance(hook, LinkHook):
            raise TypeError(
                f"Hook must be of type LinkHook, got {type(hook).__name__}: derive the hook "
                "from chainer_compat.LinkHook")
        if name is None:
            name = hook.name
        _register_hook(self.local_link_hooks, name, hook, self,
                       "Hook {name} already exists: a hook name must be registered at most once "
                       "per link; pass another name (add_hook(hook, name='...'))")
        return self

    def delete_hook(self, name: str) -> None:
        """Unregisters this link's hook of that name; its ``deleted`` callback is told this link.

        Raises:
            KeyError: If no hook of that name is registered to this link.
        """
        hooks = self.local_link_hooks
        if name not in hooks:
            raise KeyError(
                f"Hook {name} does not exist: the name must be one of this link's hooks, got "
                f"{name!r} where it has {list(hooks)}")
        try:
            hooks[name].deleted(self)  # still registered while told, as in Chainer
        finally:
            del hooks[name]

    # ----------------------------------------------------------------------------- gradients
    def cleargrads(self) -> None:
        """Sets the gradient of every parameter of the hierarchy to None."""
        for param in self.params():
            param.cleargrad()

    def zerograds(self) -> None:
        """Fills every gradient with zeros (deprecated: use :meth:`cleargrads`)."""
        warnings.warn("Link.zerograds is deprecated. Use Link.cleargrads instead.",
                      DeprecationWarning, stacklevel=1)
        for param in self.params():
            param.zerograd()

    def addgrads(self, link: Link) -> None:
        """Adds the gradients of ``link`` (same structure) to this hierarchy's, across devices.

        A gradient that cannot be added, or a parameter or child ``link`` lacks, is refused
        before any gradient is added (NOTE [copy or add all or nothing]).
        """
        _check_pairs(self, link, "add")
        source = link.__dict__
        target = self.__dict__
        for name in self._params:
            target[name].addgrad(source[name])

    def enable_update(self) -> None:
        """Enables the update rule of every parameter that has one."""
        for param in self.params():
            if param.update_rule is not None:
                param.update_rule.enabled = True

    def disable_update(self) -> None:
        """Disables the update rule of every parameter that has one."""
        for param in self.params():
            if param.update_rule is not None:
                param.update_rule.enabled = False

    @property
    def update_enabled(self) -> bool:
        """Whether some parameter has an enabled update rule."""
        return any(param.update_rule is not None and param.update_rule.enabled
                   for param in self.params())

    # ----------------------------------------------------------------------------- serialization
    def serialize(self, serializer: Any) -> None:
        """Saves or loads the parameters and persistent values through ``serializer``.

        A parameter without an array is initialized from the loaded array's shape.

        Args:
            serializer: A serializer (saving) or deserializer (loading), such as
                :class:`~chainer_compat.serializers.DictionarySerializer`.
        """
        attributes = self.__dict__
        checking = _checked.checks_only(serializer)
        for name in sorted(self._params):
            param = attributes[name]
            loaded = serializer(name, param.array)
            if checking and param.array is None:
                _check_lazy_load(serializer, name, param)
            elif param.array is None and loaded is not None:
                param.initialize(loaded.shape)
                array: Any = param.array
                # compat: assigned as Chainer does, with any cast (a float object array loads).
                array[...] = backend.get_device_from_array(array).send(loaded)
        for name in sorted(self._persistent):
            attributes[name] = serializer(name, attributes[name])


class Chain(Link):
    """A link made of named child links.

    Links assigned to attributes inside :meth:`init_scope` (or added with :meth:`add_link`)
    become children: they get the attribute name as their ``name``, and the chain's traversal,
    copying, device moves and serialization include them, children in name order.

    Args:
        **links: Child links to register, by name.
    """

    def __init__(self, **links: Link) -> None:
        super().__init__()
        self._children: set[str] = set()
        for name, link in links.items():
            self.add_link(name, link)

    def __str__(self) -> str:
        return _nested_str(self, [(child.name, child) for child in self.children()])

    def __getitem__(self, name: str) -> Any:
        """Returns the attribute ``name`` (usually a child link)."""
        return getattr(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        # The scope first: isinstance against Link (an ABCMeta class) costs more, and a chain
        # sets attributes in forward too.
        if self._within_init_scope and isinstance(value, Link):
            if hasattr(self, name):
                raise AttributeError(f"cannot register a new link {name}: attribute exists")
            value.name = name
            self._children.add(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self._children.discard(name)
        super().__delattr__(name)

    def add_link(self, name: str, link: Link) -> None:
        """Registers ``link`` as the child ``name``.

        Raises:
            AttributeError: If the chain already has an attribute ``name``.
            TypeError: If ``link`` is not a Link.
        """
        if name in self.__dict__:
            raise AttributeError(f"cannot register a new link {name}: attribute exists")
        if not isinstance(link, Link):
            raise TypeError("cannot register a non-link object as a child")
        with self.init_scope():
            setattr(self, name, link)

    def _share_copy(self) -> Chain:
        copied: Any = super()._share_copy()
        copied._children = set(self._children)
        attributes = copied.__dict__
        for name in copied._children:
            child = attributes[name].copy("share")
            child.name = name
            attributes[name] = child
        return copied

    def params(self, include_uninit: bool = True) -> Iterator[Parameter]:
        yield from super().params(include_uninit)
        for child in self.children():
            yield from child.params(include_uninit)

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Parameter]]:
        yield from super().namedparams(include_uninit)
        for name in sorted(self._children):
            for path, param in self.__dict__[name].namedparams(include_uninit):
                yield "/" + name + path, param

    def links(self, skipself: bool = False) -> Iterator[Link]:
        if not skipself:
            yield self
        for child in self.children():
            yield from child.links()

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        if not skipself:
            yield "/", self
        for name in sorted(self._children):
            child = self.__dict__[name]
            yield "/" + name, child
            for path, link in child.namedlinks(skipself=True):
                yield "/" + name + path, link

    def children(self) -> Iterator[Link]:
        attributes = self.__dict__
        for name in sorted(self._children):
            yield attributes[name]

    def _paired_children(self, link: Any, mode: str) -> Iterator[tuple[Link, Any]]:
        source = link.__dict__
        for name in self._children:
            yield self.__dict__[name], source[name]

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        super().copyparams(link, copy_persistent)
        source = link.__dict__
        for name in self._children:
            self.__dict__[name].copyparams(source[name], copy_persistent)

    def addgrads(self, link: Link) -> None:
        super().addgrads(link)
        source = link.__dict__
        for name in self._children:
            self.__dict__[name].addgrads(source[name])

    def serialize(self, serializer: Any) -> None:
        super().serialize(serializer)
        for name in sorted(self._children):
            self.__dict__[name].serialize(serializer[name])


class ChainList(Link, MutableSequence):  # type: ignore[type-arg]
    """A link made of a list of child links, indexed from 0.

    It behaves as a mutable sequence of links (``append``, ``insert``, indexing, slicing,
    ``del``, ``len``, iteration); each child's ``name`` is its index as a string. Links cannot
    be registered by assignment inside :meth:`init_scope`.

    Args:
        *links: Initial child links.
    """

    def __init__(self, *links: Link) -> None:
        super().__init__()
        self._children: list[Link] = []
        for link in links:
            self.add_link(link)

    def __str__(self) -> str:
        return _nested_str(self, [(str(index), child)
                                  for index, child in enumerate(self._children)])

    def __setattr__(self, name: str, value: Any) -> None:
        if self._within_init_scope and isinstance(value, Link):
            raise TypeError(
                'cannot register a new link within a "with chainlist.init_scope():" block.')
        super().__setattr__(name, value)

    def __getitem__(self, index: Any) -> Any:
        """Returns the child at ``index`` (a list of children for a slice)."""
        return self._children[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(index, int):
            _require_link(value)
            self._children[index] = value
            value.name = str(index if index >= 0 else len(self._children) + index)
        elif isinstance(index, slice):
            links = list(value)
            for link in links:
                _require_link(link)
            self._children[index] = links
            self._rename_children()
        else:
            raise TypeError(
                f"ChainList indices must be integers or slices, not {type(index).__name__}")

    def __delitem__(self, index: Any) -> None:
        del self._children[index]
        self._rename_children()

    def __len__(self) -> int:
        return len(self._children)

    def __iter__(self) -> Iterator[Link]:
        return iter(self._children)

    def insert(self, index: int, link: Link) -> None:
        """Inserts ``link`` before position ``index``.

        Raises:
            TypeError: If ``link`` is not a Link.
        """
        _require_link(link)
        self._children.insert(index, link)
        self._rename_children()

    def add_link(self, link: Link) -> None:
        """Appends ``link`` as the last child."""
        self.append(link)

    def _rename_children(self) -> None:
        for index, child in enumerate(self._children):
            child.name = str(index)

    def _share_copy(self) -> ChainList:
        copied: Any = super()._share_copy()
        children = [child.copy("share") for child in self._children]
        copied._children = children
        copied._rename_children()
        return copied

    def params(self, include_uninit: bool = True) -> Iterator[Parameter]:
        yield from super().params(include_uninit)
        for child in self._children:
            yield from child.params(include_uninit)

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Parameter]]:
        yield from super().namedparams(include_uninit)
        for index, child in enumerate(self._children):
            for path, param in child.namedparams(include_uninit):
                yield f"/{index}{path}", param

    def links(self, skipself: bool = False) -> Iterator[Link]:
        if not skipself:
            yield self
        for child in self._children:
            yield from child.links()

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        if not skipself:
            yield "/", self
        for index, child in enumerate(self._children):
            yield f"/{index}", child
            for path, link in child.namedlinks(skipself=True):
                yield f"/{index}{path}", link

    def children(self) -> Iterator[Link]:
        return iter(list(self._children))

    def _paired_children(self, link: Any, mode: str) -> Iterator[tuple[Link, Any]]:
        for index, child in enumerate(self._children):
            yield child, link[index]

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        super().copyparams(link, copy_persistent)
        for index, child in enumerate(self._children):
            child.copyparams(link[index], copy_persistent)  # type: ignore[index]

    def addgrads(self, link: Link) -> None:
        super().addgrads(link)
        for index, child in enumerate(self._children):
            child.addgrads(link[index])  # type: ignore[index]

    def serialize(self, serializer: Any) -> None:
        super().serialize(serializer)
        for index, child in enumerate(self._children):
            child.serialize(serializer[str(index)])


def _check_lazy_load(serializer: Any, name: str, param: Parameter) -> None:
    """The check pass's part of loading into an uninitialized parameter (NOTE
    [all-or-nothing loading]): the initializer is asked about the shape (the array
    ``initialize`` makes is not made), numbers always convert, and other arrays (strings,
    objects) are assigned to a stand-in as the load assigns them."""
    header = serializer.loaded_header(name)
    if header is None:
        return
    shape, dtype = header
    check_shape = getattr(param.initializer, "_check_shape", None)
    if check_shape is not None:
        serializer.check(functools.partial(check_shape, shape))
    if dtype.kind not in "biufc":
        stored = serializer.peek(name)
        serializer.check(functools.partial(
            _assign, numpy.empty(stored.shape, param.dtype), stored))


def _assign(target: Any, source: Any) -> None:
    target[...] = source


# NOTE [copy or add all or nothing]
# copyparams and addgrads walk two hierarchies side by side and copy (add) parameter by
# parameter; a missing child or parameter, or an array that does not fit, stopped Chainer
# half way. _check_pairs walks the same pairs first (each link's _paired_children says how
# it pairs its children) and raises what the real walk would raise: for a missing name or
# child by looking it up the same way, for an array by a cheap test of shapes and dtypes
# and, only when that fails, by doing the same operation on stand-ins. Each level of a
# hierarchy checks its whole subtree again when the walk reaches it; copyparams and
# addgrads are not on a training step's path, and this keeps user subclasses that call
# super() checked too. compat: Chainer copies (adds) what comes before the error.


def _check_pairs(target: Link, source: Any, mode: str, copy_persistent: bool = True) -> None:
    """Raises the first error ``target.copyparams(source)`` (``addgrads``) would raise, in the
    same order: a link's parameters, its persistent values, then its children one by one."""
    # The lookups are the real walk's, so a counterpart of another kind (a function in a
    # Sequential, say) fails here as it would there.
    fields, other = target.__dict__, source.__dict__
    for name in target._params:
        if mode == "copy":
            _check_copydata(fields[name], other[name])
        else:
            _check_add(fields[name], other[name])
    if mode == "copy" and copy_persistent:
        for name in target._persistent:
            value, source_value = fields[name], other[name]
            if backend.is_array(value) and backend.is_array(source_value):
                _check_copy(value, source_value)
    for child, counterpart in target._paired_children(source, mode):
        _check_pairs(child, counterpart, mode, copy_persistent)


def _check_copydata(dst: Variable, src: Variable) -> None:
    """Raises what ``dst.copydata(src)`` would, unless it certainly succeeds; an
    uninitialized side is initialized there with the other's shape, in its own dtype."""
    dst_array, src_array = dst._array, src._array
    if dst_array is None and src_array is None:
        return
    if dst_array is None:
        xp = backend.get_array_module(src_array)
        dst_array = xp.empty(src_array.shape, dst.dtype)
    elif src_array is None:
        xp = backend.get_array_module(dst_array)
        src_array = xp.empty(dst_array.shape, src.dtype)
    _check_copy(dst_array, src_array)


def _check_copy(dst: Any, src: Any) -> None:
    """Raises what ``backend.copyto(dst, src)`` would, unless it certainly succeeds."""
    if not _checked.copy_fits(dst, src.shape, src.dtype):
        backend.copyto(_checked.stand_in(dst), src)


def _check_add(dst: Variable, src: Variable) -> None:
    """Raises what ``dst.addgrad(src)`` would, unless it certainly succeeds."""
    gx = src.grad
    if gx is None:
        return
    data = dst._array
    if data is None:
        if dst.dtype != gx.dtype:
            dst.addgrad(src)  # refuses the dtype before it initializes anything
        return
    grad = dst._grad_var
    if grad is None:
        total_shape, total_dtype = gx.shape, gx.dtype
    elif gx.dtype == grad._array.dtype and broadcasts_to(gx.shape, grad._array.shape):
        total_shape, total_dtype = grad._array.shape, gx.dtype
    else:
        total_shape, total_dtype = None, None
    if total_shape == data.shape and total_dtype == data.dtype:
        return
    stand_in = Variable(data.copy())
    # The gradient as it is, even one that no longer fits a replaced array (no setter check).
    stand_in._grad_var = None if grad is None else Variable(grad._array.copy())
    stand_in.addgrad(src)


def _require_link(value: Any) -> None:
    if not isinstance(value, Link):
        raise TypeError(
            f"ChainList children must be Links, got {type(value).__name__}")


def _nested_str(link: Link, named_children: Iterable[tuple[Any, Link]]) -> str:
    """``Cls(\\n  (name): child,\\n)``, each child's own text indented; ``Cls()`` if empty."""
    lines = []
    for name, child in named_children:
        for line in f"({name}): {child},".splitlines():
            lines.append(f"  {line}\n")
    body = "".join(lines)
    return f"{type(link).__name__}({chr(10) + body if body else ''})"
