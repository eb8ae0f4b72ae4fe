"""The computational graph behind some Variables, as nodes and edges, dumped as Graphviz dot.

Layer 8: imports ``variable`` and ``function_node``; it only reads the graph those build.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from chainer_compat.function_node import FunctionNode
from chainer_compat.variable import Variable, VariableNode

_Node = VariableNode | FunctionNode
_Edge = tuple[_Node, _Node]

_var_style = {"shape": "octagon", "fillcolor": "#E0E0E0", "style": "filled"}
_func_style = {"shape": "record", "fillcolor": "#6495ED", "style": "filled"}

_RANKDIRS = ("TB", "BT", "LR", "RL")


def _quote(value: Any) -> str:
    # A double quote would end the dot string early; Chainer writes it raw.
    return str(value).replace('"', '\\"')


class DotNode:
    """A graph node with its dot attributes.

    Args:
        node: A VariableNode or FunctionNode.
        attribute: Dot attributes that override the defaults (label, and an ``oval`` shape for
            variables or a ``box`` for functions).
        show_name: Whether a named variable's label starts with ``name: ``.

    Attributes:
        node: The graph node.
        id_: The node's dot id (its ``id()``).
        attribute: The dot attributes, in the order they are written.

    Raises:
        TypeError: If ``node`` is neither a VariableNode nor a FunctionNode.
    """

    def __init__(self, node: _Node, attribute: Mapping[str, Any] | None = None,
                 show_name: bool = True) -> None:
        if isinstance(node, VariableNode):
            label = node.label
            if show_name and node.name is not None:
                label = f"{node.name}: {label}"
            self.attribute: dict[str, Any] = {"label": label, "shape": "oval"}
        elif isinstance(node, FunctionNode):
            self.attribute = {"label": node.label, "shape": "box"}
        else:
            raise TypeError(
                f"node must be a VariableNode or a FunctionNode, got {type(node).__name__}")
        self.node = node
        self.id_ = id(node)
        if attribute is not None:
            self.attribute.update(attribute)

    @property
    def label(self) -> str:
        """The dot statement of this node: ``<id> [key="value",...];``."""
        attributes = ",".join(f'{key}="{_quote(value)}"' for key, value in self.attribute.items())
        return f"{self.id_} [{attributes}];"


def _style(style: Mapping[str, Any] | str | None, default: dict[str, str]) -> dict[str, Any]:
    if style is None:
        return {}  # compat: None means Chainer v1.22's unstyled output
    if isinstance(style, str):
        if style != "default":
            raise ValueError(f"a node style must be a dict, None or 'default', got {style!r}")
        return dict(default)
    return dict(style)


class ComputationalGraph:
    """A directed acyclic graph of VariableNodes and FunctionNodes.

    Args:
        nodes: The VariableNodes and FunctionNodes.
        edges: ``(head, tail)`` pairs: a variable to a function it is an input of, or a
            function to a variable it created.
        variable_style: Dot attributes for variables; ``'default'`` is
            ``{'shape': 'octagon', 'fillcolor': '#E0E0E0', 'style': 'filled'}``; None draws
            plain ovals.
        function_style: Dot attributes for functions; ``'default'`` is
            ``{'shape': 'record', 'fillcolor': '#6495ED', 'style': 'filled'}``; None draws
            plain boxes.
        rankdir: Direction of the drawing: ``'TB'`` (top to bottom), ``'BT'``, ``'LR'`` or
            ``'RL'``.
        remove_variable: Whether the dump shows functions only, with an edge from each function
            to every function that uses one of its outputs.
        show_name: Whether named variables show their name in their label.

    Raises:
        ValueError: If ``rankdir`` is not one of those four.

    Compat:
        Chainer replaces ``nodes`` and ``edges`` with the function-only ones when a graph with
        ``remove_variable=True`` is dumped; here dumping leaves the graph as it was.
    """

    def __init__(self, nodes: list[_Node], edges: list[_Edge],
                 variable_style: Mapping[str, Any] | str | None = "default",
                 function_style: Mapping[str, Any] | str | None = "default",
                 rankdir: str = "TB", remove_variable: bool = False,
                 show_name: bool = True) -> None:
        if rankdir not in _RANKDIRS:
            raise ValueError(f"rankdir must be in TB, BT, LR or RL, got {rankdir!r}")
        self.nodes = nodes
        self.edges = edges
        self.variable_style = _style(variable_style, _var_style)
        self.function_style = _style(function_style, _func_style)
        self.rankdir = rankdir
        self.remove_variable = remove_variable
        self.show_name = show_name

    def _dot_node(self, node: _Node) -> DotNode:
        style = self.variable_style if isinstance(node, VariableNode) else self.function_style
        return DotNode(node, style, self.show_name)

    def _to_dot(self) -> str:
        statements = [f"digraph graphname{{rankdir={self.rankdir};"]
        if self.remove_variable:
            nodes: list[_Node] = [node for node in self.nodes if isinstance(node, FunctionNode)]
            edges = _function_edges(self.nodes, self.edges)
        else:
            nodes = list(self.nodes)
            edges = self.edges
            for head, tail in edges:
                if isinstance(head, VariableNode) == isinstance(tail, VariableNode):
                    raise TypeError(
                        "each edge must join a VariableNode and a FunctionNode, got "
                        f"({type(head).__name__}, {type(tail).__name__})")
        for node in nodes:
            statements.append(self._dot_node(node).label)
        drawn: set[tuple[int, int]] = set()
        for head, tail in edges:
            ids = (id(head), id(tail))
            if ids not in drawn:
                drawn.add(ids)
                statements.append(f"{ids[0]} -> {ids[1]};")
        statements.append("}")
        return "".join(statements)

    def dump(self, format: str = "dot") -> str:
        """Returns the graph as text in the given graph language.

        Args:
            format: Must be ``'dot'`` (Graphviz).

        Raises:
            NotImplementedError: For any other format.
        """
        if format == "dot":
            return self._to_dot()
        raise NotImplementedError(f"format must be 'dot' (the only one supported), got {format!r}")


def _function_edges(nodes: Iterable[_Node], edges: Iterable[_Edge]) -> list[_Edge]:
    """Replaces each variable in the edges by the functions on its sides.

    A variable's head side is its creator and its tail side every function of ``nodes`` that
    takes it as input; an edge whose variable has no function on the needed side is dropped.
    """
    consumers: dict[VariableNode, list[FunctionNode]] = {}
    for node in nodes:
        if isinstance(node, FunctionNode):
            for input_node in node.inputs or ():
                consumers.setdefault(input_node, []).append(node)
    result: list[_Edge] = []
    for head, tail in edges:
        if isinstance(head, VariableNode):
            head = head.creator_node
            if head is None:
                continue
        if isinstance(tail, VariableNode):
            result.extend((head, function) for function in consumers.get(tail, ()))
        else:
            result.append((head, tail))
    return result


def build_computational_graph(
        outputs: Variable | VariableNode | FunctionNode | Iterable[Any],
        remove_split: bool = True,
        variable_style: Mapping[str, Any] | str | None = "default",
        function_style: Mapping[str, Any] | str | None = "default",
        rankdir: str = "TB", remove_variable: bool = False,
        show_name: bool = True) -> ComputationalGraph:
    """Builds the graph of the functions and variables the outputs were computed from.

    The graph holds every node reachable backward from ``outputs``: from a variable to the
    function that created it, from a function to its inputs. Other outputs of a function are
    not included unless reachable themselves, and the walk stops at variables whose creator was
    removed by ``unchain_backward``. The walk is iterative, so deep graphs are fine.

    Args:
        outputs: A Variable, VariableNode or FunctionNode, or an iterable of them.
        remove_split: Must be True; kept for backward compatibility.
        variable_style: Dot attributes for variables (see :class:`ComputationalGraph`).
        function_style: Dot attributes for functions (see :class:`ComputationalGraph`).
        rankdir: ``'TB'``, ``'BT'``, ``'LR'`` or ``'RL'``.
        remove_variable: Whether the dump shows functions only.
        show_name: Whether named variables show their name in their label.

    Returns:
        The :class:`ComputationalGraph`.

    Raises:
        ValueError: If ``remove_split`` is False or ``rankdir`` is invalid.
        TypeError: If an output is not a Variable, VariableNode or FunctionNode.
    """
    if not remove_split:
        raise ValueError("remove_split=False is not supported anymore")
    output_types = (Variable, VariableNode, FunctionNode)
    if isinstance(outputs, output_types):
        outputs = [outputs]
    starts: list[_Node] = []
    for output in outputs:
        if not isinstance(output, output_types):
            raise TypeError(
                "element of outputs must be either Variable, VariableNode, or FunctionNode, "
                f"got {type(output).__name__}")
        starts.append(output.node if isinstance(output, Variable) else output)

    # Dicts keep first-seen order, so the dump is the same from run to run.
    nodes: dict[_Node, None] = dict.fromkeys(starts)
    edges: dict[_Edge, None] = {}
    pending = list(nodes)
    while pending:
        node = pending.pop()
        if isinstance(node, VariableNode):
            creator = node.creator_node
            if creator is None:
                continue
            edges[(creator, node)] = None
            neighbours: tuple[_Node, ...] = (creator,)
        else:
            neighbours = tuple(node.inputs or ())
            for input_node in neighbours:
                edges[(input_node, node)] = None
        for neighbour in neighbours:
            if neighbour not in nodes:
                nodes[neighbour] = None
                pending.append(neighbour)
    return ComputationalGraph(list(nodes), list(edges), variable_style, function_style,
                              rankdir, remove_variable, show_name)
