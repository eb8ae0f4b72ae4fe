"""``BackendConfig`` and ``inject_backend_tests``: run the same test methods on several backends
(NumPy, CuPy with or without cuDNN), each variant its own named class with the backend's marks.

Layer 8: imports `configuration` (layer 0), `testing.attr` and `testing.parameterized`; the device
layer (`backend.get_device`) and cupy are imported when a config's device is first used.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
from collections.abc import Callable, Iterator
from types import ModuleType, TracebackType
from typing import Any, ClassVar, Self

import numpy

from chainer_compat import configuration
from chainer_compat.testing import attr
from chainer_compat.testing.parameterized import _CaseSpec, _make_class_decorator


class BackendConfig:
    """One backend to run a test on, as given by a dict of parameters.

    Parameters not given take their defaults. ``cuda_device`` becomes 0 when ``use_cuda`` is True.
    Inside ``with config:`` the cuDNN, iDeep and autotune settings are applied with
    :func:`~chainer_compat.configuration.using_config`, and a CUDA config's device is made
    current with :func:`~chainer_compat.backend.using_device`.

    Args:
        params: A dict with any of ``use_chainerx`` (False), ``chainerx_device`` (None),
            ``use_cuda`` (False), ``cuda_device`` (None), ``use_cudnn`` ('never'),
            ``cudnn_deterministic`` (False), ``autotune`` (False),
            ``cudnn_fast_batch_normalization`` (False), ``use_ideep`` ('never') and
            ``use_cudnn_tensor_core`` ('auto').

    Raises:
        TypeError: If ``params`` is not a dict, or ``use_chainerx`` is set without a string
            ``chainerx_device``.
        ValueError: If ``params`` has an unknown key.

    Compat: ChainerX and iDeep configs can be built (so legacy parameter lists still decorate).
    ChainerX tests are always skipped, and a ChainerX config's ``xp`` and ``device`` raise
    RuntimeError. An iDeep config behaves as the CPU one and its tests run, as they do under
    Chainer without iDeep.
    ``use_cudnn_tensor_core`` is an extension; it shows in names and ``repr`` only when it is not
    'auto', so names of configs Chainer can express stay Chainer's.
    """

    # Order matters: it is the order of the parts of generated class names.
    _props: ClassVar[list[tuple[str, Any]]] = [
        ("use_chainerx", False),
        ("chainerx_device", None),
        ("use_cuda", False),
        ("cuda_device", None),
        ("use_cudnn", "never"),
        ("cudnn_deterministic", False),
        ("autotune", False),
        ("cudnn_fast_batch_normalization", False),
        ("use_ideep", "never"),
    ]
    _extension_props: ClassVar[list[tuple[str, Any]]] = [
        ("use_cudnn_tensor_core", "auto"),
    ]

    _device: Any = None

    use_chainerx: bool
    chainerx_device: str | None
    use_cuda: bool
    cuda_device: int | None
    use_cudnn: str
    cudnn_deterministic: bool
    autotune: bool
    cudnn_fast_batch_normalization: bool
    use_ideep: str
    use_cudnn_tensor_core: str

    def __init__(self, params: dict[str, Any]) -> None:
        if not isinstance(params, dict):
            raise TypeError(f"params must be a dict, got {type(params).__name__}")
        self._entered: list[contextlib.ExitStack] = []
        known = dict(self._props + self._extension_props)
        for key, default in known.items():
            setattr(self, key, default)
        for key, value in params.items():
            if key not in known:
                raise ValueError(
                    f"BackendConfig parameter must be one of {sorted(known)}, got {key!r}")
            setattr(self, key, value)
        if self.use_chainerx and not isinstance(self.chainerx_device, str):
            raise TypeError(
                "chainerx_device must be a ChainerX device string such as 'native:0' when "
                f"use_chainerx is True, got {self.chainerx_device!r}")
        if self.use_cuda and self.cuda_device is None:
            self.cuda_device = 0

    def _shown_props(self) -> list[tuple[str, Any]]:
        shown = [(key, getattr(self, key)) for key, _ in self._props]
        shown += [(key, getattr(self, key)) for key, default in self._extension_props
                  if getattr(self, key) != default]
        return shown

    @property
    def xp(self) -> ModuleType:
        """The array module of this backend: ``numpy`` or ``cupy``."""
        self._refuse_chainerx()
        if self.use_cuda:
            return importlib.import_module("cupy")
        return numpy

    @property
    def device(self) -> Any:
        """The device of this backend (``'@numpy'`` or ``'@cupy:N'``), created on first use.

        Compat: an iDeep config uses the NumPy device.
        """
        self._refuse_chainerx()
        if self._device is None:
            # Imported here: the device layer is only needed once a test actually runs.
            from chainer_compat import backend
            spec = f"@cupy:{self.cuda_device}" if self.use_cuda else "@numpy"
            self._device = backend.get_device(spec)
        return self._device

    def _refuse_chainerx(self) -> None:
        if self.use_chainerx:
            raise RuntimeError(
                "BackendConfig must not use ChainerX, got use_chainerx=True: ChainerX is not "
                "supported by chainer_compat (mark such tests with attr.chainerx to skip them)")

    def __enter__(self) -> Self:
        stack = contextlib.ExitStack()
        try:
            for key in ("use_cudnn", "cudnn_deterministic", "autotune", "use_ideep"):
                stack.enter_context(configuration.using_config(key, getattr(self, key)))
            if self.use_cudnn_tensor_core != "auto":
                stack.enter_context(configuration.using_config(
                    "use_cudnn_tensor_core", self.use_cudnn_tensor_core))
            stack.enter_context(self._using_device())
        except BaseException:
            stack.close()
            raise
        self._entered.append(stack)
        return self

    def _using_device(self) -> contextlib.AbstractContextManager[Any]:
        if not self.use_cuda:
            # The CPU has no current-device state; skip creating the device object.
            return contextlib.nullcontext()
        from chainer_compat import backend
        return backend.using_device(self.device)

    def __exit__(self, typ: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._entered.pop().__exit__(typ, value, traceback)

    def __repr__(self) -> str:
        shown = " ".join(f"{key}={value!r}" for key, value in self._shown_props())
        return f"<BackendConfig {shown}>"

    def get_func_str(self) -> str:
        """Returns the part of generated test names that identifies this config.

        For example ``'use_chainerx_false__chainerx_device_None__use_cuda_true__cuda_device_0__'
        'use_cudnn_never__...'``.
        """
        parts = []
        for key, value in self._shown_props():
            text = "true" if value is True else "false" if value is False else str(value)
            parts.append(f"{key}_{text}")
        return "__".join(parts)

    def get_pytest_marks(self) -> list[Callable[[Any], Any]]:
        """Returns the decorators that mark (and, without the hardware, skip) this config's tests.

        A CUDA config gets ``attr.gpu`` (the ``gpu`` mark), ``attr.cudnn`` when cuDNN may be used,
        and ``attr.multi_gpu(n)`` for a device index ``n - 1`` above 0; a ChainerX config
        ``attr.chainerx`` (plus the GPU marks for a ``cuda:N`` device); an iDeep config
        ``attr.ideep``.
        """
        marks: list[Callable[[Any], Any]] = []
        if self.use_chainerx:
            marks.append(attr.chainerx)
            assert isinstance(self.chainerx_device, str)  # checked in __init__
            backend_name, _, index = self.chainerx_device.partition(":")
            if backend_name == "cuda":
                marks.append(attr.gpu)
                if index and int(index) >= 1:
                    marks.append(attr.multi_gpu(int(index) + 1))
        elif self.use_cuda:
            marks.append(attr.gpu)
            if self.use_cudnn != "never":
                marks.append(attr.cudnn)
            assert self.cuda_device is not None  # filled in by __init__
            if self.cuda_device >= 1:
                marks.append(attr.multi_gpu(self.cuda_device + 1))
        elif self.use_ideep != "never":
            marks.append(attr.ideep)
        return marks

    def get_array(self, np_array: Any) -> Any:
        """Returns ``np_array`` sent to this config's device."""
        return self.device.send(np_array)


def _without_backend_config_parameter(method: Callable[..., Any]) -> inspect.Signature | None:
    # pytest reads a test's signature to choose fixtures; `backend_config` is supplied by us.
    try:
        signature = inspect.signature(method)
    except (TypeError, ValueError):
        return None
    parameters = list(signature.parameters.values())
    if len(parameters) < 2 or parameters[1].kind not in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
        return None
    return signature.replace(parameters=[parameters[0], *parameters[2:]])


def _backend_cases(
        base: type, method_names: list[str] | None, params: list[dict[str, Any]],
) -> Iterator[_CaseSpec]:
    if method_names is not None:
        def keep_other_methods(method: Callable[..., Any]) -> Callable[..., Any] | None:
            return None if method.__name__ in method_names else method

        yield base.__name__, {}, keep_other_methods

    seen: set[str] = set()
    for param in params:
        config = BackendConfig(param)
        name = f"{base.__name__}_{config.get_func_str()}"
        if name in seen:
            # An identical config would generate an identical class; run it once.
            continue
        seen.add(name)
        marks = config.get_pytest_marks()

        def inject(method: Callable[..., Any], config: BackendConfig = config,
                   marks: list[Callable[[Any], Any]] = marks) -> Callable[..., Any] | None:
            if method_names is not None and method.__name__ not in method_names:
                return None

            @functools.wraps(method)
            def test(self: Any, *args: Any, **kwargs: Any) -> Any:
                return method(self, config, *args, **kwargs)

            signature = _without_backend_config_parameter(method)
            if signature is not None:
                test.__signature__ = signature  # type: ignore[attr-defined]
            decorated: Any = test
            for mark in marks:
                decorated = mark(decorated)
            return decorated

        yield name, {}, inject


def inject_backend_tests(method_names: list[str] | None,
                         params: list[dict[str, Any]]) -> Callable[[Any], Any]:
    """Class decorator that runs test methods once per backend config.

    For each distinct config it generates a class ``<Class>_<config.get_func_str()>`` whose listed
    test methods are called with the :class:`BackendConfig` as their first argument after
    ``self`` and carry the config's marks, so ``-m 'not gpu'`` deselects the CUDA variants and they
    skip without a device. When ``method_names`` is a list, the other test methods stay, unchanged,
    in a class that keeps the decorated class's name. Stacks with
    :func:`~chainer_compat.testing.parameterize` in either order.

    Args:
        method_names: Names of the test methods to inject into, or None for every ``test_*``
            method.
        params: One dict of :class:`BackendConfig` parameters per backend.

    Returns:
        The class decorator.

    Raises:
        TypeError: If ``method_names`` is neither None nor a list, or ``params`` is not a list of
            dicts.

    Compat: Chainer binds the class that keeps the other methods and then lets the ``class``
    statement overwrite it, so those tests never ran unless another decorator followed; here they
    run. A config repeated in ``params`` generates its class once.
    """
    if not (method_names is None or isinstance(method_names, list)):
        raise TypeError(
            f"method_names must be None or a list of test method names, got "
            f"{type(method_names).__name__}")
    if not isinstance(params, list) or not all(isinstance(item, dict) for item in params):
        raise TypeError(
            f"params must be a list of dicts of BackendConfig parameters, got {params!r}")
    for param in params:
        BackendConfig(param)  # report a bad config where the decorator is written

    return _make_class_decorator(
        "inject_backend_tests", lambda base: _backend_cases(base, method_names, params))
