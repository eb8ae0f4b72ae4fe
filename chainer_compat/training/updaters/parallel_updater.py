"""``ParallelUpdater``: synchronous data-parallel training on several devices of one host;
each device computes the gradient of a slice of the minibatch and the main model is updated.

Layer 8: imports ``backend``, ``configuration``, ``dataset.convert`` and
``training.updaters.standard_updater``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from chainer_compat import backend, configuration
from chainer_compat.dataset import convert
from chainer_compat.training.updaters import standard_updater

__all__ = ["ParallelUpdater"]


class ParallelUpdater(standard_updater.StandardUpdater):
    """Splits each minibatch across models on several devices, sums their gradients into the
    main model, updates it and copies its parameters back to the others.

    With ``n`` models, model ``i`` (in the order of ``models`` or ``devices``) gets the
    examples ``batch[i::n]``, converted with ``converter(sub_batch, devices[name])``. Each
    loss is computed under ``chainer.using_device`` of the model's device and backpropagated
    (with ``loss_scale``); the main optimizer then updates the main model.

    Args:
        iterator: An iterator, or a dict of iterators with a ``'main'`` one.
        optimizer: An optimizer, or a dict of optimizers with a ``'main'`` one; its target
            is the main model.
        converter: Turns a sub-batch into the loss function's arguments; called with the
            device specifier as given in ``devices``.
        models: Dict of models by name, with the main model (the optimizer's target) under
            ``'main'``; when None, copies of the main model are made, one per device.
        devices: Dict of device specifiers by name (``'main'`` included), e.g.
            ``{'main': 0, 'second': 1}``; CPU specifiers (``-1``, ``'@numpy'``) work too.
        loss_func: Loss function; each model is its own when None.
        loss_scale: Loss scaling factor for ``backward``.
        auto_new_epoch: Whether to call ``optimizer.new_epoch(auto=True)`` at epoch ends.

    Raises:
        ValueError: If neither ``models`` nor ``devices`` is given.
        KeyError: If ``models`` is None and ``devices`` has no ``'main'`` key.
    """

    def __init__(self, iterator: Any, optimizer: Any,
                 converter: Callable[..., Any] = convert.concat_examples,
                 models: dict[str, Any] | None = None, devices: dict[str, Any] | None = None,
                 loss_func: Callable[..., Any] | None = None, loss_scale: float | None = None,
                 auto_new_epoch: bool = True) -> None:
        super().__init__(iterator=iterator, optimizer=optimizer, converter=converter,
                         loss_func=loss_func, loss_scale=loss_scale,
                         auto_new_epoch=auto_new_epoch)
        if models is None:
            if devices is None:
                # compat: Chainer's wording.
                raise ValueError("either models or devices must be specified")
            if "main" not in devices:
                # compat: Chainer's type and wording.
                raise KeyError("'devices' must contain a 'main' key.")
            main_model = self.get_optimizer("main").target
            models = {"main": main_model}
            for name, device in devices.items():
                if name != "main":
                    # Copied before the main model moves, so each copy starts on its own
                    # device from the same parameters.
                    model = copy.deepcopy(main_model)
                    model.to_device(device)
                    models[name] = model
            main_model.to_device(devices["main"])
        self._devices: dict[str, Any] = {} if devices is None else devices
        self._models: dict[str, Any] = models

    def connect_trainer(self, trainer: Any) -> None:
        """Registers the models other than the main one as observers, under their names."""
        main_model = self.get_optimizer("main").target
        for name, model in self._models.items():
            if model is not main_model:
                trainer.reporter.add_observer(name, model)

    def update_core(self) -> None:
        """Runs one data-parallel step on the next batch of the main iterator."""
        optimizer = self.get_optimizer("main")
        main_model = optimizer.target
        other_models = [model for model in self._models.values() if model is not main_model]
        iterator = self.get_iterator("main")
        batch = iterator.next()

        count = len(self._models)
        inputs = {name: self.converter(batch[index::count], self._devices[name])
                  for index, name in enumerate(self._models)}
        for model in self._models.values():
            model.cleargrads()  # frees the previous step's gradients before the forward passes

        losses = []
        for name, model in self._models.items():
            loss_func = self.loss_func or model
            arguments = inputs[name]
            with configuration.force_backprop_mode(), \
                    backend.using_device(self._devices[name]):
                if isinstance(arguments, tuple):
                    loss = loss_func(*arguments)
                elif isinstance(arguments, dict):
                    loss = loss_func(**arguments)
                else:
                    loss = loss_func(arguments)
            losses.append(loss)

        # Again: a lazily initialized parameter got its array (and no gradient) in forward.
        for model in self._models.values():
            model.cleargrads()
        for loss in losses:
            loss.backward(loss_scale=self.loss_scale)
        for model in other_models:
            main_model.addgrads(model)
        optimizer.update()
        for model in other_models:
            model.copyparams(main_model)

        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)
