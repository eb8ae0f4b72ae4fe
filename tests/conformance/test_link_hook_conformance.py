"""Link hooks as Chainer 7.8.1 users see them: when LinkHook callbacks run and in which order,
what they are given, Link.add_hook/delete_hook/local_link_hooks, their errors, and TimerHook's
records and report. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import collections
import importlib
import io
import itertools
import os
import threading

import numpy
import pytest

TARGET = os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat")
chainer = importlib.import_module(TARGET)
timer_module = importlib.import_module(f"{TARGET}.link_hooks.timer")
TimerHook = importlib.import_module(f"{TARGET}.link_hooks").TimerHook


class Scale(chainer.Link):
    """y = x * W, with W a (3,) Parameter of twos."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(numpy.full(3, 2, numpy.float32))

    def forward(self, x, offset=0):
        return x * self.W + offset


class Stack(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.inner = Scale()
            self.outer = Scale()

    def forward(self, x):
        return self.outer(self.inner(x))


class Broken(chainer.Link):
    def forward(self, x):
        raise ValueError("broken forward")


class Recorder(chainer.LinkHook):
    def __init__(self, log, name="Recorder"):
        self.log = log
        self.name = name

    def added(self, link):
        self.log.append((self.name, "added", link))

    def deleted(self, link):
        self.log.append((self.name, "deleted", link))

    def forward_preprocess(self, args):
        self.log.append((self.name, "pre", type(args.link).__name__))

    def forward_postprocess(self, args):
        self.log.append((self.name, "post", type(args.link).__name__))


def _x():
    return numpy.ones(3, numpy.float32)


def _calls(log):
    return [entry for entry in log if entry[1] in ("pre", "post")]


def test_link_hook_default_name_is_LinkHook():
    assert chainer.LinkHook.name == "LinkHook"
    assert TimerHook.name == "TimerHook"


def test_with_block_registers_globally_and_reports_added_and_deleted_with_none():
    log = []
    with Recorder(log) as hook:
        assert isinstance(hook, Recorder)
        Scale()(_x())
    Scale()(_x())
    assert log == [("Recorder", "added", None), ("Recorder", "pre", "Scale"),
                   ("Recorder", "post", "Scale"), ("Recorder", "deleted", None)]


def test_callbacks_get_link_forward_name_args_kwargs_and_out():
    seen = {}

    class Capture(chainer.LinkHook):
        def forward_preprocess(self, args):
            seen["pre"] = (args.link, args.forward_name, args.args, dict(args.kwargs))

        def forward_postprocess(self, args):
            seen["post"] = (args.link, args.forward_name, args.args, dict(args.kwargs), args.out)

    link = Scale()
    x = _x()
    with Capture():
        out = link(x, offset=1)
    assert seen["pre"] == (link, "forward", (x,), {"offset": 1})
    assert seen["post"][:4] == (link, "forward", (x,), {"offset": 1})
    assert seen["post"][4] is out
    numpy.testing.assert_array_equal(out.array, numpy.full(3, 3, numpy.float32))


def test_preprocess_may_change_the_keyword_arguments_forward_gets():
    class AddOffset(chainer.LinkHook):
        def forward_preprocess(self, args):
            args.kwargs["offset"] = 10

    with AddOffset():
        out = Scale()(_x())
    numpy.testing.assert_array_equal(out.array, numpy.full(3, 12, numpy.float32))


def test_chain_and_children_each_run_the_hooks_nested():
    log = []
    with Recorder(log):
        Stack()(_x())
    assert _calls(log) == [("Recorder", "pre", "Stack"), ("Recorder", "pre", "Scale"),
                           ("Recorder", "post", "Scale"), ("Recorder", "pre", "Scale"),
                           ("Recorder", "post", "Scale"), ("Recorder", "post", "Stack")]


def test_global_hooks_then_local_hooks_in_registration_order():
    log = []
    link = Scale()
    link.add_hook(Recorder(log, "local1"))
    link.add_hook(Recorder(log, "local2"))
    with Recorder(log, "global1"), Recorder(log, "global2"):
        link(_x())
    names = ["global1", "global2", "local1", "local2"]
    assert _calls(log) == ([(name, "pre", "Scale") for name in names]
                           + [(name, "post", "Scale") for name in names])


def test_local_hook_takes_the_place_of_the_global_hook_with_its_name():
    log = []
    link = Scale()
    link.add_hook(Recorder(log, "b"))
    with Recorder(log, "a"), Recorder(log, "b"), Recorder(log, "c"):
        log.clear()
        link(_x())
    assert [name for name, event, _ in _calls(log) if event == "pre"] == ["a", "b", "c"]
    assert len(_calls(log)) == 6


def test_forward_that_raises_runs_no_postprocess():
    log = []
    with Recorder(log):
        with pytest.raises(ValueError):
            Broken()(_x())
    assert _calls(log) == [("Recorder", "pre", "Broken")]


def test_link_without_forward_raises_attribute_error_after_preprocess():
    log = []
    with Recorder(log):
        with pytest.raises(AttributeError):
            chainer.Link()(_x())
    assert _calls(log) == [("Recorder", "pre", "Link")]


def test_global_registration_is_per_thread():
    log = []
    with Recorder(log):
        thread = threading.Thread(target=lambda: Scale()(_x()))
        thread.start()
        thread.join()
    assert _calls(log) == []


def test_same_global_name_twice_raises_key_error():
    with chainer.LinkHook():
        with pytest.raises(KeyError, match="hook LinkHook already exists"):
            with chainer.LinkHook():
                pass


def test_add_hook_returns_the_link_and_tells_added_the_link():
    log = []
    link = Scale()
    hook = Recorder(log)
    assert link.add_hook(hook) is link
    assert log == [("Recorder", "added", link)]
    assert isinstance(link.local_link_hooks, collections.OrderedDict)
    assert list(link.local_link_hooks.items()) == [("Recorder", hook)]


def test_add_hook_name_overrides_the_hook_name():
    link = Scale()
    link.add_hook(chainer.LinkHook(), name="custom")
    assert list(link.local_link_hooks) == ["custom"]


def test_local_hook_runs_only_for_its_own_link():
    log = []
    stack = Stack()
    stack.outer.add_hook(Recorder(log))
    stack(_x())
    assert _calls(log) == [("Recorder", "pre", "Scale"), ("Recorder", "post", "Scale")]


def test_add_hook_rejects_a_non_link_hook_with_type_error():
    with pytest.raises(TypeError, match="Hook must be of type LinkHook"):
        Scale().add_hook(chainer.FunctionHook())


def test_add_hook_twice_under_one_name_raises_key_error():
    link = Scale().add_hook(chainer.LinkHook())
    with pytest.raises(KeyError, match="Hook LinkHook already exists"):
        link.add_hook(chainer.LinkHook())


def test_delete_hook_tells_deleted_the_link_and_stops_the_calls():
    log = []
    link = Scale().add_hook(Recorder(log))
    link.delete_hook("Recorder")
    link(_x())
    assert log == [("Recorder", "added", link), ("Recorder", "deleted", link)]
    assert len(link.local_link_hooks) == 0


def test_delete_hook_of_an_unknown_name_raises_key_error():
    with pytest.raises(KeyError, match="Hook missing does not exist"):
        Scale().delete_hook("missing")


@pytest.fixture
def fake_clock(monkeypatch):
    ticks = itertools.count()
    # The clock the timer module reads: Chainer names it _get_time, chainer_compat _clock.
    name = "_get_time" if hasattr(timer_module, "_get_time") else "_clock"
    monkeypatch.setattr(timer_module, name, lambda: float(next(ticks)))


def test_timer_records_link_class_names_and_totals_outermost_calls(fake_clock):
    with TimerHook() as hook:
        Stack()(_x())
    assert hook.call_history == [("Scale", 1.0), ("Scale", 1.0), ("Stack", 5.0)]
    assert hook.total_time() == 5.0
    summary = hook.summary()
    assert list(summary) == ["Scale", "Stack"]
    assert summary["Scale"] == {"elapsed_time": 2.0, "occurrence": 2}
    assert summary["Stack"] == {"elapsed_time": 5.0, "occurrence": 1}


def test_timer_added_to_one_link_times_only_it(fake_clock):
    stack = Stack()
    hook = TimerHook()
    stack.inner.add_hook(hook)
    stack(_x())
    assert hook.call_history == [("Scale", 1.0)]
    assert hook.total_time() == 1.0


@pytest.mark.parametrize("unit, expected", [
    ("auto", ["LinkName  ElapsedTime  Occurrence",
              "   Scale       2.00ms           2",
              "   Stack     250.00ms           1"]),
    ("auto_foreach", ["LinkName  ElapsedTime  Occurrence",
                      "   Scale       2.00ms           2",
                      "   Stack     250.00ms           1"]),
    ("sec", ["LinkName  ElapsedTime  Occurrence",
             "   Scale      0.00sec           2",
             "   Stack      0.25sec           1"]),
    ("us", ["LinkName  ElapsedTime  Occurrence",
            "   Scale    2000.00us           2",
            "   Stack  250000.00us           1"]),
])
def test_timer_print_report_table(unit, expected):
    hook = TimerHook()
    hook.call_history = [("Scale", 0.0015), ("Stack", 0.25), ("Scale", 0.0005)]
    out = io.StringIO()
    hook.print_report(unit=unit, file=out)
    assert out.getvalue() == "\n".join(expected) + "\n"


def test_timer_print_report_unknown_unit_raises_key_error():
    hook = TimerHook()
    hook.call_history = [("Scale", 1.0)]
    with pytest.raises(KeyError):
        hook.print_report(unit="minutes", file=io.StringIO())
