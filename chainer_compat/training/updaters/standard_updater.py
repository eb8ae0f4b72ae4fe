"""``StandardUpdater``: one step of one optimizer on the next batch of one iterator.

Layer 8: imports ``backend``, ``dataset.convert`` and ``training._updater``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer_compat import backend
from chainer_compat.dataset import convert
from chainer_compat.training import _updater
from chainer_compat.utils import argument

__all__ = ["StandardUpdater"]


class StandardUpdater(_updater.Updater):
    """Updates the ``'main'`` optimizer's target with a batch from the ``'main'`` iterator.

    Each ``update()`` takes ``iterator.next()``, converts it with ``converter(batch, device)``
    and calls ``optimizer.update(loss_func, *arrays)`` (``**arrays`` for a dict, one argument
    otherwise). The epoch properties are those of the ``'main'`` iterator.

    Args:
        iterator: An iterator, or a dict of iterators with a ``'main'`` one.
        optimizer: An optimizer, or a dict of optimizers with a ``'main'`` one.
        converter: Turns a batch into the loss function's arguments.
        device: Device the model is sent to (and the batch, unless ``input_device`` is given).
        loss_func: Loss function; the main optimizer's target when ``None``.
        loss_scale: Loss scaling factor given to every optimizer's ``set_loss_scale``.
        auto_new_epoch: Whether to call ``optimizer.new_epoch(auto=True)`` at epoch ends.
        input_device: Device the converted batch is sent to.

    Attributes:
        converter: The converter.
        loss_func: The loss function.
        iteration: Number of updates done.
    """

    def __init__(self, iterator: Any, optimizer: Any,
                 converter: Callable[..., Any] = convert.concat_examples, device: Any = None,
                 loss_func: Callable[..., Any] | None = None, loss_scale: float | None = None,
                 auto_new_epoch: bool = True, **kwargs: Any) -> None:
        input_device, = argument.parse_kwargs(kwargs, ("input_device", None))
        if device is not None:
            device = backend.get_device(device)
        input_device = device if input_device is None else backend.get_device(input_device)
        # compat: Chainer wraps any Iterator in a dict; a dict is taken as given.
        self._iterators: dict[str, Any] = (
            iterator if isinstance(iterator, dict) else {"main": iterator})
        self._optimizers: dict[str, Any] = (
            optimizer if isinstance(optimizer, dict) else {"main": optimizer})
        if device is not None:
            for name, each in self._optimizers.items():
                if getattr(each, "target", None) is None:
                    # compat: an AttributeError, as Chainer's on None; raised before any
                    # optimizer's link has moved.
                    raise AttributeError(
                        f"optimizer {name!r} must be set up (optimizer.setup(model)) before "
                        "it is given to an updater with a device, got one without a target")
            for each in self._optimizers.values():
                each.target.to_device(device)
        self.converter = converter
        self.loss_func = loss_func
        self.iteration = 0
        self._device = device
        self._input_device = input_device
        self.loss_scale = loss_scale
        if loss_scale is not None:
            for each in self._optimizers.values():
                each.set_loss_scale(loss_scale)
        self.auto_new_epoch = auto_new_epoch
        if auto_new_epoch:
            for each in self._optimizers.values():
                each.use_auto_new_epoch = True

    @property
    def device(self) -> Any:
        """The device given to the constructor (a ``Device`` or ``None``)."""
        return self._device

    @property
    def input_device(self) -> Any:
        """The device batches are sent to (a ``Device`` or ``None``)."""
        return self._input_device

    @property
    def epoch(self) -> int:
        """The main iterator's epoch."""
        return int(self._iterators["main"].epoch)

    @property
    def epoch_detail(self) -> float:
        """The main iterator's epoch as a float (progress within the epoch included)."""
        return float(self._iterators["main"].epoch_detail)

    @property
    def previous_epoch_detail(self) -> float | None:
        """The main iterator's ``epoch_detail`` before its last ``next()``."""
        value = self._iterators["main"].previous_epoch_detail
        return None if value is None else float(value)

    @property
    def is_new_epoch(self) -> bool:
        """Whether the last ``next()`` of the main iterator ended an epoch."""
        return bool(self._iterators["main"].is_new_epoch)

    def finalize(self) -> None:
        """Finalizes every iterator."""
        for iterator in self._iterators.values():
            iterator.finalize()

    def get_optimizer(self, name: str) -> Any:
        """Returns the optimizer of the given name."""
        return self._optimizers[name]

    def get_all_optimizers(self) -> dict[str, Any]:
        """Returns a new dict of all optimizers by name."""
        return dict(self._optimizers)

    def get_iterator(self, name: str) -> Any:
        """Returns the iterator of the given name."""
        return self._iterators[name]

    def update(self) -> None:
        """Runs ``update_core`` and advances ``iteration``."""
        self.update_core()
        self.iteration += 1

    def update_core(self) -> None:
        """Runs one step of the main optimizer on the next batch of the main iterator."""
        iterator = self._iterators["main"]
        batch = iterator.next()
        in_arrays = convert._call_converter(self.converter, batch, self._input_device)
        optimizer = self._optimizers["main"]
        loss_func = self.loss_func or optimizer.target
        if isinstance(in_arrays, tuple):
            optimizer.update(loss_func, *in_arrays)
        elif isinstance(in_arrays, dict):
            optimizer.update(loss_func, **in_arrays)
        else:
            optimizer.update(loss_func, in_arrays)
        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the iterators (``iterator:<name>``), optimizers
        (``optimizer:<name>``), their targets (``model:<name>``) and ``iteration``."""
        for name, iterator in self._iterators.items():
            iterator.serialize(serializer["iterator:" + name])
        for name, optimizer in self._optimizers.items():
            optimizer.serialize(serializer["optimizer:" + name])
            optimizer.target.serialize(serializer["model:" + name])
        iteration = serializer("iteration", self.iteration)
        # compat: Chainer stores whatever the serializer returns; a recording serializer that
        # returns nothing must not break the updater, so None keeps the current count.
        if iteration is not None:
            self.iteration = int(iteration)

