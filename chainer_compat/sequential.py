"""``Sequential``: a ChainList whose layers (links or plain callables) run one after another, with
the list operations of Chainer's ``chainer.Sequential``.

Layer 8: imports link only.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Iterable, Iterator
from typing import Any, SupportsIndex

from chainer_compat.link import ChainList, Link, _check_pairs

__all__ = ["Sequential"]

# NOTE [child order]
# A Sequential keeps two lists: ``_layers``, every callable in call order, and ``_children``,
# the links among them, which ChainList traverses, names ('0', '1', ...) and serializes. Chainer
# does not keep ``_children`` in layer order: a link inserted at layer position ``i > 0`` goes
# into ``_children`` right after position ``p``, where ``p`` is the layer index of the *first*
# link before ``i`` (0 when there is none), clamped to the end; a link inserted at position 0
# goes first. So ``Sequential(a, relu, b, relu, c)`` has children ``[a, c, b]``. The child order
# decides parameter paths (``/1/W`` is ``c.W``) and the keys of saved files, so it is kept: NPZ
# files saved from a Chainer Sequential load here into the same layers.


def _layer_type_name(layer: Any) -> str:
    """The name ``remove_by_layer_type`` and ``count_by_layer_type`` match: a Link's class name,
    else the callable's ``__name__`` (its class name when it has none)."""
    if isinstance(layer, Link):
        return type(layer).__name__
    return getattr(layer, "__name__", type(layer).__name__)


def _is_lambda(layer: Any) -> bool:
    return getattr(layer, "__name__", None) == "<lambda>"


def _require_callable(layer: Any, where: str = "the argument") -> None:
    if not callable(layer):
        # compat: Chainer raises ValueError, not TypeError, for a layer that is not callable;
        # its message comes first.
        raise ValueError(
            f"All elements of {where} should be callable. But given {layer} is not callable. "
            f"Sequential layers must be a Link, a function or another callable object, got "
            f"{type(layer).__name__}")


def _require_sequential_to_copy(link: Any) -> None:
    if not isinstance(link, Sequential):
        raise ValueError(
            "Objects other than Sequential object cannot be copied to a Sequential object. "
            f"Got {type(link).__name__}; copy between Sequentials of the same layers")


def _require_sequential(other: Any, operation: str) -> None:
    if not isinstance(other, Sequential):
        # compat: Chainer raises ValueError here rather than returning NotImplemented.
        raise ValueError(
            f"add (+) operator supports only objects of Sequential class, but {type(other)} is "
            f"given. The other operand of Sequential {operation} must be a Sequential; wrap the "
            "layers in Sequential(...) first")


class Sequential(ChainList):
    """A model whose forward pass calls its layers in order, each on the previous one's output.

    Layers may be :class:`~chainer_compat.Link` objects, functions (such as
    ``chainer_compat.functions.relu``), lambdas or any other callables. Links among them are
    registered as children, so their parameters are traversed, copied, moved and serialized as
    in a :class:`~chainer_compat.ChainList`; plain callables hold no state. The object behaves
    as a list of its layers: indexing, ``len``, iteration, ``in``, ``append``, ``extend``,
    ``insert``, ``remove``, ``pop``, ``clear``, ``index``, ``count``, ``del`` and item
    assignment with integer indices, and ``+``/``+=`` with another Sequential.

    Args:
        *layers: The initial layers, in call order.

    Raises:
        ValueError: If a layer is not callable.

    Compat:
        Children are named in Chainer's order, which is not always layer order (see
        ``NOTE [child order]`` in the source). Where Chainer's list operations disagree with
        Python lists (``index`` with a start, negative indices in item assignment, ``clear``),
        this class follows Python lists, as Chainer's documentation promises.
    """

    def __init__(self, *layers: Any) -> None:
        super().__init__()
        self._layers: list[Any] = []
        for layer in layers:
            self.append(layer)

    # ----------------------------------------------------------------------------- forward
    def forward(self, *x: Any) -> Any:
        """Calls each layer on the previous layer's output, the first one on ``x``.

        A tuple returned by a layer is unpacked into the next layer's positional arguments;
        any other value is passed as the single argument.

        Args:
            *x: The inputs of the first layer.

        Returns:
            The output of the last layer.

        Raises:
            RuntimeError: If the Sequential has no layer.
        """
        if not self._layers:
            raise RuntimeError(
                "Sequential does not have any layer. Append one before calling it.")
        value: Any = x
        for layer in self._layers:
            value = layer(*value) if isinstance(value, tuple) else layer(value)
        return value

    # ----------------------------------------------------------------------------- sequence
    def __len__(self) -> int:
        return len(self._layers)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._layers)

    def __reversed__(self) -> Iterator[Any]:
        return reversed(self._layers)

    def __contains__(self, layer: object) -> bool:
        return layer in self._layers

    def __getitem__(self, i: Any) -> Any:
        """Returns the layer at ``i``, or a plain list of layers for a slice."""
        return self._layers[i]

    def __setitem__(self, index: Any, layer: Any) -> None:
        """Replaces the layer at the integer position ``index`` by ``layer``.

        Raises:
            TypeError: If ``index`` is not an integer (slices are not supported).
            ValueError: If ``index >= len(self)`` or ``layer`` is not callable.
            IndexError: If ``index < -len(self)``.
        """
        position = self._position(index, "assignment")
        _require_callable(layer, "a Sequential class")
        if self._layers[position] is not layer:
            del self[position]
            self.insert(position, layer)

    def __delitem__(self, index: Any) -> None:
        """Removes the layer at the integer position ``index`` (and its child entry).

        Raises:
            TypeError: If ``index`` is not an integer (slices are not supported).
            IndexError: If ``index`` is out of range.
        """
        if not isinstance(index, SupportsIndex):
            raise TypeError(
                f"Sequential indices for deletion must be integers, got {type(index).__name__}; "
                "delete layers one at a time")
        layer = self._layers.pop(index)
        if isinstance(layer, Link):
            # By identity: the same link may sit in other containers under other names.
            for position, child in enumerate(self._children):
                if child is layer:
                    del self._children[position]
                    break
            self._rename_children()

    def insert(self, i: int, layer: Any) -> None:
        """Inserts ``layer`` before the layer at ``i`` (``i == len(self)`` appends).

        Args:
            i: A position from ``-len(self)`` to ``len(self)``.
            layer: A Link or another callable.

        Raises:
            IndexError: If ``i`` is out of that range.
            ValueError: If ``layer`` is not callable.
        """
        size = len(self._layers)
        if not -size <= i <= size:
            raise IndexError(
                f"Index out of range: {i}. A Sequential's insert index must be in "
                f"[{-size}, {size}]")
        _require_callable(layer)
        position = i + size if i < 0 else i
        self._layers.insert(position, layer)
        if isinstance(layer, Link):
            self._children.insert(self._child_slot(position), layer)
            self._rename_children()

    def _child_slot(self, position: int) -> int:
        """Where a link inserted at layer ``position`` goes among the children; see
        NOTE [child order]."""
        if position == 0:
            return 0
        first_link = next((index for index in range(position)
                           if isinstance(self._layers[index], Link)), 0)
        return first_link + 1

    def _position(self, index: Any, operation: str) -> int:
        """``index`` as a position in range for item ``operation``, checked as Chainer does."""
        if not isinstance(index, SupportsIndex):
            raise TypeError(
                f"Sequential indices for {operation} must be integers, got "
                f"{type(index).__name__}; set layers one at a time")
        position = int(index)
        size = len(self._layers)
        if position >= size:
            # compat: Chainer raises ValueError (not IndexError) for an index past the end.
            raise ValueError(
                f"{position} should be less than {size}. Use append() or insert() to add a "
                "layer to a Sequential")
        if position < -size:
            raise IndexError(
                f"Sequential index for {operation} must be at least {-size}, got {position}")
        return position + size if position < 0 else position

    def append(self, layer: Any) -> None:
        """Adds ``layer`` at the end.

        Raises:
            ValueError: If ``layer`` is not callable.
        """
        self.insert(len(self._layers), layer)

    def extend(self, sequential: Iterable[Any]) -> None:
        """Appends every layer of ``sequential`` (a Sequential or any iterable of callables).

        Raises:
            ValueError: If a layer is not callable; then none is appended.
        """
        layers = list(sequential)
        for layer in layers:
            _require_callable(layer)
        for layer in layers:
            self.append(layer)

    def remove(self, layer: Any) -> None:
        """Removes the first occurrence of ``layer``.

        Raises:
            ValueError: If ``layer`` is not among the layers.
        """
        if layer not in self._layers:
            raise ValueError(
                f"There is no layer object that is same as {layer}")
        del self[self._layers.index(layer)]

    def pop(self, i: int = -1) -> Any:
        """Removes and returns the layer at ``i`` (the last one by default).

        Raises:
            IndexError: If the Sequential is empty or ``i`` is out of range.
        """
        layer = self._layers[i]
        del self[i]
        return layer

    def clear(self) -> None:
        """Removes every layer.

        Compat:
            Chainer's ``clear`` leaves every other link registered as a child; here none is.
        """
        self._layers = []
        self._children.clear()

    def index(self, layer: Any, start: int | None = None, end: int | None = None) -> int:
        """Returns the position of the first occurrence of ``layer`` in ``[start, end)``.

        Raises:
            ValueError: If ``layer`` is not found there.

        Compat:
            The position counts from 0 as for a list; Chainer counts it from ``start``.
        """
        begin, stop, _ = slice(start, end).indices(len(self._layers))
        return self._layers.index(layer, begin, stop)

    def count(self, layer: Any) -> int:
        """Returns how many layers equal ``layer``."""
        return self._layers.count(layer)

    def __add__(self, other: Any) -> Sequential:
        """Returns a new Sequential with the layers of ``self`` then those of ``other``.

        The layers are the same objects, not copies.

        Raises:
            ValueError: If ``other`` is not a Sequential.
        """
        _require_sequential(other, "+")
        combined = Sequential()
        combined.extend(self)
        combined.extend(other)
        return combined

    def __iadd__(self, other: Any) -> Sequential:
        """Appends the layers of the Sequential ``other``; returns self.

        Raises:
            ValueError: If ``other`` is not a Sequential.
        """
        _require_sequential(other, "+=")
        self.extend(other)
        return self

    # ----------------------------------------------------------------------------- by type
    def remove_by_layer_type(self, type_name: str) -> None:
        """Removes every layer of the given type.

        Args:
            type_name: A Link's class name (such as ``'Linear'``) or a function's name (such
                as ``'relu'``).
        """
        for layer in [layer for layer in self._layers if _layer_type_name(layer) == type_name]:
            self.remove(layer)

    def count_by_layer_type(self, type_name: str) -> int:
        """Returns how many layers have the given type; see :meth:`remove_by_layer_type`."""
        return sum(1 for layer in self._layers if _layer_type_name(layer) == type_name)

    # ----------------------------------------------------------------------------- copies
    def copy(self, mode: str = "share") -> Sequential:
        """Returns a new Sequential whose links are copies in ``mode`` (see
        :meth:`Link.copy <chainer_compat.Link.copy>`) and whose other layers are shallow copies
        (a function stays the same function).

        Raises:
            ValueError: If ``mode`` is not ``'init'``, ``'copy'`` or ``'share'`` and a layer is
                a link (compat: as in Chainer, whose links check the mode; a Sequential of
                functions alone copies whatever the mode).
        """
        copied = Sequential()
        for layer in self._layers:
            copied.append(layer.copy(mode) if isinstance(layer, Link) else copy.copy(layer))
        return copied

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        """Copies the parameters of each link layer of the Sequential ``link`` into the link
        layer at the same position here.

        Raises:
            ValueError: If ``link`` is not a Sequential.
        """
        _require_sequential_to_copy(link)
        _check_pairs(self, link, "copy", copy_persistent)  # NOTE [copy or add all or nothing]
        for position, layer in enumerate(self._layers):
            if isinstance(layer, Link):
                layer.copyparams(link[position], copy_persistent)

    def _paired_children(self, link: Any, mode: str) -> Iterator[tuple[Link, Any]]:
        if mode == "copy":
            _require_sequential_to_copy(link)
            for position, layer in enumerate(self._layers):
                if isinstance(layer, Link):
                    yield layer, link[position]
            return
        self._check_children_to_add(link)
        yield from zip(self._children, link._children)

    def _check_children_to_add(self, link: Any) -> None:
        others = link._children
        if len(others) < len(self._children):
            # compat: an IndexError, as Chainer's; raised before any gradient is added. A
            # longer link's extra children are left out, as in Chainer.
            raise IndexError(
                f"link must have as many child links as this Sequential ({len(self._children)})"
                f" to add their gradients, got {len(others)}: pass a link of the same structure")

    def addgrads(self, link: Link) -> None:
        # Children are paired with children: ``link[index]`` is a layer, maybe a function.
        self._check_children_to_add(link)
        others = link._children  # type: ignore[attr-defined]
        Link.addgrads(self, link)
        for child, other in zip(self._children, others):
            child.addgrads(other)

    def flatten(self) -> Sequential:
        """Returns a new Sequential with the layers of nested Sequentials spliced in, at every
        depth; the layers themselves are not copied."""
        flat = Sequential()
        for layer in self._layers:
            if isinstance(layer, Sequential):
                flat.extend(layer.flatten())
            else:
                flat.append(layer)
        return flat

    # ----------------------------------------------------------------------------- pickling
    def __reduce__(self) -> Any:
        if any(_is_lambda(layer) for layer in self._layers):
            raise ValueError(
                "This Sequential object has at least one lambda function as its component. "
                "Lambda function can not be pickled, so please consider to use "
                "functools.partial instead of the lambda function or use \"dill\", which is an "
                "external package that enables pickling an object including lambda functions "
                "intead of built-in pickle.")
        return super().__reduce__()

    # ----------------------------------------------------------------------------- text
    def __str__(self) -> str:
        lines = []
        for index, layer in enumerate(self._layers):
            for line in f"({index}): {self._layer_text(layer)},".splitlines():
                lines.append(f"  {line}\n")
        name = type(self).__name__
        return f"{name}(\n{''.join(lines)})" if lines else f"{name}()"

    @staticmethod
    def _layer_text(layer: Any) -> str:
        if _is_lambda(layer):
            # compat: Chainer shows a lambda by its source lines (trailing comma stripped).
            try:
                return inspect.getsource(layer).strip().rstrip(",")
            except (OSError, TypeError):
                return repr(layer)  # no source, as in an interactive session
        return str(layer)
