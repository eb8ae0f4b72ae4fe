"""forget: the forward keeps no graph, backward recomputes it (in_recomputing set), and
double backprop is refused."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.util.forget import forget


def test_gradients_match_numerical():
    rng = numpy.random.default_rng(0)
    a, b = rng.standard_normal(4), rng.standard_normal(4)
    gradient_check.check_backward(lambda a, b: forget(lambda a, b: a * b + a * a, a, b),
                                  (a, b), rng.standard_normal(4))


def test_backward_recomputes_with_in_recomputing_set():
    seen = []

    def function(a):
        seen.append((chainer_compat.config.in_recomputing,
                     chainer_compat.config.enable_backprop))
        return a * 3

    a = chainer_compat.Variable(numpy.ones(2))
    y = forget(function, a)
    assert y.creator is not None and seen == [(False, False)]
    y.grad = numpy.ones(2)
    y.backward()
    assert seen[1] == (True, True)
    numpy.testing.assert_array_equal(a.grad, [3.0, 3.0])


def test_unused_output_gradient_is_skipped():
    a = chainer_compat.Variable(numpy.ones(2))
    first, second = forget(lambda a: (a * 2, a * 5), a)
    second.grad = numpy.ones(2)
    second.backward()
    numpy.testing.assert_array_equal(a.grad, [5.0, 5.0])


def test_double_backprop_and_bad_arguments_are_refused():
    a = chainer_compat.Variable(numpy.ones(2))
    y = forget(lambda a: a * a, a)
    with pytest.raises(RuntimeError, match="double backpropagation"):
        chainer_compat.grad([y], [a], grad_outputs=[numpy.ones(2)],
                            enable_double_backprop=True)
    with pytest.raises(TypeError):
        forget(3, a)
    with pytest.raises(RuntimeError, match="2nd element"):
        forget(lambda a: (a, a.array), a)
