"""Unit tests for chainer_compat.link_hook (LinkHook, Link's hook API) and link_hooks.TimerHook."""

from __future__ import annotations

import copy
import io
import itertools
import threading

import numpy
import pytest

import chainer_compat
from chainer_compat import Chain, Link, LinkHook
from chainer_compat.link_hook import get_link_hooks
from chainer_compat.link_hooks import TimerHook
from chainer_compat.link_hooks import timer as timer_module


class Double(Link):
    def forward(self, x, scale=1):
        return x * 2 * scale


class Pair(Chain):
    """Calls its two children in turn: three hooked calls per call."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.first = Double()
            self.second = Double()

    def forward(self, x):
        return self.second(self.first(x))


class Failing(Link):
    def forward(self, x):
        raise ValueError("forward failed")


class Recorder(LinkHook):
    """Appends ``(hook name, event, link class, ...)`` to a shared log."""

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


def _calls(log):
    return [entry for entry in log if entry[1] in ("pre", "post")]


# ----------------------------------------------------------------------------- global hooks
def test_global_hook_wraps_forward_and_is_removed_after_the_with_block():
    log = []
    hook = Recorder(log)
    with hook as entered:
        assert entered is hook
        assert get_link_hooks() == {"Recorder": hook}
        assert Double()(3) == 6
    assert get_link_hooks() == {}
    assert log == [("Recorder", "added", None), ("Recorder", "pre", "Double"),
                   ("Recorder", "post", "Double"), ("Recorder", "deleted", None)]
    Double()(1)
    assert len(log) == 4


def test_callback_args_carry_link_name_arguments_and_output():
    seen = []

    class Capture(LinkHook):
        def forward_preprocess(self, args):
            seen.append(("pre", args.link, args.forward_name, args.args, dict(args.kwargs)))

        def forward_postprocess(self, args):
            seen.append(("post", args.link, args.forward_name, args.args, dict(args.kwargs),
                         args.out))

    link = Double()
    with Capture():
        link(3, scale=5)
    assert seen == [("pre", link, "forward", (3,), {"scale": 5}),
                    ("post", link, "forward", (3,), {"scale": 5}, 30)]


def test_preprocess_sees_the_kwargs_dict_forward_receives():
    class SetScale(LinkHook):
        def forward_preprocess(self, args):
            args.kwargs["scale"] = 10

    with SetScale():
        assert Double()(1) == 20


def test_callback_args_repr_names_their_fields():
    reprs = []

    class Capture(LinkHook):
        def forward_preprocess(self, args):
            reprs.append(repr(args))

        def forward_postprocess(self, args):
            reprs.append(repr(args))

    with Capture():
        Double()(2)
    assert reprs[0].startswith("<chainer_compat.link_hook._ForwardPreprocessCallbackArgs link=")
    assert "forward_name=forward args=(2,) kwargs={}" in reprs[0]
    assert reprs[1].endswith("out=4>")


def test_global_hooks_run_in_registration_order_for_pre_and_post():
    log = []
    with Recorder(log, "a"), Recorder(log, "b"):
        Double()(1)
    assert _calls(log) == [("a", "pre", "Double"), ("b", "pre", "Double"),
                           ("a", "post", "Double"), ("b", "post", "Double")]


def test_nested_links_run_hooks_for_each_call():
    log = []
    with Recorder(log):
        assert Pair()(1) == 4
    assert _calls(log) == [("Recorder", "pre", "Pair"), ("Recorder", "pre", "Double"),
                           ("Recorder", "post", "Double"), ("Recorder", "pre", "Double"),
                           ("Recorder", "post", "Double"), ("Recorder", "post", "Pair")]


def test_registering_a_global_name_twice_raises_key_error_and_keeps_the_first():
    first = LinkHook()
    with first:
        with pytest.raises(KeyError, match="hook LinkHook already exists"):
            with LinkHook():
                pass
        assert get_link_hooks() == {"LinkHook": first}
    assert get_link_hooks() == {}


def test_global_hook_whose_added_raises_is_not_left_registered():
    class Refuses(LinkHook):
        def added(self, link):
            raise RuntimeError("refused")

    with pytest.raises(RuntimeError, match="refused"):
        with Refuses():
            pass
    assert get_link_hooks() == {}


def test_global_hook_is_still_registered_while_deleted_runs():
    registered = []

    class Looks(LinkHook):
        def deleted(self, link):
            registered.append(dict(get_link_hooks()))

    hook = Looks()
    with hook:
        pass
    assert registered == [{"LinkHook": hook}]
    assert get_link_hooks() == {}


def test_global_hooks_are_local_to_the_thread():
    log = []
    seen_in_thread = []

    def worker():
        seen_in_thread.append(dict(get_link_hooks()))
        Double()(1)

    with Recorder(log):
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    assert seen_in_thread == [{}]
    assert _calls(log) == []


# ----------------------------------------------------------------------------- local hooks
def test_local_link_hooks_is_an_ordered_dict_made_on_first_access():
    link = Double()
    assert link._local_link_hooks is None
    hooks = link.local_link_hooks
    assert type(hooks) is chainer_compat.link.OrderedDict
    assert hooks == {}
    assert link.local_link_hooks is hooks


def test_add_hook_returns_the_link_and_calls_added_with_it():
    log = []
    link = Double()
    hook = Recorder(log)
    assert link.add_hook(hook) is link
    assert link.local_link_hooks == {"Recorder": hook}
    assert log == [("Recorder", "added", link)]


def test_add_hook_with_a_name_registers_it_under_that_name():
    link = Double()
    hook = LinkHook()
    link.add_hook(hook, name="mine")
    assert list(link.local_link_hooks) == ["mine"]


def test_local_hook_runs_only_for_its_link():
    log = []
    pair = Pair()
    pair.first.add_hook(Recorder(log))
    pair(1)
    assert _calls(log) == [("Recorder", "pre", "Double"), ("Recorder", "post", "Double")]


def test_global_hooks_run_before_local_hooks():
    log = []
    link = Double().add_hook(Recorder(log, "local"))
    with Recorder(log, "global"):
        link(1)
    assert _calls(log) == [("global", "pre", "Double"), ("local", "pre", "Double"),
                           ("global", "post", "Double"), ("local", "post", "Double")]


def test_local_hook_replaces_a_global_hook_of_the_same_name_in_its_place():
    log = []
    link = Double().add_hook(Recorder(log, "shared"))
    with Recorder(log, "first"), Recorder(log, "shared"), Recorder(log, "last"):
        link(1)
    calls = _calls(log)
    assert [name for name, event, _ in calls if event == "pre"] == ["first", "shared", "last"]
    assert len(calls) == 6  # the global "shared" hook was not told


def test_add_hook_rejects_what_is_not_a_link_hook():
    with pytest.raises(TypeError, match="Hook must be of type LinkHook, got FunctionHook"):
        Double().add_hook(chainer_compat.FunctionHook())


def test_add_hook_twice_under_one_name_raises_key_error():
    link = Double()
    first = LinkHook()
    link.add_hook(first)
    with pytest.raises(KeyError, match="Hook LinkHook already exists"):
        link.add_hook(LinkHook())
    assert link.local_link_hooks == {"LinkHook": first}


def test_add_hook_whose_added_raises_leaves_nothing_registered():
    class Refuses(LinkHook):
        def added(self, link):
            raise RuntimeError("refused")

    link = Double()
    with pytest.raises(RuntimeError, match="refused"):
        link.add_hook(Refuses())
    assert link.local_link_hooks == {}


def test_delete_hook_calls_deleted_with_the_link_and_unregisters():
    log = []
    link = Double().add_hook(Recorder(log))
    link.delete_hook("Recorder")
    assert link.local_link_hooks == {}
    assert log[-1] == ("Recorder", "deleted", link)
    link(1)
    assert _calls(log) == []


def test_delete_hook_of_an_unknown_name_raises_key_error():
    link = Double().add_hook(LinkHook())
    with pytest.raises(KeyError, match="Hook other does not exist"):
        link.delete_hook("other")
    assert list(link.local_link_hooks) == ["LinkHook"]


def test_delete_hook_unregisters_even_when_deleted_raises():
    class Complains(LinkHook):
        def deleted(self, link):
            raise RuntimeError("complains")

    link = Double().add_hook(Complains())
    with pytest.raises(RuntimeError, match="complains"):
        link.delete_hook("LinkHook")
    assert link.local_link_hooks == {}


# ----------------------------------------------------------------------------- call path
def test_forward_error_skips_postprocess_and_propagates():
    log = []
    with Recorder(log):
        with pytest.raises(ValueError, match="forward failed"):
            Failing()(1)
    assert _calls(log) == [("Recorder", "pre", "Failing")]


def test_preprocess_error_stops_the_call_before_forward():
    ran = []

    class Stops(LinkHook):
        def forward_preprocess(self, args):
            raise RuntimeError("stop")

    class Counts(Link):
        def forward(self, x):
            ran.append(x)

    with Stops():
        with pytest.raises(RuntimeError, match="stop"):
            Counts()(1)
    assert ran == []


def test_missing_forward_raises_after_the_preprocess_hooks():
    log = []
    with Recorder(log):
        with pytest.raises(AttributeError, match="Link must define forward"):
            Link()(1)
    assert _calls(log) == [("Recorder", "pre", "Link")]


def test_hook_registered_during_forward_is_not_told_of_that_call():
    log = []
    late = Recorder(log, "late")

    class Registers(Link):
        def forward(self, x):
            late.__enter__()
            return x

    with Recorder(log, "early"):
        Registers()(1)
    late.__exit__(None, None, None)
    assert [name for name, event, _ in _calls(log)] == ["early", "early"]


def test_uninitialized_link_is_refused_before_any_hook_runs():
    log = []

    class Skips(Link):
        def __init__(self):
            pass

        def forward(self, x):
            return x

    with Recorder(log):
        with pytest.raises(RuntimeError, match="Link.__init__"):
            Skips()(1)
    assert _calls(log) == []


# ----------------------------------------------------------------------------- TimerHook
@pytest.fixture
def fake_clock(monkeypatch):
    ticks = itertools.count()
    monkeypatch.setattr(timer_module, "_clock", lambda: float(next(ticks)))


def test_timer_records_each_call_and_counts_only_outermost_in_total(fake_clock):
    with TimerHook() as hook:
        Pair()(1)
    # Clock reads: Pair 0, first 1..2, second 3..4, Pair ..5.
    assert hook.call_history == [("Double", 1.0), ("Double", 1.0), ("Pair", 5.0)]
    assert hook.total_time() == 5.0
    assert hook.summary() == {"Double": {"elapsed_time": 2.0, "occurrence": 2},
                              "Pair": {"elapsed_time": 5.0, "occurrence": 1}}
    assert list(hook.summary()) == ["Double", "Pair"]


def test_timer_added_to_one_link_times_only_that_link(fake_clock):
    hook = TimerHook()
    pair = Pair()
    pair.second.add_hook(hook)
    pair(1)
    pair(1)
    assert hook.call_history == [("Double", 1.0), ("Double", 1.0)]
    assert hook.total_time() == 2.0


def test_timer_print_report_formats_a_right_aligned_table():
    hook = TimerHook()
    hook.call_history = [("Double", 0.0015), ("Pair", 0.25), ("Double", 0.0005)]
    out = io.StringIO()
    hook.print_report(file=out)
    assert out.getvalue() == ("LinkName  ElapsedTime  Occurrence\n"
                              "  Double       2.00ms           2\n"
                              "    Pair     250.00ms           1\n")
    out = io.StringIO()
    hook.print_report(unit="auto_foreach", file=out)
    assert out.getvalue().splitlines()[1:] == ["  Double       2.00ms           2",
                                               "    Pair     250.00ms           1"]
    out = io.StringIO()
    hook.print_report(unit="us", file=out)
    assert out.getvalue().splitlines()[2] == "    Pair  250000.00us           1"


def test_timer_print_report_auto_foreach_picks_a_unit_per_row():
    hook = TimerHook()
    hook.call_history = [("Slow", 2.5), ("Fast", 3e-8)]
    out = io.StringIO()
    hook.print_report(unit="auto_foreach", file=out)
    assert out.getvalue().splitlines()[1:] == ["    Slow      2.50sec           1",
                                               "    Fast      30.00ns           1"]


def test_timer_print_report_rejects_an_unknown_unit():
    with pytest.raises(KeyError, match="unit must be one of"):
        TimerHook().print_report(unit="minutes", file=io.StringIO())


def test_timer_print_report_with_no_calls_prints_the_header_only():
    out = io.StringIO()
    TimerHook().print_report(file=out)
    assert out.getvalue() == "LinkName  ElapsedTime  Occurrence\n"


def test_timer_keeps_a_separate_stack_per_thread(fake_clock):
    hook = TimerHook()
    link = Double().add_hook(hook)
    threads = [threading.Thread(target=link, args=(1,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(hook.call_history) == 4
    assert hook.total_time() == sum(seconds for _, seconds in hook.call_history)


def test_timer_copies_without_its_running_state(fake_clock):
    hook = TimerHook()
    Double().add_hook(hook)(1)
    copied = copy.deepcopy(hook)
    assert copied.call_history == hook.call_history
    assert copied._running.stack == []
    assert copied.total_time() == hook.total_time()


def test_timer_on_a_real_clock_measures_nonnegative_times():
    with TimerHook() as hook:
        Double()(numpy.ones(3))
    (name, seconds), = hook.call_history
    assert name == "Double"
    assert seconds >= 0
    assert hook.total_time() == seconds
