"""The two steps every optimizer's update rule repeats: taking the hyperparameters given to its
constructor over its parent's, and creating zero-filled state arrays on the parameter's device.

Layer 8: imports backend, and (for annotations) optimizer and variable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chainer_compat import backend

if TYPE_CHECKING:
    from chainer_compat.optimizer import Hyperparameter
    from chainer_compat.variable import Variable


def override_hyperparams(hyperparam: Hyperparameter, **values: Any) -> None:
    """Sets each given hyperparameter whose value is not None, in the order given.

    A rule's constructor takes None to mean "fall back on the parent's value", so only the
    values actually given become the rule's own.

    Args:
        hyperparam: The rule's own hyperparameter.
        values: Hyperparameter values by name; None leaves that name to the parent.
    """
    for name, value in values.items():
        if value is not None:
            setattr(hyperparam, name, value)


def add_zero_states(state: dict[str, Any], param: Variable, *names: str) -> None:
    """Adds, under each name in order, a zero array shaped like the parameter's data.

    The arrays are created with the parameter's device current, so on a GPU they live where
    the parameter does.

    Args:
        state: The rule's state dict.
        param: The parameter, for its shape, dtype and device.
        names: The state keys to create.
    """
    device = param.device
    with backend.using_device(device):
        for name in names:
            state[name] = device.xp.zeros_like(param.data)
