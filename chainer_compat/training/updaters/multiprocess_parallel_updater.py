"""``MultiprocessParallelUpdater``: synchronous data-parallel training with one process per GPU,
gradients summed and parameters broadcast with NCCL; and the flat-buffer helpers it uses.

Layer 8: imports ``backend``, ``dataset.convert``, ``reporter`` and ``training.updaters``;
CuPy and NCCL only when used, so importing this module never loads CuPy.
"""

from __future__ import annotations

import functools
import multiprocessing
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat import reporter as reporter_module
from chainer_compat.dataset import convert
from chainer_compat.training.updaters import standard_updater

__all__ = [
    "MultiprocessParallelUpdater",
    "gather_grads",
    "gather_params",
    "scatter_grads",
    "scatter_params",
    "size_num_grads",
]

_NCCL_MISSING = (
    "NCCL is not enabled. MultiprocessParallelUpdater requires NCCL.\n"
    "MultiprocessParallelUpdater must run with CuPy built with NCCL (cupy.cuda.nccl must "
    "import), got none. Install NCCL (for example the nvidia-nccl-cu12 wheel) and reinstall "
    "CuPy, or use ParallelUpdater, which needs no NCCL.")

_CONTEXT_INITIALIZED = (
    "The CUDA context has been already initialized. MultiprocessParallelUpdater assumes the "
    "context is uninitialized. Please do not call CUDA API before MultiprocessParallelUpdater "
    "creates processes or use multiprocessing.set_start_method with 'spawn' or 'forkserver' "
    "as arguments.")


@functools.cache
def _nccl() -> Any | None:
    """Returns ``cupy.cuda.nccl``, or None when CuPy or its NCCL support is missing."""
    try:
        from cupy.cuda import nccl
    except Exception:  # compat: Chainer takes any failure to import as "no NCCL"
        return None
    # Some CuPy builds import the module but flag the library as missing.
    if not getattr(nccl, "available", True):
        return None
    return nccl


def _require_nccl() -> Any:
    nccl = _nccl()
    if nccl is None:
        # compat: Chainer raises a plain Exception here.
        raise Exception(_NCCL_MISSING)
    return nccl


def _cupy() -> Any:
    import cupy

    return cupy


def _null_stream() -> int:
    """The pointer of CUDA's default stream, on which NCCL runs in step with the kernels."""
    return int(_cupy().cuda.Stream.null.ptr)


def _cuda_context_initialized() -> bool:
    """Whether this process already has a current CUDA context (a forked child cannot use it)."""
    driver = _cupy().cuda.driver
    try:
        context = driver.ctxGetCurrent()
    except driver.CUDADriverError:
        return False
    # Recent drivers answer 0 instead of raising when no context exists yet.
    return bool(context)


class _Worker(multiprocessing.Process):
    """The process that drives one non-main device: each ``'update'`` message runs forward and
    backward on its own iterator's batch, adds its gradients into the main device's with NCCL
    and receives the updated parameters back."""

    def __init__(self, proc_id: int, pipe: Any, master: MultiprocessParallelUpdater) -> None:
        super().__init__()
        self.proc_id = proc_id
        self.pipe = pipe
        self.converter = master.converter
        self.model = master._master
        self.device = master._devices[proc_id]
        self.iterator = master._mpu_iterators[proc_id]
        self.n_devices = len(master._devices)

    def setup(self) -> None:
        """Joins the NCCL communicator and moves the model to this worker's device."""
        nccl = _require_nccl()
        _, comm_id = self.pipe.recv()
        self.comm = nccl.NcclCommunicator(self.n_devices, comm_id, self.proc_id)
        self.model.to_device(self.device)
        self.reporter = reporter_module.Reporter()
        self.reporter.add_observer("main", self.model)
        self.reporter.add_observers("main", self.model.namedlinks(skipself=True))

    def run(self) -> None:
        """Serves ``'update'`` messages until ``'finalize'``."""
        self.device.use()
        self.setup()
        nccl = _require_nccl()
        stream = _null_stream()
        while True:
            job, _ = self.pipe.recv()
            if job == "finalize":
                # The current device, which run() selected: wait for its pending work.
                _cupy().cuda.Device().synchronize()
                break
            if job != "update":
                continue
            self.model.cleargrads()  # frees the last step's gradients before the forward pass
            batch = self.converter(self.iterator.next(), self.device)
            # Reports of the workers are dropped: only the main device's values are seen.
            with self.reporter.scope({}):
                loss = _calc_loss(self.model, batch)
            # Again: a lazily initialized parameter got its array (and no gradient) in forward.
            self.model.cleargrads()
            loss.backward()
            del loss
            grads = gather_grads(self.model)
            self.comm.reduce(grads.data.ptr, grads.data.ptr, grads.size,
                             _get_nccl_data_type(grads.dtype), nccl.NCCL_SUM, 0, stream)
            del grads
            self.model.cleargrads()
            params = gather_params(self.model)
            self.comm.bcast(params.data.ptr, params.size, _get_nccl_data_type(params.dtype),
                            0, stream)
            scatter_params(self.model, params)
            del params


class MultiprocessParallelUpdater(standard_updater.StandardUpdater):
    """Data-parallel training on several GPUs of one machine, one process per GPU.

    Each device has its own iterator; at every update each process computes the gradient of
    its own minibatch, NCCL sums the gradients into the main (first) device, the main
    optimizer updates the model there and NCCL broadcasts the new parameters to the others.
    The gradients are summed, not averaged, so the optimizer's step is scaled at construction
    (with a warning): ``eps`` times the number of devices for Adam, AdaGrad and RMSprop,
    ``eps`` times its square for RMSpropGraves and AdaDelta, and ``lr`` divided by it for any
    other optimizer with ``lr``. Values reported on the other devices are dropped.

    The worker processes start at the first update. With the default ``fork`` start method
    the CUDA context must not exist yet when the updater is made.

    Args:
        iterators: One iterator per device, all over datasets of the same length; the first
            is the main iterator.
        optimizer: The optimizer; its target is the model.
        converter: Turns each process's batch into the model's arguments; called with the
            device.
        devices: Device specifiers, a list or tuple whose first entry is the main device, or a
            dict with the main device under ``'main'``.
        auto_new_epoch: Whether to call ``optimizer.new_epoch(auto=True)`` at epoch ends.

    Raises:
        Exception: If CuPy with NCCL is missing (see :meth:`available`).
        RuntimeError: If the CUDA context is already initialized and the start method of
            ``multiprocessing`` is ``fork``.
        ValueError: If ``devices`` is not a dict, list or tuple, holds None, or does not have
            one entry per iterator, or the iterators' datasets differ in length. Compat:
            Chainer asserts the last two.
    """

    def __init__(self, iterators: Sequence[Any], optimizer: Any,
                 converter: Callable[..., Any] = convert.concat_examples,
                 devices: Any = None, auto_new_epoch: bool = True) -> None:
        _require_nccl()
        if (_cuda_context_initialized()
                and multiprocessing.get_start_method() not in ("spawn", "forkserver")):
            # compat: Chainer's wording.
            raise RuntimeError(_CONTEXT_INITIALIZED)
        device_list = _device_list(devices)
        if len(iterators) != len(device_list):
            raise ValueError(
                f"iterators must have one entry per device ({len(device_list)}), got "
                f"{len(iterators)}; give each device its own iterator")
        sizes = [len(iterator.dataset) for iterator in iterators]
        if any(size != sizes[0] for size in sizes):
            raise ValueError(
                f"the datasets of the iterators must have the same length, got {sizes}; split "
                f"the dataset evenly (e.g. chainer.datasets.split_dataset_n_random)")
        _scale_for_summed_gradients(optimizer, len(device_list))
        super().__init__(iterator=iterators[0], optimizer=optimizer, converter=converter,
                         auto_new_epoch=auto_new_epoch)
        self._master = optimizer.target
        self._devices = [backend.get_device(device) for device in device_list]
        self._mpu_iterators = iterators
        self._initialized = False
        self._pipes: list[Any] = []
        self._workers: list[_Worker] = []
        self.comm: Any = None

    @staticmethod
    def available() -> bool:
        """Whether CuPy with NCCL can be imported, which this updater needs."""
        return _nccl() is not None

    def _send_message(self, message: tuple[str, Any]) -> None:
        for pipe in self._pipes:
            pipe.send(message)

    def setup_workers(self) -> None:
        """Starts one worker process per non-main device and the NCCL communicator (once)."""
        if self._initialized:
            return
        self._initialized = True
        self._master.cleargrads()
        for proc_id in range(1, len(self._devices)):
            pipe, worker_end = multiprocessing.Pipe()
            worker = _Worker(proc_id, worker_end, self)
            worker.start()
            self._workers.append(worker)
            self._pipes.append(pipe)
        with backend.using_device(self._devices[0]):
            self._master.to_device(self._devices[0])
            if len(self._devices) > 1:
                nccl = _require_nccl()
                comm_id = nccl.get_unique_id()
                self._send_message(("set comm_id", comm_id))
                self.comm = nccl.NcclCommunicator(len(self._devices), comm_id, 0)

    def update_core(self) -> None:
        """Runs one synchronous step on every device and updates the main model."""
        self.setup_workers()
        self._send_message(("update", None))
        with backend.using_device(self._devices[0]):
            self._master.cleargrads()  # frees the last step's gradients before forward
            optimizer = self.get_optimizer("main")
            iterator = self.get_iterator("main")
            batch = self.converter(iterator.next(), self._devices[0])
            loss = _calc_loss(self._master, batch)
            # Again: a lazily initialized parameter got its array (and no gradient) in forward.
            self._master.cleargrads()
            loss.backward()
            if self.comm is not None:
                grads = gather_grads(self._master)
                self.comm.reduce(grads.data.ptr, grads.data.ptr, grads.size,
                                 _get_nccl_data_type(grads.dtype), _require_nccl().NCCL_SUM, 0,
                                 _null_stream())
                scatter_grads(self._master, grads)
                del grads
            optimizer.update()
            if self.comm is not None:
                params = gather_params(self._master)
                self.comm.bcast(params.data.ptr, params.size,
                                _get_nccl_data_type(params.dtype), 0, _null_stream())
            if self.auto_new_epoch and iterator.is_new_epoch:
                optimizer.new_epoch(auto=True)

    def finalize(self) -> None:
        """Stops the worker processes, waits for them, then finalizes the iterators."""
        self._send_message(("finalize", None))
        for worker in self._workers:
            worker.join()
        super().finalize()


def _device_list(devices: Any) -> list[Any]:
    """Returns the device specifiers as a list with the main device first."""
    if isinstance(devices, dict):
        if "main" not in devices:
            # compat: Chainer's type (a KeyError from the missing key).
            raise KeyError(
                f"devices must have a 'main' entry when it is a dict, got keys "
                f"{sorted(map(str, devices))}")
        others = [device for name, device in devices.items() if name != "main"]
        device_list = [devices["main"], *others]
    elif isinstance(devices, (list, tuple)):
        device_list = list(devices)
    else:
        # compat: Chainer's wording.
        raise ValueError(
            f"devices argument should be either dict, list or tuple, but "
            f"{type(devices)} was given.")
    if any(device is None for device in device_list):
        # compat: Chainer's wording.
        raise ValueError("GPU devices must be specified.")
    return device_list


def _scale_for_summed_gradients(optimizer: Any, n_devices: int) -> None:
    # compat: Chainer chooses by class name, so subclasses of these keep the lr rule.
    name = type(optimizer).__name__
    if name in ("Adam", "AdaGrad", "RMSprop"):
        optimizer.eps *= n_devices
        changed = f"optimizer.eps is changed to {optimizer.eps}"
    elif name in ("RMSpropGraves", "AdaDelta"):
        optimizer.eps *= n_devices ** 2
        changed = f"optimizer.eps is changed to {optimizer.eps}"
    elif hasattr(optimizer, "lr"):
        optimizer.lr /= n_devices
        changed = f"optimizer.lr is changed to {optimizer.lr}"
    else:
        return
    warnings.warn(f"{changed} by MultiprocessParallelUpdater for new batch size.",
                  stacklevel=3)


def _calc_loss(model: Any, in_arrays: Any) -> Any:
    if isinstance(in_arrays, tuple):
        return model(*in_arrays)
    if isinstance(in_arrays, dict):
        return model(**in_arrays)
    return model(in_arrays)


def _packed_params(link: Any) -> list[Any]:
    """The parameters that go into a flat buffer, in a fixed order every process agrees on:
    sorted by path, empty and uninitialized ones left out."""
    return [param for _, param in sorted(link.namedparams(), key=lambda item: item[0])
            if param.array is not None and param.size > 0]


def _packed_dtype(params: Sequence[Any]) -> numpy.dtype:
    # float16 and float32 travel as float32, as in Chainer; float64 is kept whole.
    if any(param.dtype == numpy.float64 for param in params):
        return numpy.dtype(numpy.float64)
    return numpy.dtype(numpy.float32)


def size_num_grads(link: Any) -> tuple[int, int]:
    """Counts the non-empty parameters of ``link`` and their total number of elements.

    Args:
        link: The link.

    Returns:
        ``(total size, number of parameters)``.
    """
    params = _packed_params(link)
    return sum(int(param.size) for param in params), len(params)


def _gather(link: Any, target: str) -> Any:
    """Returns the ``target`` arrays (``'grad'`` or ``'data'``) of the parameters of ``link``,
    flattened into one array; a missing gradient contributes zeros."""
    params = _packed_params(link)
    dtype = _packed_dtype(params)
    xp = link.xp
    pieces = []
    for param in params:
        array = getattr(param, target)
        if array is None:
            pieces.append(xp.zeros(param.size, dtype=dtype))
        else:
            pieces.append(array.ravel().astype(dtype, copy=False))
    if not pieces:
        return xp.zeros(0, dtype=dtype)
    return xp.concatenate(pieces)


def _scatter(link: Any, array: Any, target: str) -> None:
    """Copies the pieces of the flat ``array`` back into the ``target`` arrays in place; a
    missing gradient is created first."""
    params = _packed_params(link)
    total = sum(int(param.size) for param in params)
    if array.size != total:
        raise ValueError(
            f"array must have one element per parameter element of the link ({total}), got "
            f"{array.size}; pass the array gathered from a link of the same structure")
    xp = link.xp
    offset = 0
    for param in params:
        piece = array[offset:offset + param.size].reshape(param.shape)
        destination = getattr(param, target)
        if destination is None:
            destination = xp.zeros(param.shape, dtype=param.dtype)
            setattr(param, target, destination)
        # In place, so optimizer states and other holders of the array see the new values.
        destination[...] = piece.astype(param.dtype, copy=False)
        offset += param.size


def gather_grads(link: Any) -> Any:
    """Returns the gradients of all parameters of ``link`` in one flat CuPy array.

    Parameters are taken in the order of their sorted paths; a missing gradient contributes
    zeros. The array is float32 (float64 when a parameter is float64).

    Raises:
        RuntimeError: If ``link`` is on the CPU.
    """
    if link.xp is numpy:
        # compat: Chainer's wording.
        raise RuntimeError("gather_grads works only on GPU.")
    return _gather(link, "grad")


def gather_params(link: Any) -> Any:
    """Returns the parameter values of ``link`` in one flat CuPy array (as ``gather_grads``).

    Raises:
        RuntimeError: If ``link`` is on the CPU.
    """
    if link.xp is numpy:
        # compat: Chainer's wording.
        raise RuntimeError("Link.gather_params works only on GPU.")
    return _gather(link, "data")


def scatter_grads(link: Any, array: Any) -> None:
    """Writes a flat array made by :func:`gather_grads` back into the gradients of ``link``.

    Raises:
        ValueError: If the array's size is not the link's total parameter size.
    """
    _scatter(link, array, "grad")


def scatter_params(link: Any, array: Any) -> None:
    """Writes a flat array made by :func:`gather_params` back into the parameters of ``link``.

    Raises:
        ValueError: If the array's size is not the link's total parameter size.
    """
    _scatter(link, array, "data")


def _get_nccl_data_type(dtype: Any) -> int:
    """Returns NCCL's data type constant for ``dtype`` (float16, float32 or float64)."""
    nccl = _require_nccl()
    codes = {numpy.dtype(numpy.float16): nccl.NCCL_HALF,
             numpy.dtype(numpy.float32): nccl.NCCL_FLOAT,
             numpy.dtype(numpy.float64): nccl.NCCL_DOUBLE}
    code = codes.get(numpy.dtype(dtype))
    if code is None:
        # compat: Chainer's wording.
        raise RuntimeError(f"Unexpected data type:{dtype}")
    return code
