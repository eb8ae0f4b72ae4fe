"""Trainer: extension registration, call order, the run loop, errors, elapsed time."""

from __future__ import annotations

import pytest

from chainer_compat.testing import get_trainer_with_mock_updater
from chainer_compat.training import (
    PRIORITY_EDITOR,
    PRIORITY_READER,
    PRIORITY_WRITER,
    Extension,
    Trainer,
    make_extension,
)


class _Recorder(Extension):
    def __init__(self, log, label, **attributes):
        self.log = log
        self.label = label
        for key, value in attributes.items():
            setattr(self, key, value)

    def __call__(self, trainer):
        self.log.append((self.label, trainer.updater.iteration))

    def initialize(self, trainer):
        self.log.append((self.label, "initialize"))

    def finalize(self):
        self.log.append((self.label, "finalize"))


def test_extensions_run_by_priority_then_registration_order(tmp_path):
    log = []
    trainer = get_trainer_with_mock_updater(stop_trigger=(2, "iteration"))
    trainer.out = str(tmp_path)
    trainer.extend(_Recorder(log, "reader"), priority=PRIORITY_READER)
    trainer.extend(_Recorder(log, "writer"), priority=PRIORITY_WRITER)
    trainer.extend(_Recorder(log, "editor_a", priority=PRIORITY_EDITOR))
    trainer.extend(_Recorder(log, "editor_b", priority=PRIORITY_EDITOR))
    trainer.run()
    order = ["writer", "editor_a", "editor_b", "reader"]
    expected = [(label, "initialize") for label in order]
    for iteration in (1, 2):
        expected += [(label, iteration) for label in order]
    expected += [(label, "finalize") for label in order]
    assert log == expected


def test_extension_triggers_select_iterations(tmp_path):
    log = []
    trainer = get_trainer_with_mock_updater(stop_trigger=(7, "iteration"))
    trainer.out = str(tmp_path)
    trainer.extend(_Recorder(log, "every3"), trigger=(3, "iteration"))
    trainer.extend(_Recorder(log, "class_default", trigger=(2, "iteration")))
    trainer.run()
    every3 = [step for label, step in log if label == "every3" and isinstance(step, int)]
    every2 = [step for label, step in log if label == "class_default" and isinstance(step, int)]
    assert every3 == [i for i in range(1, 8) if i % 3 == 0]
    assert every2 == [i for i in range(1, 8) if i % 2 == 0]


def test_extend_names_extensions_and_suffixes_duplicates():
    trainer = get_trainer_with_mock_updater()

    @make_extension()
    def my_function(trainer):
        pass

    first, second, third = _Recorder([], "a"), _Recorder([], "b"), _Recorder([], "c")
    trainer.extend(first)
    trainer.extend(second)
    trainer.extend(third, name="custom")
    trainer.extend(my_function)
    trainer.extend(lambda trainer: None, name="lambda_ext")
    assert (first.name, second.name, third.name) == ("_Recorder", "_Recorder_1", "custom")
    assert trainer.get_extension("_Recorder_1") is second
    assert trainer.get_extension("my_function") is my_function
    with pytest.raises(ValueError, match="extension missing not found"):
        trainer.get_extension("missing")
    with pytest.raises(ValueError, match='"training" is prohibited'):
        trainer.extend(_Recorder([], "x"), name="training")


def test_extend_refuses_invoke_before_training_and_unknown_keywords():
    trainer = get_trainer_with_mock_updater()
    with pytest.raises(ValueError, match="invoke_before_training has been removed"):
        trainer.extend(_Recorder([], "a"), invoke_before_training=True)
    with pytest.raises(TypeError):
        trainer.extend(_Recorder([], "a"), unknown=True)


def test_make_extension_sets_defaults_and_hooks():
    def on_finalize():
        pass

    @make_extension(trigger=(2, "epoch"), priority=PRIORITY_WRITER, finalizer=on_finalize)
    def extension(trainer):
        pass

    assert extension.trigger == (2, "epoch")
    assert extension.priority == PRIORITY_WRITER
    assert extension.default_name == "extension"
    assert extension.finalize is on_finalize
    assert extension.initialize is None

    @make_extension()
    def plain(trainer):
        pass

    assert plain.trigger == Extension.trigger
    assert plain.priority == Extension.priority
    with pytest.raises(ValueError, match="Use initializer= instead"):
        make_extension(invoke_before_training=True)


def test_extension_defaults_and_removed_attribute_message():
    extension = Extension()
    assert extension.default_name == "Extension"
    assert extension.trigger == (1, "iteration")
    assert extension.priority == PRIORITY_READER
    with pytest.raises(NotImplementedError):
        extension(None)
    with pytest.raises(AttributeError, match="Use Extension.initialize instead"):
        extension.invoke_before_training  # noqa: B018


def test_call_before_training_runs_before_first_update(tmp_path):
    log = []
    trainer = get_trainer_with_mock_updater(stop_trigger=(1, "iteration"))
    trainer.out = str(tmp_path)
    trainer.extend(_Recorder(log, "before"), call_before_training=True)
    trainer.run()
    calls = [step for label, step in log if isinstance(step, int)]
    assert calls == [0, 1]


def test_initialize_is_skipped_for_finished_triggers(tmp_path):
    log = []

    class FinishedTrigger:
        finished = True

        def __call__(self, trainer):
            return False

    trainer = get_trainer_with_mock_updater(stop_trigger=(1, "iteration"))
    trainer.out = str(tmp_path)
    trainer.extend(_Recorder(log, "done"), trigger=FinishedTrigger())
    trainer.run()
    assert ("done", "initialize") not in log
    assert ("done", "finalize") in log


def test_run_creates_out_and_records_elapsed_time(tmp_path):
    out = tmp_path / "nested" / "result"
    trainer = get_trainer_with_mock_updater(stop_trigger=(3, "iteration"))
    trainer.out = str(out)
    with pytest.raises(RuntimeError, match="training has not been started yet"):
        trainer.elapsed_time  # noqa: B018
    trainer.run()
    assert out.is_dir()
    elapsed = trainer.elapsed_time
    assert elapsed >= 0.0
    assert trainer.elapsed_time == elapsed  # frozen once training is done
    assert trainer.updater.iteration == 3
    with pytest.raises(RuntimeError, match="cannot run training loop multiple times"):
        trainer.run()


def test_loop_error_runs_handlers_finalizers_and_reraises(tmp_path, capsys):
    events = []

    class Failing(Extension):
        def __call__(self, trainer):
            if trainer.updater.iteration == 2:
                raise ZeroDivisionError("boom")

        def on_error(self, trainer, exc, tb):
            events.append(("on_error", type(exc).__name__, tb is not None))

        def finalize(self):
            events.append("finalize")

    class BrokenHandler(Extension):
        def __call__(self, trainer):
            pass

        def on_error(self, trainer, exc, tb):
            raise KeyError("handler")

    trainer = get_trainer_with_mock_updater(stop_trigger=(5, "iteration"))
    trainer.out = str(tmp_path)
    trainer.extend(Failing())
    trainer.extend(BrokenHandler())
    with pytest.raises(ZeroDivisionError, match="boom"):
        trainer.run()
    assert events == [("on_error", "ZeroDivisionError", True), "finalize"]
    err = capsys.readouterr().err
    assert "Exception in main training loop: boom" in err
    assert "Will finalize trainer extensions and updater before reraising" in err
    assert "Exception in error handler" in err


def test_loop_error_message_can_be_silenced(tmp_path, capsys):
    def failing(trainer):
        raise ValueError("quiet")

    trainer = get_trainer_with_mock_updater(stop_trigger=(5, "iteration"))
    trainer.out = str(tmp_path)
    trainer.extend(failing)
    with pytest.raises(ValueError, match="quiet"):
        trainer.run(show_loop_exception_msg=False)
    assert "Exception in main training loop" not in capsys.readouterr().err


def test_extensions_given_to_the_constructor_are_registered():
    extension = _Recorder([], "x")
    trainer = get_trainer_with_mock_updater(extensions=[extension])
    assert trainer.get_extension("_Recorder") is extension
    assert isinstance(trainer, Trainer)


def test_name_less_extension_is_refused():
    class Nameless:
        name = None
        default_name = None

        def __call__(self, trainer):
            pass

    trainer = get_trainer_with_mock_updater()
    with pytest.raises(TypeError, match="name is not given"):
        trainer.extend(Nameless())


def test_a_snapshot_without_elapsed_time_loads_as_no_time():
    # A trainer marked done before it ran stores None (chainerio's tests save one that way);
    # Chainer loads it as it is.
    import io

    from chainer_compat import serializers

    done = get_trainer_with_mock_updater()
    done._done = True
    buffer = io.BytesIO()
    serializers.save_npz(buffer, done)
    buffer.seek(0)
    resumed = get_trainer_with_mock_updater()
    serializers.load_npz(buffer, resumed)
    assert resumed._snapshot_elapsed_time == 0.0
