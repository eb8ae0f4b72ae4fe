"""``Distribution``, the base class of ``chainer.distributions``, and the KL-divergence registry.

Layer 8: imports backend, configuration and variable.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from chainer_compat import backend, configuration, variable

__all__ = ["Distribution", "cross_entropy", "kl_divergence", "register_kl"]

_Value = TypeVar("_Value")


class _cached_property(Generic[_Value]):  # noqa: N801 - reads as the decorator it replaces
    """A read-only property computed once per ``enable_backprop`` mode and kept on the instance.

    A value computed under ``no_backprop_mode`` has no graph, so it must not be handed out when
    backprop is on again; the cache is therefore keyed by the mode.
    """

    def __init__(self, function: Callable[[Any], _Value]) -> None:
        self.function = function
        self.__doc__ = function.__doc__
        self.name = function.__name__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        caches = instance.__dict__.setdefault("_cached_" + self.name, {})
        mode = configuration.config.enable_backprop
        if mode not in caches:
            caches[mode] = self.function(instance)
        return caches[mode]

    def __set__(self, instance: Any, value: Any) -> None:
        raise AttributeError(f"attribute {self.name!r} of {type(instance).__name__} is read-only")


class Distribution:
    """A probability distribution over a batch of independent events.

    A sample has shape ``sample_shape + batch_shape + event_shape``: the values of one event
    depend on each other, the events of a batch are independent (not identically distributed),
    and the samples are drawn independently. Probability-like methods take such an array and
    return one of shape ``sample_shape + batch_shape``. Statistics and methods computed from
    the parameters are Variables, differentiable with respect to the parameters.

    Subclasses override what they support; the rest raise ``NotImplementedError``. Override
    :meth:`sample_n` rather than :meth:`sample`.
    """

    def __setstate__(self, state: dict[str, Any]) -> None:
        # compat: a distribution pickled by Chainer 7.8.1 (NOTE [pickles] in variable.py) keeps
        # each parameter as given in a name-mangled attribute, _Normal__loc, where ours keeps it
        # in _loc_input; Chainer's Normal also keeps its device, which ours reads off the arrays.
        # Only our own classes' names: a subclass's own private attributes stay as they are.
        classes = {cls.__name__ for cls in type(self).__mro__
                   if cls.__module__.startswith("chainer_compat.")}
        renamed: dict[str, Any] = {}
        for key, value in state.items():
            owner, mangled, name = key[1:].partition("__")
            if key.startswith("_") and mangled and owner in classes and name:
                if name != "device":
                    renamed[f"_{name}_input"] = value
            else:
                renamed[key] = value
        self.__dict__.update(renamed)

    def _copy_to(self, target: Distribution) -> Distribution:
        target.__dict__ = copy.copy(self.__dict__)
        return target

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """The shape of the independent, non-identical part of a sample."""
        raise NotImplementedError

    @property
    def event_shape(self) -> tuple[int, ...]:
        """The shape of one event, whose values are drawn jointly."""
        raise NotImplementedError

    def cdf(self, x: Any) -> variable.Variable:
        """The cumulative distribution function at ``x``."""
        raise NotImplementedError

    def log_cdf(self, x: Any) -> variable.Variable:
        """The logarithm of the cumulative distribution function at ``x``."""
        raise NotImplementedError

    def icdf(self, x: Any) -> variable.Variable:
        """The inverse of the cumulative distribution function at probabilities ``x``."""
        raise NotImplementedError

    def survival_function(self, x: Any) -> variable.Variable:
        """The survival function ``1 - cdf(x)`` at ``x``."""
        raise NotImplementedError

    def log_survival_function(self, x: Any) -> variable.Variable:
        """The logarithm of the survival function at ``x``."""
        raise NotImplementedError

    def log_prob(self, x: Any) -> variable.Variable:
        """The logarithm of the density (or mass) at ``x``."""
        raise NotImplementedError

    def prob(self, x: Any) -> variable.Variable:
        """The density (or mass) at ``x``."""
        raise NotImplementedError

    def perplexity(self, x: Any) -> variable.Variable:
        """The perplexity at ``x``."""
        raise NotImplementedError

    @property
    def covariance(self) -> variable.Variable:
        """The covariance matrix of an event."""
        raise NotImplementedError

    @property
    def entropy(self) -> variable.Variable:
        """The entropy of each distribution of the batch."""
        raise NotImplementedError

    @property
    def mean(self) -> variable.Variable:
        """The mean."""
        raise NotImplementedError

    @property
    def mode(self) -> variable.Variable:
        """The mode."""
        raise NotImplementedError

    @property
    def stddev(self) -> variable.Variable:
        """The standard deviation."""
        raise NotImplementedError

    @property
    def variance(self) -> variable.Variable:
        """The variance."""
        raise NotImplementedError

    @property
    def params(self) -> dict[str, variable.Variable]:
        """The parameters, by name."""
        raise NotImplementedError

    @property
    def support(self) -> str:
        """A short text naming the set the samples lie in, e.g. ``'real'``."""
        raise NotImplementedError

    def sample(self, sample_shape: int | tuple[int, ...] = ()) -> variable.Variable:
        """Draws samples of shape ``sample_shape + batch_shape + event_shape``.

        Args:
            sample_shape: An int or a tuple of ints; ``()`` draws one sample without a leading
                sample axis.

        Returns:
            The samples, from :meth:`sample_n` reshaped.
        """
        shape = self.batch_shape + self.event_shape
        if isinstance(sample_shape, int):
            count = sample_shape
            shape = (count,) + shape
        else:
            sample_shape = tuple(sample_shape)
            count = 1
            for size in sample_shape:
                count *= size
            shape = sample_shape + shape
        return self.sample_n(count).reshape(shape)

    def sample_n(self, n: int) -> variable.Variable:
        """Draws ``n`` samples, of shape ``(n,) + batch_shape + event_shape``."""
        raise NotImplementedError

    @property
    def xp(self) -> Any:
        """The array module (numpy or cupy) of the parameters."""
        return backend.get_array_module(*self.params.values())


_KLDIVERGENCE: dict[tuple[type, type], Callable[[Any, Any], variable.Variable]] = {}

_KLFunction = TypeVar("_KLFunction", bound=Callable[..., Any])


def register_kl(Dist1: type, Dist2: type) -> Callable[[_KLFunction], _KLFunction]:  # noqa: N803
    """Decorator registering the function :func:`kl_divergence` calls for a pair of classes.

    Args:
        Dist1: The class of the first (left) operand.
        Dist2: The class of the second (right) operand.

    Returns:
        A decorator taking ``kl(dist1, dist2)`` and registering it for ``(Dist1, Dist2)``; a
        later registration of the same pair replaces an earlier one.

    Compat:
        Chainer's decorator returns None, so the decorated name is lost; ours returns the
        function unchanged.
    """

    def register(kl: _KLFunction) -> _KLFunction:
        _KLDIVERGENCE[Dist1, Dist2] = kl
        return kl

    return register


def kl_divergence(dist1: Distribution, dist2: Distribution) -> variable.Variable:
    """The Kullback-Leibler divergence ``KL(dist1 || dist2)``, per distribution of the batch.

    Args:
        dist1: The first operand ``p``.
        dist2: The second operand ``q``.

    Returns:
        The divergence, from the function registered for the exact classes of the operands.

    Raises:
        KeyError: If no function is registered for that pair of classes.
    """
    key = (type(dist1), type(dist2))
    try:
        kl = _KLDIVERGENCE[key]
    except KeyError:
        raise KeyError(
            f"kl_divergence must have a function registered for ({key[0].__name__}, "
            f"{key[1].__name__}), got none; register one with chainer.register_kl") from None
    return kl(dist1, dist2)


def cross_entropy(dist1: Distribution, dist2: Distribution) -> variable.Variable:
    """The cross entropy ``H(dist1, dist2) = H(dist1) + KL(dist1 || dist2)``.

    Args:
        dist1: The first operand ``p``; it must define ``entropy``.
        dist2: The second operand ``q``.

    Returns:
        The cross entropy, per distribution of the batch.

    Compat:
        Chainer 7.8.1 calls ``dist1.entropy()``, which fails on its own distributions because
        ``entropy`` is a property there; we read the property.
    """
    return dist1.entropy + kl_divergence(dist1, dist2)
