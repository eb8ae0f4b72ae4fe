"""``Classifier``: a chain that wraps a predictor, computes a loss (and accuracy) against the
labels taken from its arguments, and reports both.

Layer 8: imports link, reporter and functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer_compat import reporter
from chainer_compat.functions.evaluation.accuracy import accuracy
from chainer_compat.functions.loss.softmax_cross_entropy import softmax_cross_entropy
from chainer_compat.link import Chain, Link

__all__ = ["Classifier"]


def _label_key_type_error(label_key: Any) -> TypeError:
    # compat: Chainer's exact wording, which user code and tests match on.
    return TypeError(f"label_key must be int or str, but is {type(label_key)}")


class Classifier(Chain):
    """A chain that computes a classification loss, and accuracy, for a predictor.

    Calling it with ``(*args, **kwargs)`` takes the labels out of the arguments (see
    ``label_key``), runs ``predictor`` on the remaining arguments, computes
    ``lossfun(y, t)`` and, when :attr:`compute_accuracy` is True, ``accfun(y, t)``, reports
    them as ``'loss'`` and ``'accuracy'`` with the classifier as observer, and returns the loss.

    Args:
        predictor: The link whose output is classified; registered as the child
            ``predictor``.
        lossfun: ``lossfun(y, t)`` returns the loss Variable. It should be a function, not a
            Link with parameters. The default, :func:`softmax_cross_entropy`, has no double
            backprop; pass a function calling it with ``enable_double_backprop=True`` for that.
        accfun: ``accfun(y, t)`` returns the accuracy.
        label_key: Where the labels are: an int indexes the positional arguments, a str
            names a keyword argument.

    Raises:
        TypeError: If ``label_key`` is neither an int nor a str.

    Attributes:
        predictor: The predictor link.
        lossfun: The loss function.
        accfun: The accuracy function.
        label_key: Where the labels are found.
        y: The predictor's output of the last call (None before the first).
        loss: The loss of the last call.
        accuracy: The accuracy of the last call (None when it was not computed).
        compute_accuracy: Whether calls compute and report the accuracy (True by default).
    """

    # compat: a class attribute in Chainer, so it can be switched off for all instances.
    compute_accuracy = True

    def __init__(self, predictor: Link,
                 lossfun: Callable[..., Any] = softmax_cross_entropy,
                 accfun: Callable[..., Any] = accuracy,
                 label_key: int | str = -1) -> None:
        if not isinstance(label_key, (int, str)):
            raise _label_key_type_error(label_key)
        super().__init__()
        self.lossfun = lossfun
        self.accfun = accfun
        self.y: Any = None
        self.loss: Any = None
        self.accuracy: Any = None
        self.label_key = label_key
        with self.init_scope():
            self.predictor = predictor

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Computes the loss of the predictor's output against the labels.

        Args:
            args: Positional inputs; the labels are among them when ``label_key`` is an int.
            kwargs: Keyword inputs; the labels are among them when ``label_key`` is a str.

        Returns:
            The loss Variable.

        Raises:
            ValueError: If the labels are not found where ``label_key`` says.
        """
        labels, args, kwargs = self._split_labels(args, kwargs)
        # Drop the previous graph before building the new one, so both are not held at once.
        self.y = None
        self.loss = None
        self.accuracy = None
        self.y = self.predictor(*args, **kwargs)
        self.loss = self.lossfun(self.y, labels)
        reporter.report({"loss": self.loss}, self)
        if self.compute_accuracy:
            self.accuracy = self.accfun(self.y, labels)
            reporter.report({"accuracy": self.accuracy}, self)
        return self.loss

    def _split_labels(self, args: tuple[Any, ...], kwargs: dict[str, Any]
                      ) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
        """Returns the labels and the arguments left for the predictor."""
        label_key = self.label_key
        if isinstance(label_key, int):
            if not -len(args) <= label_key < len(args):
                # compat: Chainer's exact wording and type.
                raise ValueError(f"Label key {label_key:d} is out of bounds")
            index = label_key % len(args)
            return args[index], args[:index] + args[index + 1:], kwargs
        if isinstance(label_key, str):
            if label_key not in kwargs:
                # compat: Chainer's exact wording and type.
                raise ValueError(f'Label key "{label_key}" is not found')
            kwargs = dict(kwargs)
            labels = kwargs.pop(label_key)
            return labels, args, kwargs
        # label_key was replaced after construction by something else than an int or a str.
        raise _label_key_type_error(label_key)
