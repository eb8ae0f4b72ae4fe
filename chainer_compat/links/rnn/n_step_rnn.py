"""Stacked Elman RNN links over lists of variable-length sequences (``NStepRNNTanh`` and
friends) and ``NStepRNNBase``, which the n-step LSTM and GRU links build on.

Layer 8: imports backend, functions, initializers, link, utils.argument and variable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from chainer_compat import initializers, link, variable
from chainer_compat.functions.array.permutate import permutate
from chainer_compat.functions.array.transpose_sequence import transpose_sequence
from chainer_compat.functions.rnn import n_step_rnn as rnn_functions
from chainer_compat.utils import argument

__all__ = [
    "NStepBiRNNReLU",
    "NStepBiRNNTanh",
    "NStepRNNBase",
    "NStepRNNReLU",
    "NStepRNNTanh",
    "argsort_list_descent",
    "permutate_list",
]


def argsort_list_descent(lst: Sequence[Any]) -> numpy.ndarray:
    """The ``int32`` indices that order ``lst`` by length, longest first."""
    # compat: NumPy's default sort, as Chainer's, so equal lengths come in Chainer's order and
    # dropout masks fall on the same sequences for the same seed (a stable sort differs).
    return numpy.argsort([-len(item) for item in lst]).astype(numpy.int32)


def permutate_list(lst: Sequence[Any], indices: Any, inv: bool) -> list[Any]:
    """Reorders a list: ``result[i] = lst[indices[i]]``, or ``result[indices[i]] = lst[i]``
    when ``inv`` is True."""
    result: list[Any] = [None] * len(lst)
    for position, index in enumerate(indices):
        if inv:
            result[index] = lst[position]
        else:
            result[position] = lst[index]
    return result


class NStepRNNBase(link.ChainList):
    """Stacked RNN layers over lists of variable-length sequences; the base of the n-step links.

    Child ``k`` (a plain :class:`~chainer.Link`) holds the weights ``w0``, ``w1``, ... and
    biases ``b0``, ``b1``, ... of layer ``k // D`` and direction ``k % D`` (``D`` = 2 for
    two-directional links, forward first); ``ws`` and ``bs`` list them as the n-step functions
    take them. The first half of the weights multiplies the layer input (``(out_size,
    in_size)`` in layer 0, ``(out_size, D * out_size)`` above), the second half the hidden
    state (``(out_size, out_size)``). Subclasses set ``n_weights``, ``use_bi_direction`` and
    :meth:`rnn`.

    Args:
        n_layers: Number of layers.
        in_size: Size of the input vectors.
        out_size: Size of the hidden states and outputs.
        dropout: Dropout ratio for the input of every layer but the first.
        initialW: Initializer of every weight; None means ``LeCunNormal()``.
        initial_bias: Initializer of every bias; None means zero.

    Raises:
        ValueError: For the removed ``use_cudnn=``, ``use_bi_direction=`` and ``activation=``
            options (pick the link class instead).
        TypeError: For any other unknown keyword argument.

    Attributes:
        n_layers: Number of layers.
        dropout: Dropout ratio.
        out_size: Size of the hidden states.
        direction: 1, or 2 for two-directional links.
    """

    n_weights: int = 2
    use_bi_direction: bool = False

    def __init__(self, n_layers: int, in_size: int, out_size: int, dropout: float, *,
                 initialW: Any = None, initial_bias: Any = None, **kwargs: Any) -> None:
        if kwargs:
            argument.check_unexpected_kwargs(
                kwargs,
                use_cudnn="use_cudnn argument is not supported anymore. "
                "Use chainer.using_config",
                use_bi_direction="use_bi_direction is not supported anymore",
                activation="activation is not supported anymore")
            argument.assert_kwargs_empty(kwargs)
        direction = 2 if self.use_bi_direction else 1
        weight_initializer = initializers._get_initializer(initialW)
        bias_initializer = initializers._get_initializer(
            0 if initial_bias is None else initial_bias)
        half = self.n_weights // 2
        layers = []
        for layer in range(n_layers):
            for _ in range(direction):
                weights = link.Link()
                with weights.init_scope():
                    for index in range(self.n_weights):
                        if index >= half:
                            input_size = out_size
                        elif layer == 0:
                            input_size = in_size
                        else:
                            input_size = out_size * direction
                        # Created in Chainer's order (w0, b0, w1, ...), so a seeded
                        # initializer draws the same values.
                        setattr(weights, f"w{index}", variable.Parameter(
                            weight_initializer, (out_size, input_size)))
                        setattr(weights, f"b{index}", variable.Parameter(
                            bias_initializer, out_size))
                layers.append(weights)
        super().__init__(*layers)
        self._gather_parameters()
        self.n_layers = n_layers
        self.dropout = dropout
        self.out_size = out_size
        self.direction = direction

    def _gather_parameters(self) -> None:
        # ws[k][j] is child k's wj and bs[k][j] its bj, as the n-step functions take them.
        # compat: plain lists, built once (and again by copy), as Chainer's: code that
        # overrides rnn() may change an entry (yukarin_autoreg masks ws[0][0] in place of the
        # Parameter), and the change lasts until the lists are rebuilt, as there.
        self.ws = [[getattr(layer, f"w{index}") for index in range(self.n_weights)]
                   for layer in self]
        self.bs = [[getattr(layer, f"b{index}") for index in range(self.n_weights)]
                   for layer in self]

    def copy(self, mode: str = "share") -> NStepRNNBase:
        """:meth:`Link.copy`, with ``ws`` and ``bs`` pointing at the copy's own parameters."""
        copied = super().copy(mode)
        copied._gather_parameters()
        return copied

    @property
    def n_cells(self) -> int:
        """Number of state arrays per layer: 2 for LSTMs (hidden and cell), 1 otherwise."""
        return 1

    def init_hx(self, xs: Sequence[Any]) -> variable.Variable:
        """Zero initial states of shape ``(n_layers * direction, len(xs), out_size)``, on the
        link's device and of the inputs' dtype."""
        shape = (self.n_layers * self.direction, len(xs), self.out_size)
        with self.device.create_context():
            return variable.Variable(self.xp.zeros(shape, dtype=xs[0].dtype))

    def rnn(self, *args: Any) -> Any:
        """Applies the n-step function of this link; subclasses define it."""
        raise NotImplementedError

    def forward(self, hx: Any, xs: Sequence[Any],
                **kwargs: Any) -> tuple[variable.Variable, list[variable.Variable]]:
        """Runs the layers over a batch of sequences.

        Args:
            hx: Initial hidden states, shape ``(n_layers * direction, B, out_size)``, or None
                for zeros.
            xs: ``B`` sequences (Variables or arrays of shape ``(L_b, in_size)``), in any
                order of length.

        Returns:
            ``(hy, ys)``: the last hidden states, shaped as ``hx``, and the outputs of the
            last layer, ``ys[b]`` of shape ``(L_b, direction * out_size)``, in the order of
            ``xs``.
        """
        (hy,), ys = self._call([hx], xs, **kwargs)
        return hy, ys

    def _call(self, states: Sequence[Any], xs: Sequence[Any],
              **kwargs: Any) -> tuple[list[variable.Variable], list[variable.Variable]]:
        """Sorts the sequences by length, runs :meth:`rnn` time-major, and undoes the sort."""
        if kwargs:
            argument.check_unexpected_kwargs(
                kwargs,
                train="train argument is not supported anymore. Use chainer.using_config")
            argument.assert_kwargs_empty(kwargs)
        if not isinstance(xs, (list, tuple)):
            raise TypeError(
                f"xs must be a list or tuple of sequences, got {type(xs).__name__}")
        order = argsort_list_descent(xs)
        device_order = self.device.send(order)
        xs = permutate_list(xs, order, inv=False)
        initial = [self.init_hx(xs) if state is None
                   else permutate(state, device_order, axis=1, inv=False)
                   for state in states]
        result = self.rnn(self.n_layers, self.dropout, *initial, self.ws, self.bs,
                          transpose_sequence(xs))
        final = [permutate(state, device_order, axis=1, inv=True) for state in result[:-1]]
        ys = permutate_list(list(transpose_sequence(result[-1])), order, inv=True)
        return final, ys


class _NStepElmanRNN(NStepRNNBase):
    """An Elman RNN link: ``rnn`` calls the one- or two-directional function, as
    ``use_bi_direction`` says, with the activation the subclass names in ``_activation``."""

    n_weights = 2
    _activation: str

    def rnn(self, *args: Any) -> Any:
        n_layers, dropout, hx, ws, bs, xs = args
        function = (rnn_functions.n_step_birnn if self.use_bi_direction
                    else rnn_functions.n_step_rnn)
        return function(n_layers, dropout, hx, ws, bs, xs, activation=self._activation)


class NStepRNNTanh(_NStepElmanRNN):
    """Stacked one-directional Elman RNN with tanh over variable-length sequences.

    See :class:`NStepRNNBase` for the arguments and :func:`chainer.functions.n_step_rnn` for
    the computation.
    """

    use_bi_direction = False
    _activation = "tanh"


class NStepRNNReLU(_NStepElmanRNN):
    """Stacked one-directional Elman RNN with ReLU over variable-length sequences.

    See :class:`NStepRNNBase` for the arguments and :func:`chainer.functions.n_step_rnn` for
    the computation.
    """

    use_bi_direction = False
    _activation = "relu"


class NStepBiRNNTanh(_NStepElmanRNN):
    """Stacked two-directional Elman RNN with tanh over variable-length sequences.

    See :class:`NStepRNNBase` for the arguments and :func:`chainer.functions.n_step_birnn`
    for the computation.
    """

    use_bi_direction = True
    _activation = "tanh"


class NStepBiRNNReLU(_NStepElmanRNN):
    """Stacked two-directional Elman RNN with ReLU over variable-length sequences.

    See :class:`NStepRNNBase` for the arguments and :func:`chainer.functions.n_step_birnn`
    for the computation.
    """

    use_bi_direction = True
    _activation = "relu"
