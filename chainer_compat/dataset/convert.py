"""Converters: ``concat_examples`` turns a list of examples into batched arrays (optionally
padded), ``to_device`` moves arrays to a device, and ``Converter`` / ``converter()`` mark
functions that take a :class:`~chainer.backend.Device`.

Layer 8: imports backend.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from chainer_compat import backend

__all__ = [
    "ConcatWithAsyncTransfer",
    "Converter",
    "concat_examples",
    "concat_examples_func",
    "converter",
    "to_device",
]


class Converter:
    """Base class of converters: callables that turn a minibatch into arrays on a device.

    Subclasses override ``__call__(batch, device)``, where ``device`` is a
    :class:`~chainer.backend.Device` or None. Updaters and evaluators call a ``Converter``
    with a Device; a plain function is called with Chainer's legacy integer device ID instead.
    """

    def __call__(self, batch: Any, device: Any) -> Any:
        """Converts ``batch`` and sends the result to ``device``.

        Args:
            batch: A minibatch, as an iterator returns it.
            device: The :class:`~chainer.backend.Device` to send the result to, or None to
                leave arrays where they are.

        Returns:
            The converted batch.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement __call__(batch, device) to convert batches")


class _DeviceNormalizingConverter(Converter):
    """Wraps a converter function; any device argument reaches it as a Device (or None)."""

    def __init__(self, function: Callable[..., Any]) -> None:
        if not callable(function):
            raise TypeError(
                f"converter must wrap a callable, got {type(function).__name__}. "
                f"Decorate a function with @chainer.dataset.converter().")
        self.base_callable = function
        functools.update_wrapper(self, function)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # The device is the second positional argument or the 'device' keyword.
        if len(args) >= 2:
            args = (args[0], _get_device(args[1]), *args[2:])
        elif "device" in kwargs:
            kwargs["device"] = _get_device(kwargs["device"])
        return self.base_callable(*args, **kwargs)


def converter() -> Callable[[Callable[..., Any]], Converter]:
    """Returns a decorator that turns a converter function into a :class:`Converter`.

    The function takes ``(batch, device)`` and returns the converted batch. The decorated
    converter accepts any device specifier (``-1``, ``0``, ``'@numpy'``, a Device, or None) and
    passes it on as a :class:`~chainer.backend.Device`, or None.

    Example:
        >>> @converter()
        ... def to_arrays(batch, device):
        ...     return device.send(numpy.asarray(batch))

    Returns:
        The decorator; apply it with parentheses: ``@chainer.dataset.converter()``.
    """
    def wrap(function: Callable[..., Any]) -> Converter:
        return _DeviceNormalizingConverter(function)

    return wrap


def _get_device(device_spec: Any) -> backend.Device | None:
    """Returns the Device ``device_spec`` names, or None for None."""
    if device_spec is None:
        return None
    return backend.get_device(device_spec)


def _call_converter(converter: Callable[..., Any], batch: Any,
                    device: backend.Device | None) -> Any:
    """Calls ``converter`` the way updaters do: a :class:`Converter` gets the Device, a plain
    function gets Chainer's legacy integer ID (-1 for the CPU, N for GPU N) or None."""
    if isinstance(converter, Converter):
        return converter(batch, device)
    if device is None:
        return converter(batch, None)
    if isinstance(device, backend.CpuDevice):
        return converter(batch, -1)
    if isinstance(device, backend.GpuDevice):
        return converter(batch, int(device.device.id))
    raise RuntimeError(
        f"device of a plain-function converter must be the CPU or a CUDA device, got "
        f"{device!r}. Decorate the converter with @chainer.dataset.converter().")


def to_device(device: Any, x: Any) -> Any:
    """Sends an array (or a list, tuple or dict of arrays) to a device.

    Args:
        device: None to leave ``x`` where it is; a negative int for the CPU; a non-negative
            int for that GPU; or any specifier :func:`chainer.get_device` accepts.
        x: The array, or a container of arrays.

    Returns:
        ``x`` on the device; an array already there is returned as it is.
    """
    target = _get_device(device)
    if target is None:
        return x
    return target.send(x)


def concat_examples_func(batch: Sequence[Any], device: backend.Device | None = None,
                         padding: Any = None) -> Any:
    """Concatenates a list of examples into batched arrays, one per example field.

    Examples that are tuples give a tuple of arrays (one per position), examples that are
    dicts give a dict of arrays (one per key of the first example), and anything else (arrays,
    numbers, lists) gives one array. Each array stacks the examples' values along a new first
    axis.

    Args:
        batch: The examples, as an iterator returns them.
        device: Where to send the arrays: a Device, or None to leave them where they are.
            :data:`concat_examples` also takes an int or string specifier.
        padding: None to require equal shapes. Otherwise a value (or a tuple of values per
            position / a dict of values per key) that fills each array up to the elementwise
            largest shape; the result takes the first example's dtype.

    Returns:
        An array, a tuple of arrays or a dict of arrays.

    Raises:
        ValueError: If ``batch`` is empty, or shapes differ and ``padding`` is None.
    """
    if not batch:
        raise ValueError("batch is empty")
    first = batch[0]
    if isinstance(first, tuple):
        paddings = padding if isinstance(padding, tuple) else (padding,) * len(first)
        return tuple(
            to_device(device, _concat_arrays([example[i] for example in batch], paddings[i]))
            for i in range(len(first)))
    if isinstance(first, dict):
        paddings_by_key = padding if isinstance(padding, dict) else dict.fromkeys(first, padding)
        return {
            key: to_device(device, _concat_arrays([example[key] for example in batch],
                                                  paddings_by_key[key]))
            for key in first}
    return to_device(device, _concat_arrays(batch, padding))


def _concat_arrays(values: Sequence[Any], padding: Any) -> Any:
    """Stacks ``values`` along a new first axis, padding them when ``padding`` is not None."""
    if not isinstance(values[0], backend.get_array_types()):
        # compat: Python numbers and lists go through one numpy.asarray, as in Chainer; the
        # result is already the stacked array.
        return numpy.asarray(values)
    device = backend.get_device_from_array(values[0])
    with device.create_context():
        if padding is None:
            return device.xp.concatenate([array[None] for array in values])
        return _concat_with_padding(values, padding, device.xp)


def _concat_arrays_with_padding(arrays: Sequence[Any], padding: Any) -> Any:
    """Stacks ``arrays`` along a new first axis, each padded with ``padding`` to the largest
    shape. Chainer's private name, which libraries built on it (chainer-chemistry) import."""
    device = backend.get_device_from_array(arrays[0])
    with device.create_context():
        return _concat_with_padding(arrays, padding, device.xp)


def _concat_with_padding(arrays: Sequence[Any], padding: Any, xp: Any) -> Any:
    shape = list(arrays[0].shape)
    for array in arrays[1:]:
        if array.ndim != len(shape):
            raise ValueError(
                f"arrays padded into one batch must have the same number of dimensions, got "
                f"shapes {arrays[0].shape} and {array.shape}")
        shape = [max(size, other) for size, other in zip(shape, array.shape, strict=True)]
    # compat: the padding value is cast as NumPy 1 cast it (-1 pads uint8 with 255); NumPy 2
    # refuses an out-of-range Python int.
    fill = numpy.asarray(padding).astype(arrays[0].dtype).item()
    result = xp.full((len(arrays), *shape), fill, dtype=arrays[0].dtype)
    for i, array in enumerate(arrays):
        result[(i, *(slice(size) for size in array.shape))] = array
    return result


concat_examples: _DeviceNormalizingConverter = _DeviceNormalizingConverter(concat_examples_func)
"""The converter that :func:`concat_examples_func` becomes: it also takes int and string device
specifiers. Call it as ``concat_examples(batch, device=None, padding=None)``."""


class ConcatWithAsyncTransfer:
    """A converter like :data:`concat_examples` bound to one device: the one its first batch of
    tuple or dict examples is sent to.

    Args:
        stream: A ``cupy.cuda.Stream`` for the transfers, or None.
        compute_stream: A ``cupy.cuda.Stream`` the computation runs on, or None.

    Compat:
        Chainer overlaps the host-to-GPU copy with computation through pinned memory and
        double buffering; this version copies synchronously (on ``stream`` when given), so the
        results are the same but the copy is not overlapped. Devices are compared by value,
        where Chainer's ``is`` refuses a NumPy integer after an equal ``int``.
    """

    def __init__(self, stream: Any = None, compute_stream: Any = None) -> None:
        self._stream = stream
        self.compute_stream = compute_stream
        self._device: Any = None
        self._bound = False

    def __call__(self, batch: Sequence[Any], device: Any = None, padding: Any = None) -> Any:
        """Concatenates ``batch`` like :data:`concat_examples` and sends it to ``device``.

        Args:
            batch: The examples.
            device: A legacy integer device ID (negative for the CPU) or None; once a batch of
                tuple or dict examples has been converted, it must stay the same.
            padding: As for :data:`concat_examples`.

        Raises:
            ValueError: If ``batch`` is empty or ``device`` differs from the bound one.
        """
        if not batch:
            raise ValueError("batch is empty")
        if not self._bound:
            self._device = device
        if device != self._device:
            raise ValueError(
                f"device is different: it must be the one of the first call with tuple or dict "
                f"examples, {self._device!r}, got {device!r}. Use one ConcatWithAsyncTransfer "
                "per device.")
        # compat: Chainer binds the device when it sets up its per-component transfer queues,
        # which only tuple and dict examples use; batches of plain arrays leave it unbound.
        if isinstance(batch[0], (tuple, dict)):
            self._bound = True
        if self._stream is None:
            return concat_examples(batch, device, padding)
        with self._stream:  # a cupy Stream makes itself current inside the block
            result = concat_examples(batch, device, padding)
        # Other streams (the compute stream) may read the arrays as soon as this returns.
        self._stream.synchronize()
        return result
