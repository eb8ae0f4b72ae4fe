"""Unit tests for chainer_compat.computational_graph."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy
import pytest

from chainer_compat import FunctionNode, Variable
from chainer_compat import computational_graph as c


class Combine(FunctionNode):
    """Any number of inputs to any number of outputs, all zeros of shape (1, 2)."""

    def __init__(self, n_out=1):
        self.n_out = n_out

    def forward(self, inputs):
        return tuple(numpy.zeros((1, 2), numpy.float32) for _ in range(self.n_out))


def combine(inputs, n_out=1):
    outputs = Combine(n_out).apply(inputs)
    return outputs if n_out > 1 else outputs[0]


def _leaf(name=None):
    return Variable(numpy.zeros((1, 2), numpy.float32), name=name)


def _counts(outputs):
    graph = c.build_computational_graph(outputs)
    return len(graph.nodes), len(graph.edges)


# --- nodes and edges ---------------------------------------------------------------------

def test_chain_nodes_and_edges_from_each_point():
    x = _leaf()
    y = combine((x,))
    z = combine((y,))
    assert _counts((x,)) == (1, 0)
    assert _counts((y,)) == (3, 2)
    assert _counts((z,)) == (5, 4)
    assert _counts((x, y, z)) == (5, 4)


def test_shared_input_reaches_only_the_requested_branches():
    # x -> f -> y1 and x -> g -> y2
    x = _leaf()
    y1 = combine((x,))
    y2 = combine((x,))
    assert _counts((y1,)) == (3, 2)
    assert _counts((y1, y2)) == (5, 4)
    graph = c.build_computational_graph((y1, y2))
    assert sum(node is x.node for node in graph.nodes) == 1


def test_multi_output_function_includes_only_reachable_outputs():
    x = _leaf()
    y1, y2 = combine((x,), n_out=2)
    assert _counts((y1,)) == (3, 2)
    assert _counts((y2,)) == (3, 2)
    graph = c.build_computational_graph((y1, y2))
    f = y1.creator_node
    assert set(graph.edges) == {(x.node, f), (f, y1.node), (f, y2.node)}
    assert set(graph.nodes) == {x.node, f, y1.node, y2.node}


def test_edges_of_an_operator_graph_are_the_expected_pairs():
    x1, x2 = _leaf(), _leaf()
    y = x1 + x2
    f = y.creator_node
    graph = c.build_computational_graph((y,))
    assert len(graph.edges) == 3
    assert set(graph.edges) == {(x1.node, f), (x2.node, f), (f, y.node)}
    assert set(graph.nodes) == {x1.node, x2.node, f, y.node}


def test_input_used_twice_gives_one_edge():
    x = _leaf()
    y = x * x
    graph = c.build_computational_graph(y)
    assert graph.edges.count((x.node, y.creator_node)) == 1
    assert len(graph.nodes) == 3


def test_outputs_may_be_one_node_or_a_function():
    x1, x2, x3 = _leaf(), _leaf(), _leaf()
    y = 0.3 * (x1 + x2) + x3
    assert _counts(y) == (9, 8)
    assert _counts(y.node) == (9, 8)
    assert _counts([y.creator_node]) == (8, 7)  # the function and what it was computed from


def test_unchain_backward_stops_the_walk():
    x = _leaf()
    h = combine((x,))
    y = combine((h,))
    h.unchain_backward()
    assert _counts(y) == (3, 2)


def test_deep_graph_is_walked_without_recursion():
    x = _leaf()
    y = x
    for _ in range(3000):
        y = combine((y,))
    assert _counts(y) == (6001, 6000)


def test_node_order_is_deterministic():
    x1, x2 = _leaf(), _leaf()
    y = (x1 + x2) * x1
    first = c.build_computational_graph(y)
    second = c.build_computational_graph(y)
    assert first.nodes == second.nodes
    assert first.edges == second.edges
    assert first.dump() == second.dump()


def test_invalid_arguments_raise():
    y = combine((_leaf(),))
    with pytest.raises(ValueError, match="remove_split"):
        c.build_computational_graph((y,), remove_split=False)
    with pytest.raises(TypeError, match="element of outputs"):
        c.build_computational_graph((y, numpy.zeros(2)))
    with pytest.raises(ValueError, match="rankdir"):
        c.build_computational_graph((y,), rankdir="TL")
    with pytest.raises(NotImplementedError):
        c.build_computational_graph((y,)).dump(format="svg")


# --- the dot text ------------------------------------------------------------------------

def test_dump_uses_node_ids_and_default_styles():
    x1, x2 = _leaf(), _leaf()
    y = x1 + x2
    f = y.creator_node
    dot = c.build_computational_graph((y,)).dump()
    assert dot.startswith("digraph graphname{rankdir=TB;")
    assert dot.endswith("}")
    assert (f'{id(x1.node)} [label="(1, 2), float32",shape="octagon",fillcolor="#E0E0E0",'
            'style="filled"];') in dot
    assert f'{id(f)} [label="{f.label}",shape="record",fillcolor="#6495ED",style="filled"];' \
        in dot
    for head, tail in [(x1.node, f), (x2.node, f), (f, y.node)]:
        assert f"{id(head)} -> {id(tail)};" in dot


def test_custom_styles_override_label_and_shape():
    x1, x2 = _leaf(), _leaf()
    variable_style = {"label": "variable_0", "shape": "octagon", "style": "filled",
                      "fillcolor": "#E0E0E0"}
    function_style = {"label": "function_0", "shape": "record", "style": "filled",
                      "fillcolor": "#6495ED", "color": "red"}
    dot = c.build_computational_graph(
        (x1 + x2,), variable_style=variable_style, function_style=function_style).dump()
    for style in (variable_style, function_style):
        for key, value in style.items():
            assert f'{key}="{value}"' in dot
    assert dot.count('label="variable_0"') == 3
    assert dot.count('label="function_0"') == 1


def test_none_styles_draw_plain_ovals_and_boxes():
    y = _leaf() + _leaf()
    dot = c.build_computational_graph(y, variable_style=None, function_style=None).dump()
    assert dot.count('shape="oval"') == 3
    assert dot.count('shape="box"') == 1
    assert "fillcolor" not in dot


def test_show_name_prefixes_named_variables():
    x1, x2 = _leaf("x1"), _leaf("x2")
    y = x1 + x2
    y.name = "y"
    shown = c.build_computational_graph((x1, x2, y)).dump()
    hidden = c.build_computational_graph((x1, x2, y), show_name=False).dump()
    for name in ("x1", "x2", "y"):
        assert f'label="{name}: (1, 2), float32"' in shown
        assert f'label="{name}:' not in hidden


@pytest.mark.parametrize("rankdir", ["TB", "BT", "LR", "RL"])
def test_rankdir_is_written(rankdir):
    dot = c.build_computational_graph(_leaf() + _leaf(), rankdir=rankdir).dump()
    assert dot.startswith(f"digraph graphname{{rankdir={rankdir};")


def test_remove_variable_draws_functions_and_edges_between_them():
    x1, x2 = _leaf(), _leaf()
    h = x1 + x2
    f = h.creator_node
    y1 = combine((h,))
    y2 = combine((h,))
    g1, g2 = y1.creator_node, y2.creator_node
    graph = c.build_computational_graph((y1, y2), remove_variable=True)
    dot = graph.dump()
    assert f.label in dot
    for variable in (x1, x2, h, y1, y2):
        assert str(id(variable.node)) not in dot
    edges = set(re.findall(r"(\d+) -> (\d+);", dot))
    assert edges == {(str(id(f)), str(id(g1))), (str(id(f)), str(id(g2)))}
    # Dumping leaves the graph itself as it was.
    assert len(graph.edges) == 7
    assert graph.dump() == dot


def test_quote_in_a_name_is_escaped():
    x = _leaf('say "hi"')
    dot = c.build_computational_graph(x).dump()
    assert 'label="say \\"hi\\": (1, 2), float32"' in dot


def test_dot_node_rejects_other_objects():
    with pytest.raises(TypeError, match="VariableNode or a FunctionNode"):
        c.DotNode(_leaf())
    node = c.DotNode(_leaf("v").node, {"color": "blue"}, show_name=True)
    assert node.attribute == {"label": "v: (1, 2), float32", "shape": "oval", "color": "blue"}


def test_mismatched_edge_raises_type_error_on_dump():
    x = _leaf()
    graph = c.ComputationalGraph([x.node], [(x.node, x.node)])
    with pytest.raises(TypeError, match="VariableNode and a FunctionNode"):
        graph.dump()


def test_dot_output_is_accepted_by_graphviz():
    dot_binary = shutil.which("dot")
    if dot_binary is None:
        pytest.skip("Graphviz's dot binary is not installed")
    x1, x2 = _leaf("x1"), _leaf('quote"d')
    h = abs(x1 * x2) + x1
    y1, y2 = combine((h, x2), n_out=2)
    for remove_variable in (False, True):
        dot = c.build_computational_graph((y1, y2), remove_variable=remove_variable).dump()
        result = subprocess.run([dot_binary, "-Tsvg"], input=dot, capture_output=True,
                                text=True, timeout=60, check=False)
        assert result.returncode == 0, result.stderr
        assert "<svg" in result.stdout
