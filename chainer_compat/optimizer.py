"""Optimizer machinery: ``Hyperparameter``, ``UpdateRule``, ``Optimizer`` and ``GradientMethod``,
plus the hook tables they share and the deprecated hook aliases Chainer keeps here.

Layer 8: imports backend, variable, link, serializers, optimizer_hooks and utils.
"""

from __future__ import annotations

import contextlib
import copy
import math
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

import numpy

from chainer_compat import backend, optimizer_hooks
from chainer_compat.link import Link
from chainer_compat.serializers import Deserializer, _checked
from chainer_compat.utils._numpy_scalars import (
    as_numpy1_scalar,
    as_plain_array,
    is_numpy1_scalar,
    weak_scalar,
)
from chainer_compat.utils._shapes import broadcasts_to
from chainer_compat.variable import Parameter, Variable

__all__ = [
    "GradientClipping",
    "GradientHardClipping",
    "GradientMethod",
    "GradientNoise",
    "Hyperparameter",
    "HyperparameterProxy",
    "Lasso",
    "Optimizer",
    "UpdateRule",
    "WeightDecay",
]

_TIMINGS = ("pre", "post", "auto")


class _Hookable:
    """Two ordered tables of named hooks, one run before an update and one after it.

    Args:
        invalid_timing_fallback: Whether a hook whose own ``timing`` attribute is neither
            ``'pre'`` nor ``'post'`` goes to ``'pre'`` with a warning (the optimizer's rule).
            Otherwise it goes to ``'post'`` (compat: what Chainer's update rules do).
    """

    def __init__(self, invalid_timing_fallback: bool = False) -> None:
        self._pre_update_hooks: OrderedDict[str, Callable[..., Any]] = OrderedDict()
        self._post_update_hooks: OrderedDict[str, Callable[..., Any]] = OrderedDict()
        self._invalid_timing_fallback = invalid_timing_fallback

    def add_hook(self, hook: Callable[..., Any], name: str | None, timing: str) -> None:
        if not callable(hook):
            raise TypeError(f"hook function must be callable, got {type(hook).__name__}")
        if timing not in _TIMINGS:
            raise ValueError(f"timing must be one of ('pre', 'post', 'auto'), got {timing!r}")
        if timing == "auto":
            timing = getattr(hook, "timing", "pre")
            if timing not in ("pre", "post") and self._invalid_timing_fallback:
                warnings.warn("Hook timing attribute not in ('pre', 'post'), "
                              "defaulting timing to 'pre'.", stacklevel=3)
                timing = "pre"
        if name is None:
            name = getattr(hook, "name", getattr(hook, "__name__", None))
            if name is None:
                raise ValueError(
                    "the name of the hook function is not specified: pass name=... or give "
                    "the hook a 'name' attribute")
        if name in self._pre_update_hooks or name in self._post_update_hooks:
            raise KeyError(f'hook "{name}" already exists; remove it first or pass another name')
        if timing == "pre":
            self._pre_update_hooks[name] = hook
        else:
            self._post_update_hooks[name] = hook

    def remove_hook(self, name: str) -> None:
        if name in self._pre_update_hooks:
            del self._pre_update_hooks[name]
        else:
            del self._post_update_hooks[name]  # a KeyError naming the hook, as in Chainer

    def get_hooks(self, timing: str) -> OrderedDict[str, Callable[..., Any]]:
        if timing == "pre":
            return self._pre_update_hooks
        if timing == "post":
            return self._post_update_hooks
        raise ValueError(f"timing must be either 'pre' or 'post', got {timing!r}")


# The NumPy scalars set as hyperparameter entries, by object (NOTE [0-d arrays in updates]).
_numpy_scalars_set: weakref.WeakKeyDictionary[Hyperparameter, dict[str, Any]] = (
    weakref.WeakKeyDictionary())


class Hyperparameter:
    """A set of hyperparameter entries, each an attribute, falling back to a parent set.

    Reading an entry this object does not hold reads it from the parent, so an optimizer's
    hyperparameter can serve as the default of every update rule while a rule may still
    override one entry for itself.

    Args:
        parent: The hyperparameter to read missing entries from, or None.
    """

    def __init__(self, parent: Hyperparameter | None = None) -> None:
        self._parent = parent

    def __getattr__(self, name: str) -> Any:
        # Only called for entries this object lacks; guard the half-built object that copy
        # and pickle create without __init__, so their probes see a plain AttributeError.
        if "_parent" not in self.__dict__:
            raise AttributeError("_parent is not set up yet")
        parent = self._parent
        if parent is None:
            raise AttributeError(
                f"hyperparameter must have the entry {name!r} (here or in a parent), got none")
        return getattr(parent, name)

    def __setattr__(self, name: str, value: Any) -> None:
        # A NumPy scalar is kept as a Python number (NOTE [NumPy scalars in updates] in
        # utils/_numpy_scalars.py), so that the update rules round as on Chainer; the scalar
        # itself is remembered for the updates of 0-d parameters (NOTE [0-d arrays in
        # updates]), outside the object's state, which pickles as Chainer's does.
        number = weak_scalar(value)
        object.__setattr__(self, name, number)
        scalars = _numpy_scalars_set.get(self)
        if number is not value and isinstance(value, numpy.generic):
            if scalars is None:
                scalars = _numpy_scalars_set[self] = {}
            scalars[name] = value
        elif scalars is not None:
            scalars.pop(name, None)

    def _set_numpy_scalars(self) -> list[tuple[Hyperparameter, str, Any]]:
        """Puts back, in this object and its parents, the NumPy scalars set as entries (NOTE
        [0-d arrays in updates]); returns what to restore with :meth:`_restore_entries`."""
        replaced: list[tuple[Hyperparameter, str, Any]] = []
        hyperparam: Hyperparameter | None = self
        while hyperparam is not None:
            entries = hyperparam.__dict__
            for name, scalar in _numpy_scalars_set.get(hyperparam, {}).items():
                if name in entries:
                    replaced.append((hyperparam, name, entries[name]))
                    entries[name] = scalar
            hyperparam = entries.get("_parent")
        return replaced

    @staticmethod
    def _restore_entries(replaced: list[tuple[Hyperparameter, str, Any]]) -> None:
        for hyperparam, name, value in replaced:
            hyperparam.__dict__[name] = value

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A pickle (Chainer's too) restores the entries without __setattr__.
        for name, value in state.items():
            setattr(self, name, value)

    def __repr__(self) -> str:
        entries = self.get_dict()
        text = ", ".join(f"{key}={entries[key]}" for key in sorted(entries))
        return f"Hyperparameter({text})"

    @property
    def parent(self) -> Hyperparameter | None:
        """The parent hyperparameter, or None."""
        return self._parent

    def get_dict(self) -> dict[str, Any]:
        """Returns every entry readable from this object (own entries win over the parent's)."""
        entries = {} if self._parent is None else self._parent.get_dict()
        entries.update((key, value) for key, value in self.__dict__.items() if key != "_parent")
        return entries


class HyperparameterProxy:
    """A class attribute that reads and writes one entry of ``self.hyperparam``.

    Args:
        attr_name: Name of the hyperparameter entry.
    """

    def __init__(self, attr_name: str) -> None:
        self._attr_name = attr_name
        self.__doc__ = f"Alias to ``self.hyperparam.{attr_name}``"

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        return getattr(obj.hyperparam, self._attr_name)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(obj.hyperparam, self._attr_name, value)


class _NeverCalledInitializer:
    """Gives an uninitialized fp32 master parameter its dtype; it is always filled by copy."""

    dtype = numpy.float32

    def __call__(self, array: Any) -> None:
        raise RuntimeError("the fp32 copy of a parameter must be filled from the parameter, "
                           "got a call to its initializer")


def _device_of(param: Variable) -> Any:
    array = param.array
    if array is None:
        # An uninitialized Parameter remembers where it will live.
        return getattr(param, "_initial_device", None) or backend.CpuDevice()
    return backend.get_device_from_array(array)


class UpdateRule:
    """How one parameter is updated from its gradient; the base of every optimizer's rule.

    A subclass overrides :meth:`update_core`, or both :meth:`update_core_cpu` and
    :meth:`update_core_gpu`, and :meth:`init_state` if it keeps state arrays. The state
    arrays follow the parameter to its device before each update.

    Args:
        parent_hyperparam: The hyperparameter that gives this rule's defaults.

    Attributes:
        enabled: Whether :meth:`update` updates the parameter.
        hyperparam: This rule's :class:`Hyperparameter`.
        t: Number of updates made by this rule.
    """

    is_elementwise = False

    # compat: class-level defaults, because subclasses may skip __init__ (e.g. via copy).
    _state: dict[str, Any] | None = None
    enabled = True
    t = 0
    _use_fp32_update = False
    _fp32_param: Parameter | None = None

    def __init__(self, parent_hyperparam: Hyperparameter | None = None) -> None:
        self._state = None
        self.enabled = True
        self.hyperparam = Hyperparameter(parent_hyperparam)
        self.t = 0
        self._use_fp32_update = False
        self._fp32_param = None
        self._hookable = _Hookable()

    @property
    def state(self) -> Any:
        """The state dict of arrays by name, or None before the first update or a load."""
        return self._state

    def add_hook(self, hook: Callable[..., Any], name: str | None = None,
                 timing: str = "auto") -> None:
        """Adds a hook called as ``hook(rule, param)`` before or after each update.

        Args:
            hook: The callable.
            name: Registration name; defaults to ``hook.name``, then ``hook.__name__``.
            timing: ``'pre'``, ``'post'``, or ``'auto'`` to use ``hook.timing`` (``'pre'`` if
                the hook has none).

        Raises:
            TypeError: If ``hook`` is not callable.
            ValueError: If ``timing`` is invalid or no name can be found.
            KeyError: If a hook of that name is already registered.
        """
        self._hookable.add_hook(hook, name, timing)

    def remove_hook(self, name: str) -> None:
        """Removes the hook registered as ``name`` (KeyError if there is none)."""
        self._hookable.remove_hook(name)

    def update(self, param: Variable) -> None:
        """Runs the pre hooks, updates ``param`` with its gradient, then runs the post hooks.

        Does nothing when :attr:`enabled` is False; otherwise increments :attr:`t` first. The
        gradient is divided by the loss scale the last backward used. With
        :meth:`use_fp32_update` a float16 parameter is updated through a float32 copy.

        Args:
            param: The parameter to update.
        """
        if not self.enabled:
            return
        self.t += 1
        with backend.using_device(_device_of(param)):
            # Name-mangled, as Chainer's: a subclass's own ``_update`` must not replace this step.
            self.__update(param)

    def __update(self, param: Variable) -> None:
        is_initialized = param.array is not None
        target = param
        if self._use_fp32_update and param.dtype == numpy.float16:
            target = self._fp32_copy(param)
        if is_initialized:
            self._init_states(target)
            loss_scale = param._loss_scale
            if loss_scale is not None and target.grad is not None:
                target.grad /= loss_scale  # in place, as Chainer does
        if is_initialized and is_numpy1_scalar(target.array):
            with self._numpy1_scalars(target):  # NOTE [0-d arrays in updates]
                self._update_with_hooks(target)
        else:
            self._update_with_hooks(target)
        if target is not param:
            if is_initialized:
                param.array = target.array.astype(param.dtype)
            target.grad = None

    def _update_with_hooks(self, param: Variable) -> None:
        hooks = self._hookable
        for hook in list(hooks._pre_update_hooks.values()):
            hook(self, param)
        self.update_core(param)
        for hook in list(hooks._post_update_hooks.values()):
            hook(self, param)

    @contextlib.contextmanager
    def _numpy1_scalars(self, param: Variable) -> Iterator[None]:
        """For a 0-d float16/float32 NumPy parameter (``is_numpy1_scalar``), its array,
        gradient and state arrays are seen as NumPy 1 saw them inside the block, and NumPy
        scalars set as hyperparameters are read as they were set: NOTE [0-d arrays in
        updates] in utils/_numpy_scalars.py. Afterwards the arrays are the same objects as
        before (or plain arrays, where the update replaced one)."""
        array, grad_var, state = param._array, param._grad_var, self._state or {}
        grad = None if grad_var is None else grad_var._array
        states = dict(state)
        param._array = array_view = as_numpy1_scalar(array)
        grad_view = None if grad_var is None else as_numpy1_scalar(grad)
        if grad_var is not None:
            grad_var._array = grad_view
        views = {name: as_numpy1_scalar(value) for name, value in states.items()}
        state.update(views)
        set_scalars = self.hyperparam._set_numpy_scalars()
        try:
            yield
        finally:
            self.hyperparam._restore_entries(set_scalars)
            # Through the setter, which also reaches copies sharing the array and a node
            # that keeps it, in case the update assigned param.array a view.
            current = param._array
            param.array = array if current is array_view else as_plain_array(current)
            if param._grad_var is not None:
                current = param._grad_var._array
                param._grad_var._array = grad if current is grad_view else as_plain_array(current)
            for name, value in state.items():
                state[name] = states[name] if value is views.get(name) else as_plain_array(value)

    def _fp32_copy(self, param: Variable) -> Parameter:
        """The float32 master copy of a float16 parameter, made once, grad refreshed each time."""
        copy_param = self._fp32_param
        array = param.array
        if copy_param is None or (copy_param.array is None and array is not None):
            if array is None:
                copy_param = Parameter(_NeverCalledInitializer(), name=param.name)
            else:
                copy_param = Parameter(array.astype(numpy.float32), name=param.name)
            self._fp32_param = copy_param
        grad = param.grad
        if array is not None:
            copy_param.grad = None if grad is None else grad.astype(numpy.float32)
        return copy_param

    def update_core(self, param: Variable) -> None:
        """Updates ``param``: by default through the CPU or the GPU variant.

        The variant is chosen by where the parameter's data array lives (NumPy: CPU, CuPy:
        GPU), with that device current.

        Args:
            param: The parameter (or its float32 copy) to update.
        """
        device = _device_of(param)
        with backend.using_device(device):
            if device.xp is numpy:
                self.update_core_cpu(param)
            else:
                self.update_core_gpu(param)

    def update_core_cpu(self, param: Variable) -> None:
        """Updates a parameter held in a NumPy array."""
        raise NotImplementedError(
            f"{type(self).__name__} must override update_core or update_core_cpu")

    def update_core_gpu(self, param: Variable) -> None:
        """Updates a parameter held in a CuPy array."""
        raise NotImplementedError(
            f"{type(self).__name__} must override update_core or update_core_gpu")

    def init_state(self, param: Variable) -> None:
        """Fills :attr:`state` with this rule's arrays, at the first update.

        Args:
            param: The parameter, for its shape, dtype and device.
        """

    def serialize(self, serializer: Any) -> None:
        """Saves or loads :attr:`t` and the state arrays (not the parameter itself).

        When loading into a rule without state, the state keys are found by running
        :meth:`init_state` on a copy of the rule; if the file lacks them the state stays None
        (for a disabled rule) so the first update initializes it.

        Args:
            serializer: A serializer or deserializer.

        Raises:
            KeyError: If loading into an enabled rule whose state keys are missing.
        """
        self.t = serializer("t", self.t)
        state = self._state
        if state is not None:
            for key in state:
                state[key] = serializer(key, state[key])
            return
        if not isinstance(serializer, Deserializer):
            return
        # The check pass returns None for every key: ask it what the file holds instead.
        checking = _checked.checks_only(serializer)
        reader: Any = serializer
        loaded: dict[str, Any] = {}
        for key in self._state_keys():
            try:
                if checking:
                    value = None if reader.loaded_header(key) is None else key
                else:
                    value = reader(key, None)
            except KeyError:
                if self.enabled:
                    raise
                value = None
            if value is None:
                return  # leave the state to init_state at the first update
            loaded[key] = value
        if not checking:
            self._state = loaded

    def _state_keys(self) -> list[str]:
        # A shallow copy keeps init_state's side effects (on attributes) off this rule.
        probe = copy.copy(self)
        probe._state = {}
        dummy = numpy.empty(1, dtype=numpy.float32)
        probe.init_state(Variable(dummy, grad=dummy))
        return list(probe._state)

    def _init_states(self, param: Variable) -> None:
        device = _device_of(param)
        state = self._state
        if state is None:
            state = self._state = {}
            with backend.using_device(device):
                self.init_state(param)
        array_types = backend.get_array_types()
        for key, value in state.items():
            if isinstance(value, array_types):
                state[key] = device.send(value)

    def use_fp32_update(self, flag: bool = True) -> None:
        """Sets whether a float16 parameter is updated through a float32 master copy.

        The copy keeps the full-precision value between updates: each update copies the
        gradient into it as float32, updates it, and writes it back as float16.

        Args:
            flag: Whether to update in float32.
        """
        self._use_fp32_update = flag


class _OptimizerHookable(_Hookable):
    """The optimizer's hook tables: hooks are run through ``Optimizer.call_hook``."""

    def __init__(self, optimizer: Optimizer) -> None:
        super().__init__(invalid_timing_fallback=True)
        self.optimizer = optimizer


def _not_set_up(action: str) -> AttributeError:
    # compat: Chainer fails here with an AttributeError on None; keep the type, say the fix.
    return AttributeError(
        f"optimizer target must be a Link set by setup(link) before {action}, got None. "
        f"Call `setup` method first.")


class _LossNotAVariableError(TypeError, AttributeError):
    """``update(lossfun)`` got something without ``backward`` from ``lossfun``.

    Compat: Chainer fails on ``loss.backward`` with an AttributeError; this is that and a
    TypeError, raised before the gradients are cleared.
    """


def _check_grads_fit(target: Link) -> None:
    """Raises before an update if a gradient cannot be applied to its parameter's array (one
    whose array was replaced after the gradient was computed), so no parameter is updated.

    compat: a gradient that broadcasts to the array is applied, as Chainer applies it.
    """
    for param in target.params(False):
        grad_var = param._grad_var
        rule = param.update_rule
        if grad_var is None or rule is None or not rule.enabled:
            continue
        shape, grad_shape = param._array.shape, grad_var._array.shape
        if grad_shape != shape and not broadcasts_to(grad_shape, shape):
            path = next(path for path, other in target.namedparams() if other is param)
            raise ValueError(
                f"gradient of parameter {path} must have the shape of its array {shape}, got "
                f"{grad_shape}: the array was replaced after the gradient was computed; call "
                "cleargrads() (or set the gradient) before update()")


class Optimizer:
    """Base class of optimizers, which update the parameters of a target link.

    Call :meth:`setup` with the link, then :meth:`update` once per step. Hooks added by
    :meth:`add_hook` run before or after each update; a hook whose ``call_for_each_param``
    is true is called as ``hook(param.update_rule, param)`` for every parameter, any other
    as ``hook(optimizer)``.

    Attributes:
        target: The link being optimized (set by :meth:`setup`).
        t: Number of update steps.
        epoch: Current epoch, incremented by :meth:`new_epoch`.
        use_auto_new_epoch: Whether an updater calls :meth:`new_epoch` (it sets this).
    """

    # compat: class-level defaults, because subclasses may skip __init__.
    target: Any = None
    t = 0
    epoch = 0
    use_auto_new_epoch = False
    _hookable: _OptimizerHookable | None = None
    _loss_scale: float | None = None
    _loss_scale_max = 65504.0  # the largest finite float16
    _loss_scaling_is_dynamic = False
    _loss_scaling_isnan = False
    _loss_scaling_isnan_ever = False
    _loss_scaling_multiplier = 2.0

    def setup(self, link: Link) -> Optimizer:
        """Sets the target link and resets ``t``, ``epoch`` and the hooks.

        Args:
            link: The link to optimize.

        Returns:
            This optimizer, so that ``opt = SGD().setup(model)`` works.

        Raises:
            TypeError: If ``link`` is not a Link.
        """
        if not isinstance(link, Link):
            raise TypeError(f"optimization target must be a link, got {type(link).__name__}")
        self.target = link
        self.t = 0
        self.epoch = 0
        self._hookable = _OptimizerHookable(self)
        return self

    def update(self, lossfun: Callable[..., Any] | None = None, *args: Any,
               **kwds: Any) -> None:
        """Updates the parameters of the target.

        Args:
            lossfun: A callable returning the loss Variable; when given, the gradients are
                computed from ``lossfun(*args, **kwds)``, otherwise they must be computed
                already.
            args: Positional arguments of ``lossfun``.
            kwds: Keyword arguments of ``lossfun``.
        """
        raise NotImplementedError(f"{type(self).__name__} must override update")

    def new_epoch(self, auto: bool = False) -> None:
        """Increments :attr:`epoch`.

        Args:
            auto: True when an updater calls this (it must set ``use_auto_new_epoch``).

        Raises:
            RuntimeError: If ``auto`` disagrees with :attr:`use_auto_new_epoch`.
        """
        if auto:
            if not self.use_auto_new_epoch:
                raise RuntimeError(
                    "invalid new_epoch call with auto=True.\n"
                    "Fix the updater to set optimizer.use_auto_new_epoch = True.")
        elif self.use_auto_new_epoch:
            raise RuntimeError(
                "duplicated new_epoch with the updater.\n"
                "Pass auto_new_epoch=False to the updater or stop calling "
                "new_epoch outside the updater.")
        self.epoch += 1

    def _check_set_up(self) -> _OptimizerHookable:
        hookable = self._hookable
        if hookable is None:
            raise RuntimeError("Optimizer is not set up. Call `setup` method.")
        return hookable

    def add_hook(self, hook: Callable[..., Any], name: str | None = None,
                 timing: str = "auto") -> None:
        """Registers a hook run before (``'pre'``) or after (``'post'``) each update.

        Args:
            hook: The callable; see the class docs for how it is called.
            name: Registration name; defaults to ``hook.name``, then ``hook.__name__``.
            timing: ``'pre'``, ``'post'``, or ``'auto'`` to use ``hook.timing`` (``'pre'``
                when missing or invalid, the latter with a warning).

        Raises:
            RuntimeError: If :meth:`setup` was not called.
            TypeError: If ``hook`` is not callable.
            ValueError: If ``timing`` is invalid or no name can be found.
            KeyError: If a hook of that name is already registered.
        """
        self._check_set_up().add_hook(hook, name, timing)

    def remove_hook(self, name: str) -> None:
        """Removes the hook registered as ``name`` (KeyError if there is none)."""
        self._check_set_up().remove_hook(name)

    def call_hooks(self, timing: str = "pre") -> None:
        """Calls the hooks of ``timing`` (``'pre'`` or ``'post'``) in registration order."""
        hooks = self._check_set_up().get_hooks(timing)
        for hook in list(hooks.values()):
            self.call_hook(hook)

    def call_hook(self, hook: Callable[..., Any]) -> None:
        """Calls one hook, per parameter if ``hook.call_for_each_param`` is true."""
        if getattr(hook, "call_for_each_param", False):
            for param in self.target.params():
                rule = param.update_rule
                if rule is not None and is_numpy1_scalar(param.array):
                    with rule._numpy1_scalars(param):  # NOTE [0-d arrays in updates]
                        hook(rule, param)
                else:
                    hook(rule, param)
        else:
            hook(self)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads ``t``, ``epoch`` and every update rule's state (not the parameters).

        Args:
            serializer: A serializer or deserializer.
        """
        if self.target is None:
            raise _not_set_up("serialize")
        self.t = serializer("t", self.t)
        self.epoch = serializer("epoch", self.epoch)
        for name, param in self.target.namedparams():
            rule = getattr(param, "update_rule", None)
            if rule is not None:
                rule.serialize(serializer[name])

    def loss_scaling(self, interval: int = 1000, scale: float | None = None) -> None:
        """Configures loss scaling: static with ``scale``, dynamic without it.

        Dynamic scaling starts at 1, halves on a non-finite gradient (skipping that update)
        and grows by 2 per step until then, by ``2 ** (1 / interval)`` afterwards.

        Args:
            interval: Steps for the dynamic scale to double once overflow has been seen.
            scale: The fixed scale, or None for dynamic scaling.

        Raises:
            ValueError: If ``interval < 1`` (dynamic) or ``scale <= 0`` (static).
        """
        if scale is None:
            if interval < 1:
                raise ValueError("interval must be greater than or equal to 1. "
                                 f"Actual: {interval}")
            self._loss_scaling_is_dynamic = True
            self._loss_scale = 1.0
            self._loss_scaling_multiplier = math.pow(2.0, 1.0 / interval)
            self._loss_scaling_isnan_ever = False
        else:
            if scale <= 0:
                raise ValueError(f"loss_scale must be a positive number. Actual: {scale}")
            self._loss_scale = scale

    def set_loss_scale(self, loss_scale: float) -> None:
        """Sets a static loss scale."""
        self.loss_scaling(scale=loss_scale)

    def check_nan_in_grads(self) -> None:
        """Records (and warns) whether a gradient is non-finite, under dynamic scaling."""
        self._loss_scaling_isnan = False
        if not self._loss_scaling_is_dynamic:
            return
        for name, param in self.target.namedparams():
            grad = param.grad
            if grad is None:
                continue
            xp = backend.get_array_module(grad)
            if not bool(xp.all(xp.isfinite(grad))):
                self._loss_scaling_isnan = True
                self._loss_scaling_isnan_ever = True
                warnings.warn(f"Non finite number found in param.grad of {name} "
                              f"(iteration: {self.t}, loss_scale: {self._loss_scale})",
                              stacklevel=2)

    def is_safe_to_update(self) -> bool:
        """Whether the last gradient check found only finite values."""
        return not self._loss_scaling_isnan

    def update_loss_scale(self) -> None:
        """Adjusts the dynamic loss scale after an update."""
        if not self._loss_scaling_is_dynamic:
            return
        if self._loss_scaling_isnan:
            multiplier = 0.5
        elif self._loss_scaling_isnan_ever:
            multiplier = self._loss_scaling_multiplier
        else:
            multiplier = 2.0
        scale = self._loss_scale or 1.0
        self._loss_scale = max(1.0, min(self._loss_scale_max, scale * multiplier))


class GradientMethod(Optimizer):
    """Base class of optimizers that need one gradient per step, applied by update rules.

    :meth:`setup` gives each parameter the rule from :meth:`create_update_rule`, whose
    hyperparameter falls back to :attr:`hyperparam`; subclasses expose its entries with
    :class:`HyperparameterProxy`.

    Attributes:
        hyperparam: The :class:`Hyperparameter` every rule falls back to.
    """

    # compat: class-level default, because subclasses may skip __init__.
    _use_fp32_update = False

    def __init__(self) -> None:
        super().__init__()
        self.hyperparam = Hyperparameter()
        self._use_fp32_update = False

    def setup(self, link: Link) -> GradientMethod:
        """Sets the target and gives each of its parameters a new update rule.

        The rules are made first: if ``create_update_rule`` fails, neither the optimizer nor
        the link changes.
        """
        if not isinstance(link, Link):
            return super().setup(link)  # which raises TypeError
        rules = [(param, self.create_update_rule()) for param in link.params()]
        super().setup(link)
        for param, rule in rules:
            param.update_rule = rule
            if self._use_fp32_update:
                rule.use_fp32_update()
        return self

    def reallocate_cleared_grads(self) -> None:
        """Gives every initialized parameter whose gradient is None a zero gradient."""
        for _, param in self.target.namedparams(False):
            if param.grad is None:
                array = param.array
                with backend.using_device(_device_of(param)):
                    param.grad = backend.get_array_module(array).zeros_like(array)

    def call_hook(self, hook: Callable[..., Any]) -> None:
        """Calls one hook, then reallocates gradients it cleared."""
        super().call_hook(hook)
        self.reallocate_cleared_grads()

    def update(self, lossfun: Callable[..., Any] | None = None, *args: Any,
               **kwds: Any) -> None:
        """Computes gradients if ``lossfun`` is given, then updates every parameter.

        With ``lossfun`` the loss is computed first, the target's gradients are cleared, and
        ``loss.backward(loss_scale=...)`` fills them. Then: zero gradients for parameters
        without one, pre hooks, ``t += 1``, each parameter's rule (skipped when dynamic loss
        scaling found a non-finite gradient), post hooks.

        Args:
            lossfun: A callable returning the loss Variable, or None to use the existing
                gradients.
            args: Positional arguments of ``lossfun``.
            kwds: Keyword arguments of ``lossfun``.

        Raises:
            AttributeError: If :meth:`setup` was not called.
            TypeError: If ``lossfun`` returns something else than a Variable (also an
                AttributeError, what Chainer raises).
            ValueError: If, without ``lossfun``, a gradient does not have its parameter's
                shape; nothing is updated then.
        """
        if self.target is None:
            raise _not_set_up("update")
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if not hasattr(loss, "backward"):
                raise _LossNotAVariableError(
                    f"lossfun must return the loss as a Variable, got {type(loss).__name__}: "
                    "return what the chainer.functions that compute it return (for example "
                    "F.mean_squared_error(y, t)), not its .array or a number")
            if getattr(self, "_use_cleargrads", True):
                # A backward that fails (say, from a loss of many elements without a grad)
                # gets the gradients it cleared back: nothing half changed.
                params = list(self.target.params())
                before = [param._gradient_state() for param in params]
                self.target.cleargrads()
                try:
                    loss.backward(loss_scale=self._loss_scale)
                except BaseException:
                    for param, state in zip(params, before, strict=True):
                        param._restore_gradient_state(state)
                    raise
            else:
                self.target.zerograds()  # deprecated, and warns so, as in Chainer
                loss.backward(loss_scale=self._loss_scale)
            del loss
        else:
            _check_grads_fit(self.target)
        self.reallocate_cleared_grads()
        self.check_nan_in_grads()
        self.call_hooks("pre")
        self.t += 1
        if self.is_safe_to_update():
            for param in self.target.params():
                param.update()
        self.reallocate_cleared_grads()
        self.call_hooks("post")
        self.update_loss_scale()

    def use_cleargrads(self, use: bool = True) -> None:
        """Chooses ``cleargrads`` (default) or ``zerograds`` before backward in :meth:`update`.

        Deprecated in Chainer v2: :meth:`update` already uses ``cleargrads``.
        """
        warnings.warn("GradientMethod.use_cleargrads is deprecated.", DeprecationWarning,
                      stacklevel=1)
        self._use_cleargrads = use

    def create_update_rule(self) -> UpdateRule:
        """Returns a new update rule for one parameter; subclasses must override this."""
        raise NotImplementedError(f"{type(self).__name__} must override create_update_rule")

    def use_fp32_update(self, flag: bool = True) -> None:
        """Sets whether float16 parameters are updated through float32 copies.

        Compat: Chainer enables it on already set-up rules even for ``flag=False``; here
        the rules get ``flag``.
        """
        self._use_fp32_update = flag
        target = self.target
        if target is not None:
            for param in target.params():
                if param.update_rule is not None:
                    param.update_rule.use_fp32_update(flag)


def _warn_moved(name: str) -> None:
    warnings.warn(f"chainer.optimizer.{name} is deprecated from v4. "
                  f"Use chainer.optimizer_hooks.{name} instead.", DeprecationWarning, stacklevel=1)


# compat: Chainer keeps these v3 names in chainer.optimizer, warning on construction.
class WeightDecay(optimizer_hooks.WeightDecay):
    """Deprecated alias of :class:`chainer.optimizer_hooks.WeightDecay`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _warn_moved("WeightDecay")
        super().__init__(*args, **kwargs)


class Lasso(optimizer_hooks.Lasso):
    """Deprecated alias of :class:`chainer.optimizer_hooks.Lasso`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _warn_moved("Lasso")
        super().__init__(*args, **kwargs)


class GradientClipping(optimizer_hooks.GradientClipping):
    """Deprecated alias of :class:`chainer.optimizer_hooks.GradientClipping`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _warn_moved("GradientClipping")
        super().__init__(*args, **kwargs)


class GradientHardClipping(optimizer_hooks.GradientHardClipping):
    """Deprecated alias of :class:`chainer.optimizer_hooks.GradientHardClipping`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _warn_moved("GradientHardClipping")
        super().__init__(*args, **kwargs)


class GradientNoise(optimizer_hooks.GradientNoise):
    """Deprecated alias of :class:`chainer.optimizer_hooks.GradientNoise`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _warn_moved("GradientNoise")
        super().__init__(*args, **kwargs)
