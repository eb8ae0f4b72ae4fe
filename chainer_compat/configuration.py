"""Global and thread-local configuration: one table of keys, ``using_config`` and the mode helpers.

Layer 0: imports nothing from chainer_compat.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import warnings
import weakref
from collections.abc import Callable
from typing import Any, NamedTuple, TextIO

import numpy


class _Key(NamedTuple):
    name: str
    default: Any
    env: str | None
    parse: Callable[[str], Any] | None
    meaning: str


_MISSING = object()


def _flag(text: str) -> bool:
    return bool(int(text))


def _flag_or_never(text: str) -> bool | str:
    """A flag that may also be 'never' (as ``use_cudnn`` may)."""
    return "never" if text.strip().lower() == "never" else _flag(text)


class _Mixed16:
    """The ``mixed16`` default dtype: float16 arrays, with float32 where a link asks for it."""

    # numpy.dtype(mixed16) reads this attribute, so every dtype conversion sees float16.
    dtype = numpy.dtype(numpy.float16)

    def __repr__(self) -> str:
        return "dtype('mixed16')"


mixed16 = _Mixed16()


def _dtype(text: str) -> Any:
    return mixed16 if text == "mixed16" else numpy.dtype(text)


# Attributes of the configuration objects that are not keys (keys may start with "_" too).
_GLOBAL_INTERNALS = frozenset({"_name", "_mirrors", "_flag_sets"})
_LOCAL_INTERNALS = frozenset({"_global", "_fast"})


# The one table of configuration keys: name, default, environment variable, parser, meaning.
KEYS: tuple[_Key, ...] = (
    # compat: private in Chainer, but a key of its global config, which config.show() lists.
    _Key("_will_recompute", False, None, None,
         "True while F.forget runs a forward that its backward will run again"),
    _Key("autotune", False, None, None, "let cuDNN pick convolution algorithms by benchmarking"),
    _Key("compute_mode", None, None, None, "ChainerX compute mode (unused: ChainerX is out)"),
    _Key("cudnn_deterministic", False, "CHAINER_CUDNN_DETERMINISTIC", _flag,
         "ask cuDNN for deterministic algorithms"),
    _Key("cudnn_fast_batch_normalization", False, "CHAINER_CUDNN_FAST_BATCH_NORMALIZATION",
         _flag, "use the fast (less accurate) cuDNN batch normalization"),
    _Key("debug", False, "CHAINER_DEBUG", _flag,
         "check outputs and gradients for NaN and record where each node was created"),
    _Key("dtype", numpy.dtype(numpy.float32), "CHAINER_DTYPE", _dtype,
         "default floating-point dtype of initializers"),
    _Key("enable_backprop", True, None, None, "record the computational graph"),
    _Key("in_recomputing", False, None, None, "True while a forward is being recomputed"),
    _Key("keep_graph_on_report", False, "CHAINER_KEEP_GRAPH_ON_REPORT", _flag,
         "keep the graph of reported Variables"),
    _Key("lazy_grad_sum", False, "CHAINER_LAZY_GRAD_SUM", _flag,
         "sum gradients of a variable used several times only when they are all known"),
    _Key("schedule_func", None, None, None, "static-graph scheduler (unused)"),
    _Key("train", True, None, None, "training mode (dropout and friends look at it)"),
    _Key("type_check", True, "CHAINER_TYPE_CHECK", _flag,
         "run check_type_forward before each forward"),
    _Key("use_cudnn", "auto", "CHAINER_USE_CUDNN", str, "'always', 'auto' or 'never'"),
    _Key("use_cudnn_tensor_core", "auto", None, None, "'always', 'auto' or 'never'"),
    _Key("use_cuda_memory_pool", True, "CHAINER_USE_CUDA_MEMORY_POOL", _flag,
         "allocate CuPy memory from its pool"),
    _Key("use_ideep", "never", "CHAINER_USE_IDEEP", str, "iDeep is out: keep 'never'"),
    _Key("use_static_graph", True, None, None, "static-graph optimisation (unused)"),
    _Key("warn_nondeterministic", False, "CHAINER_WARN_NONDETERMINISTIC", _flag,
         "warn when a non-deterministic algorithm runs"),
    _Key("check_saved_arrays", False, "CHAINER_COMPAT_CHECK_SAVED_ARRAYS", _flag_or_never,
         "True: fingerprint large saved arrays too (small ones always are); 'never': read "
         "saved arrays changed in place as they are, as Chainer does"),
)


def _print_attrs(values: dict[str, Any], file: TextIO) -> None:
    width = max((len(key) for key in values), default=0)
    for key in sorted(values):
        file.write(f"{key:<{width}} {values[key]}\n")


class GlobalConfig:
    """Process-wide configuration that every thread falls back to.

    Args:
        name: Name shown by ``repr``.
    """

    _name: str
    _mirrors: list[type]
    _flag_sets: weakref.WeakSet[Any]

    def __init__(self, name: str = "global") -> None:
        self.__dict__["_name"] = name
        self.__dict__["_mirrors"] = []
        self.__dict__["_flag_sets"] = weakref.WeakSet()

    # See NOTE [config mirror] and NOTE [fast flags].
    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__[name] = value
        for mirror in self._mirrors:
            setattr(mirror, name, value)
        if name in FAST_KEYS:
            for flags in list(self._flag_sets):
                flags.refresh(name)

    def __delattr__(self, name: str) -> None:
        if name not in self.__dict__:
            raise AttributeError(f"config has no key {name!r} to delete")
        del self.__dict__[name]
        for mirror in self._mirrors:
            delattr(mirror, name)
        if name in FAST_KEYS:
            for flags in list(self._flag_sets):
                flags.refresh(name)

    def __repr__(self) -> str:
        return f"<GlobalConfig {self._name}>"

    def show(self, file: TextIO | None = None) -> None:
        """Prints every key and its value, sorted by key."""
        values = {k: v for k, v in vars(self).items() if k not in _GLOBAL_INTERNALS}
        _print_attrs(values, sys.stdout if file is None else file)


# NOTE [fast flags]
# FunctionNode.apply needs a handful of keys on every call, and each attribute read of a
# threading.local costs a per-thread dictionary lookup. Each thread's LocalConfig therefore owns
# one plain ``_FastFlags`` object (``config._fast``) holding the current values of FAST_KEYS for
# that thread, plus the thread's registry of global function hooks. The hot path reads the
# thread-local once and the flags as plain slots. LocalConfig's __setattr__/__delattr__ refresh
# the thread's flags; GlobalConfig's refresh every thread's flags (a thread that set the key
# itself keeps its own value). Hot paths reach the flags as ``thread_flags.flags``, a plain
# threading.local that skips LocalConfig's __getattr__ routing: a third of the cost.
FAST_KEYS = frozenset({"enable_backprop", "debug", "type_check", "lazy_grad_sum"})


class _FastFlags:
    __slots__ = ("enable_backprop", "debug", "type_check", "lazy_grad_sum", "hooks",
                 "_overridden", "_global", "__weakref__")
    enable_backprop: bool
    debug: bool
    type_check: bool
    lazy_grad_sum: bool
    hooks: dict[str, Any]

    def __init__(self, global_config: GlobalConfig) -> None:
        self._global = global_config
        self._overridden: set[str] = set()  # FAST_KEYS this thread set itself
        self.hooks: dict[str, Any] = {}
        for name in FAST_KEYS:
            self.refresh(name)

    def refresh(self, name: str) -> None:
        """Takes the global value of ``name`` unless this thread set its own."""
        if name not in self._overridden:
            setattr(self, name, getattr(self._global, name, None))

    def set_local(self, name: str, value: Any) -> None:
        self._overridden.add(name)
        setattr(self, name, value)

    def clear_local(self, name: str) -> None:
        self._overridden.discard(name)
        self.refresh(name)


class LocalConfig(threading.local):
    """Thread-local configuration that falls back to a :class:`GlobalConfig`.

    An attribute set on it is visible only to the current thread; one that the thread never set
    is read from the global configuration.

    Args:
        global_config: The configuration read for keys this thread did not set.
    """

    # Being a threading.local subclass makes a thread's own keys plain attribute reads, the
    # cheapest lookup the hot path can do; only fallbacks pay for __getattr__.
    def __init__(self, global_config: GlobalConfig) -> None:
        local = self.__dict__
        local["_global"] = global_config
        flags = _FastFlags(global_config)
        local["_fast"] = flags
        global_config._flag_sets.add(flags)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_global"], name)

    def __setattr__(self, name: str, value: Any) -> None:
        _set_local_key(self, name, value)

    def __delattr__(self, name: str) -> None:
        _delete_local_key(self, name)

    @property
    def _local(self) -> _ThreadKeys:
        # compat: Chainer keeps a thread's keys in ``config._local``; see _ThreadKeys.
        return _ThreadKeys(self)

    def show(self, file: TextIO | None = None) -> None:
        """Prints every key with the value this thread sees, sorted by key."""
        values = {k: v for k, v in vars(self._global).items() if k not in _GLOBAL_INTERNALS}
        values.update((k, v) for k, v in vars(self).items() if k not in _LOCAL_INTERNALS)
        _print_attrs(values, sys.stdout if file is None else file)


def _set_local_key(config: LocalConfig, name: str, value: Any) -> None:
    local = config.__dict__
    local[name] = value
    if name in FAST_KEYS:
        local["_fast"].set_local(name, value)


def _delete_local_key(config: LocalConfig, name: str) -> None:
    local = config.__dict__
    if name not in local:
        # compat: AttributeError, as deleting a missing attribute raises in Chainer.
        raise AttributeError(f"this thread's config has no local key {name!r} to delete")
    del local[name]
    if name in FAST_KEYS:
        local["_fast"].clear_local(name)


class _ThreadKeys:
    """``config._local`` as Chainer lays it out: the keys the current thread set.

    chainer_compat keeps them in the config itself (a threading.local); this view serves code
    written against Chainer's layout. nnoir-chainer, for one, replaces
    ``LocalConfig.__getattr__``/``__setattr__`` with functions that read and set
    ``self._local`` and read ``self._global``; through this view they reach the thread's keys
    without calling the replaced methods again.

    Args:
        config: The thread-local configuration viewed.
    """

    __slots__ = ("_config",)

    def __init__(self, config: LocalConfig) -> None:
        object.__setattr__(self, "_config", config)

    def __getattr__(self, name: str) -> Any:
        local = self._config.__dict__
        if name in _LOCAL_INTERNALS or name not in local:
            raise AttributeError(f"this thread set no config key {name!r}")
        return local[name]

    def __setattr__(self, name: str, value: Any) -> None:
        _set_local_key(self._config, name, value)

    def __delattr__(self, name: str) -> None:
        _delete_local_key(self._config, name)


def _load_global_config() -> GlobalConfig:
    result = GlobalConfig()
    for key in KEYS:
        value = key.default
        if key.env is not None and key.parse is not None and key.env in os.environ:
            value = key.parse(os.environ[key.env])
        setattr(result, key.name, value)
    return result


# NOTE [config mirror]
# ``config.<key>`` is read on every function application. A key the thread did not set would go
# through LocalConfig.__getattr__ (a Python call); instead the module-level ``config`` is an
# instance of a LocalConfig subclass whose class attributes mirror its GlobalConfig, kept in step
# by GlobalConfig.__setattr__/__delattr__. Attribute lookup then finds the thread's own value in
# the instance dict or the global one on the class, both without running Python code.
def _mirrored_local_config(global_config: GlobalConfig) -> LocalConfig:
    mirror = type("LocalConfig", (LocalConfig,), {
        k: v for k, v in vars(global_config).items() if not k.startswith("_")})
    global_config._mirrors.append(mirror)
    return mirror(global_config)


global_config = _load_global_config()
config = _mirrored_local_config(global_config)


class _ThreadFlags(threading.local):
    """This thread's ``config._fast``, as a plain attribute: NOTE [fast flags].

    LocalConfig defines ``__getattr__``, so CPython routes every read of ``config.<key>``
    through a slower lookup (about 85 ns, against 30 ns here). threading.local calls
    ``__init__`` once in each thread, on its first read.
    """

    def __init__(self, local_config: LocalConfig) -> None:
        self.flags: _FastFlags = local_config._fast


thread_flags = _ThreadFlags(config)

_KEY_NAMES = frozenset(key.name for key in KEYS)


def _warn_if_misspelt(name: str) -> None:
    import difflib  # only for names that are not keys

    close = difflib.get_close_matches(name, sorted(_KEY_NAMES), n=1, cutoff=0.8)
    if close:
        # stacklevel 3: this helper, using_config, the caller.
        warnings.warn(
            f"{name!r} is not a configuration key: did you mean {close[0]!r}? (using_config "
            "sets it anyway, for keys of your own)", UserWarning, stacklevel=3)


class _ConfigContext(contextlib.ContextDecorator):
    """What :func:`using_config` returns: sets a key on enter and restores it on exit.

    compat: reusable, as Chainer's is: ``cm = no_backprop_mode()`` may be entered again after
    it exited (and nested in itself). Unlike Chainer's, it also works as a decorator.
    """

    def __init__(self, config: LocalConfig, name: str, value: Any) -> None:
        self._config = config
        self._name = name
        self._value = value
        self._previous: list[Any] = []  # one entry per enter not yet exited

    def __enter__(self) -> None:
        config = self._config
        self._previous.append(config.__dict__.get(self._name, _MISSING))
        setattr(config, self._name, self._value)

    def __exit__(self, *exc_info: Any) -> None:
        old = self._previous.pop()
        if old is _MISSING:
            delattr(self._config, self._name)
        else:
            setattr(self._config, self._name, old)


def using_config(name: str, value: Any,
                 config: LocalConfig = config) -> contextlib.AbstractContextManager[None]:
    """Sets ``config.<name>`` to ``value`` for the current thread inside a ``with`` block.

    The previous value (or its absence) comes back on exit, exceptions included. The returned
    object may be entered again after it exited, as in Chainer.

    Args:
        name: Configuration key.
        value: Value to use inside the block.
        config: The configuration object to change; the default is the thread-local one.

    Raises:
        TypeError: If ``name`` is not a string.

    Warns:
        UserWarning: If ``name`` is no known key but close to one (a likely typo). The key is
            set anyway: as in Chainer, users may keep keys of their own.
    """
    if not isinstance(name, str):
        raise TypeError(
            f"using_config name must be a str naming a configuration key, got {type(name).__name__}"
            " (call it as using_config('train', False))")
    if name not in _KEY_NAMES and not hasattr(config, name):
        _warn_if_misspelt(name)
    return _ConfigContext(config, name, value)


def no_backprop_mode() -> contextlib.AbstractContextManager[None]:
    """Makes functions applied inside the block record no graph (``enable_backprop=False``)."""
    return using_config("enable_backprop", False)


def force_backprop_mode() -> contextlib.AbstractContextManager[None]:
    """Makes functions applied inside the block record the graph (``enable_backprop=True``)."""
    return using_config("enable_backprop", True)


def get_dtype(dtype: Any = None, map_mixed16: Any = None) -> numpy.dtype[Any]:
    """Returns ``numpy.dtype(dtype)``, or the default ``config.dtype`` when ``dtype`` is None.

    Args:
        dtype: A dtype specifier, or None for the configured default.
        map_mixed16: What the default means when it is ``mixed16`` (float16 when None).
    """
    if dtype is None:
        dtype = config.dtype
    if isinstance(dtype, str) and dtype == "mixed16":
        dtype = mixed16  # the name, as CHAINER_DTYPE spells it
    if dtype is mixed16 and map_mixed16 is not None:
        dtype = map_mixed16
    return numpy.dtype(dtype)


def is_debug() -> bool:
    """Returns whether debug mode is on for the current thread."""
    return bool(config.debug)


def set_debug(debug: bool) -> None:
    """Turns debug mode on or off for the current thread."""
    config.debug = debug


class DebugMode:
    """Context manager that sets debug mode inside its block and restores it afterwards.

    Args:
        debug: Debug mode inside the block.
    """

    def __init__(self, debug: bool) -> None:
        self._using = using_config("debug", debug)

    def __enter__(self) -> None:
        self._using.__enter__()

    def __exit__(self, *exc_info: Any) -> None:
        self._using.__exit__(*exc_info)
