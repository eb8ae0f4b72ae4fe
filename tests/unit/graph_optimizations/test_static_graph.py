"""@static_graph and @static_code run every call define-by-run, as Chainer does with
``config.use_static_graph`` False (NOTE [static chains run define-by-run])."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
import chainer_compat.functions as F
import chainer_compat.links as L
from chainer_compat import static_code, static_graph
from chainer_compat.graph_optimizations import static_graph_utilities
from chainer_compat.graph_optimizations.static_graph import ScheduleManager


def _mlp_class(decorate):
    class MLP(chainer_compat.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(4, 6)
                self.l2 = L.Linear(6, 3)
            self.side_effects = 0

        @static_code
        def count(self):
            self.side_effects += 1

        @decorate
        def __call__(self, x):
            self.count()
            return self.l2(F.tanh(self.l1(x)))

    return MLP


def _copy_params(source, target):
    for (name, param), (other_name, other) in zip(sorted(source.namedparams()),
                                                  sorted(target.namedparams())):
        assert name == other_name
        other.array[...] = param.array


@pytest.mark.parametrize("decorate", [static_graph, static_graph(verbosity_level=2),
                                      static_graph(force_test_define_by_run=True,
                                                   minimize_cache_size=True,
                                                   enable_double_backprop=True)],
                         ids=["bare", "verbose", "every-option"])
def test_a_static_chain_computes_what_its_code_defines_on_every_call(decorate):
    static, plain = _mlp_class(decorate)(), _mlp_class(lambda f: f)()
    _copy_params(static, plain)
    rng = numpy.random.RandomState(0)
    for _ in range(3):
        x = rng.randn(5, 4).astype(numpy.float32)
        for model in (static, plain):
            model.cleargrads()
            y = model(x)
            F.sum(y * y).backward()
        numpy.testing.assert_array_equal(static(x).array, plain(x).array)
        for (_, a), (_, b) in zip(sorted(static.namedparams()), sorted(plain.namedparams())):
            numpy.testing.assert_array_equal(a.grad, b.grad)
            a.array -= 0.1 * a.grad  # the inputs differ at the next step
            b.array -= 0.1 * b.grad
    # Two calls a step, each running its side effect once.
    assert static.side_effects == plain.side_effects == 6


def test_the_inputs_receive_gradients_and_can_be_differentiated_twice():
    model = _mlp_class(static_graph)()
    x = chainer_compat.Variable(numpy.linspace(-1, 1, 8, dtype=numpy.float32).reshape(2, 4))
    y = F.sum(model(x) ** 2)
    gx, = chainer_compat.grad([y], [x], enable_double_backprop=True)
    ggx, = chainer_compat.grad([F.sum(gx * gx)], [x])
    assert gx.shape == ggx.shape == (2, 4)
    assert numpy.all(numpy.isfinite(ggx.array)) and numpy.any(ggx.array != 0)


def test_a_chain_gets_a_schedule_manager_on_its_first_call_while_static_graphs_are_on():
    model = _mlp_class(static_graph(verbosity_level=1, minimize_cache_size=True))()
    assert not hasattr(model, "schedule_manager")
    model(numpy.zeros((1, 4), numpy.float32))
    manager = model.schedule_manager
    assert isinstance(manager, ScheduleManager)
    assert (manager.verbosity_level, manager.minimize_cache_size) == (1, True)
    manager.end_forward()  # what Chainer asks of code that runs two forwards per backward
    model(numpy.zeros((1, 4), numpy.float32))
    assert model.schedule_manager is manager
    assert "schedule_manager" not in dict(model.namedlinks())


def test_no_schedule_manager_for_test_mode_calls_that_run_define_by_run_in_chainer_too():
    model = _mlp_class(static_graph(force_test_define_by_run=True))()
    with chainer_compat.using_config("train", False):
        model(numpy.zeros((1, 4), numpy.float32))
    assert not hasattr(model, "schedule_manager")
    model(numpy.zeros((1, 4), numpy.float32))
    assert isinstance(model.schedule_manager, ScheduleManager)


def test_the_bare_decorators_manager_keeps_chainers_defaults():
    model = _mlp_class(static_graph)()
    model(numpy.zeros((1, 4), numpy.float32))
    # Chainer's decorator passes minimize_cache_size=False unless told otherwise.
    assert (model.schedule_manager.minimize_cache_size,
            model.schedule_manager.verbosity_level) == (False, 0)


def test_no_schedule_manager_when_static_graphs_are_off():
    model = _mlp_class(static_graph)()
    with chainer_compat.using_config("use_static_graph", False):
        model(numpy.zeros((1, 4), numpy.float32))
    assert not hasattr(model, "schedule_manager")


def test_the_decorators_keep_the_wrapped_functions_name_and_docstring():
    def forward(self, x):
        """Doc."""
        return x

    for wrapped in (static_graph(forward), static_graph(verbosity_level=0)(forward),
                    static_code(forward), static_code(func_name="f")(forward)):
        assert wrapped.__name__ == "forward" and wrapped.__doc__ == "Doc."
        assert wrapped(None, 3) == 3  # not a Link: no schedule manager to attach


def test_a_static_code_function_runs_on_every_call_with_its_arguments():
    calls = []

    @static_code(func_name="record")
    def record(value, scale=1):
        calls.append(value * scale)
        return len(calls)

    assert record(2) == 1 and record(3, scale=10) == 2
    assert calls == [2, 30]


@pytest.mark.parametrize("decorator", [static_graph, static_code])
def test_positional_options_are_refused(decorator):
    with pytest.raises(TypeError, match=f"{decorator.__name__} takes a"):
        decorator(2)


@pytest.mark.parametrize(("decorator", "keyword"), [(static_graph, "verbose"),
                                                     (static_code, "name")])
def test_a_misspelt_option_is_refused_with_the_ones_it_takes(decorator, keyword):
    with pytest.raises(TypeError, match=f"unexpected keyword arguments \\['{keyword}'\\]"):
        decorator(**{keyword: 1})


def test_static_forward_optimizations_runs_the_nodes_forward_on_a_tuple():
    class Double(chainer_compat.FunctionNode):
        def forward(self, inputs):
            assert type(inputs) is tuple
            return inputs[0] * 2,

    y, = static_graph_utilities.static_forward_optimizations(Double(), [numpy.arange(3.0)])
    numpy.testing.assert_array_equal(y, [0.0, 2.0, 4.0])


def test_the_modules_sit_where_chainers_do():
    import chainer_compat.graph_optimizations as graph_optimizations
    from chainer_compat.graph_optimizations import static_graph as static_graph_module

    assert graph_optimizations.static_code is static_code
    assert static_graph_module.static_graph is static_graph
    assert chainer_compat.static_graph is static_graph
    assert graph_optimizations.static_graph is static_graph_module
