"""Random DAGs over operators, functions and custom nodes of every style: gradients are right.

Each graph (``tests/strategies.py``) is differentiated by every front door and engine path:
``Variable.backward`` (plain, retain_grad, debug, hooked, lazy_grad_sum), ``chainer.backward``
and ``chainer.grad`` (with and without double backprop). All must agree with each other and with
a float64 numerical gradient, and every function's backward must run exactly once per backprop.
"""

from __future__ import annotations

import pathlib
import sys

import numpy
from hypothesis import assume, given, note

import chainer_compat as C
import chainer_compat.functions as F
from chainer_compat import Variable
from chainer_compat.gradient_check import numerical_grad

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # tests/: strategies.py
import strategies
from strategies import (
    OPS,
    BackwardCounter,
    build,
    custom_backward_counts,
    finite_and_tame,
    graph_functions,
    graph_recipes,
    leaf_arrays,
    loss_value,
    profile_settings,
)

TWICE_OPS = sorted(name for name, spec in OPS.items() if spec.twice)


def as_array(grad, like):
    """A gradient as an array, zeros where the engine gave None (no path to the loss)."""
    if grad is None:
        return numpy.zeros_like(like)
    return grad.array if isinstance(grad, Variable) else grad


def assert_same(actual, expected, what):
    for index, (a, e) in enumerate(zip(actual, expected)):
        numpy.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-12,
                                      err_msg=f"{what}: leaf {index}")


def fresh(recipe, arrays):
    leaves = [Variable(a.copy()) for a in arrays]
    return leaves, build(recipe, leaves)


def leaf_grads(leaves):
    return [as_array(x.grad, x.array) for x in leaves]


@profile_settings(150)
@given(recipe=graph_recipes())
def test_every_path_gives_the_numerical_gradient_with_each_backward_run_once(recipe):
    note(repr(recipe))
    arrays = leaf_arrays(recipe)
    leaves, built = fresh(recipe, arrays)
    assume(finite_and_tame(built))

    # Variable.backward on the plain fast path: each custom node's backward runs exactly once.
    assert custom_backward_counts(built.custom_nodes) == [0] * len(built.custom_nodes)
    built.loss.backward()
    assert custom_backward_counts(built.custom_nodes) == [1] * len(built.custom_nodes)
    expected = leaf_grads(leaves)

    numerical = numerical_grad(lambda: (loss_value(recipe, arrays),), arrays, (1.0,), eps=1e-6)
    scale = max(1.0, max(float(numpy.abs(g).max()) for g in numerical))
    for index, (actual, numeric) in enumerate(zip(expected, numerical)):
        numpy.testing.assert_allclose(actual, numeric, rtol=1e-5, atol=1e-6 * scale,
                                      err_msg=f"leaf {index} against the numerical gradient")

    # A second backward accumulates into the leaves, again running each backward once.
    built.loss.backward()
    assert custom_backward_counts(built.custom_nodes) == [2] * len(built.custom_nodes)
    assert_same(leaf_grads(leaves), [2 * g for g in expected], "second backward")

    # Every function node of the graph runs its backward once, with a hook watching.
    leaves, built = fresh(recipe, arrays)
    counter = BackwardCounter()
    with counter:
        built.loss.backward()
    functions = graph_functions(built.loss)
    assert sorted(counter.counts) == sorted(id(f) for f in functions)
    assert set(counter.counts.values()) == {1}
    assert_same(leaf_grads(leaves), expected, "backward with a global hook")

    for what, keywords, config in [
        ("retain_grad", {"retain_grad": True}, None),
        ("debug mode", {}, ("debug", True)),
        ("lazy_grad_sum", {}, ("lazy_grad_sum", True)),
    ]:
        if config is None:
            leaves, built = fresh(recipe, arrays)
            built.loss.backward(**keywords)
        else:
            with C.using_config(*config):
                leaves, built = fresh(recipe, arrays)
                built.loss.backward(**keywords)
        assert_same(leaf_grads(leaves), expected, what)
        assert custom_backward_counts(built.custom_nodes) == [1] * len(built.custom_nodes)

    leaves, built = fresh(recipe, arrays)
    C.backward([built.loss], [numpy.ones_like(built.loss.array)])
    assert_same(leaf_grads(leaves), expected, "chainer.backward")

    for double in (False, True):
        leaves, built = fresh(recipe, arrays)
        grads = C.grad([built.loss], leaves, enable_double_backprop=double)
        assert all(x.grad is None for x in leaves)  # grad() leaves .grad alone
        assert_same([as_array(g, x.array) for g, x in zip(grads, leaves)], expected,
                    f"chainer.grad(enable_double_backprop={double})")
        assert custom_backward_counts(built.custom_nodes) == [1] * len(built.custom_nodes)


def first_order_projection(recipe, arrays, directions):
    """sum_i <d loss / d leaf_i, direction_i>, by a first-order grad() on a fresh graph."""
    leaves = [Variable(a) for a in arrays]
    grads = C.grad([build(recipe, leaves).loss], leaves)
    return numpy.asarray(sum(float((as_array(g, x.array) * d).sum())
                             for g, x, d in zip(grads, leaves, directions)))


@profile_settings(40)
@given(recipe=graph_recipes(max_steps=6, ops=TWICE_OPS))
def test_double_backprop_gives_the_numerical_second_derivative(recipe):
    note(repr(recipe))
    arrays = leaf_arrays(recipe)
    leaves, built = fresh(recipe, arrays)
    assume(finite_and_tame(built, bound=1e2))
    rng = numpy.random.RandomState(recipe.seed + 2)
    directions = [rng.uniform(-1, 1, a.shape) for a in arrays]

    grads = C.grad([built.loss], leaves, enable_double_backprop=True)
    terms = [F.sum(g * d) for g, d in zip(grads, directions) if g is not None]
    assume(terms)
    projection = terms[0]
    for term in terms[1:]:
        projection = projection + term
    second = C.grad([projection], leaves)
    actual = [as_array(g, x.array) for g, x in zip(second, leaves)]

    numerical = numerical_grad(lambda: (first_order_projection(recipe, arrays, directions),),
                               arrays, (1.0,), eps=1e-5)
    scale = max(1.0, max(float(numpy.abs(g).max()) for g in numerical))
    for index, (a, n) in enumerate(zip(actual, numerical)):
        numpy.testing.assert_allclose(a, n, rtol=1e-4, atol=1e-5 * scale,
                                      err_msg=f"second derivative, leaf {index}")


def test_vocabulary_covers_every_style_and_the_strategy_draws_them():
    kinds = {spec.kind for spec in OPS.values()}
    assert kinds == {"operator", "function", "new", "old", "ctx"}
    # Dozens of seeded recipes use every kind: the vocabulary is not dead weight.
    seen = set()
    for seed in range(40):
        seen |= strategies.recipe_from_seed(seed).kinds
    assert seen == kinds
