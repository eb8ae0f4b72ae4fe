"""chainer.utils leftovers: ``experimental`` and its package switch, ``nondeterministic`` and
its config switch, ``final``/``enable_final``, ``tempdir``."""

from __future__ import annotations

import abc
import os
import warnings

import pytest

import chainer_compat
from chainer_compat import configuration
from chainer_compat.utils._tempdir import tempdir
from chainer_compat.utils.experimental import experimental
from chainer_compat.utils.meta import enable_final, final
from chainer_compat.utils.nondeterministic import nondeterministic


@pytest.fixture
def experimental_switch(monkeypatch):
    monkeypatch.setattr(chainer_compat, "disable_experimental_feature_warning", False)
    return lambda value: monkeypatch.setattr(
        chainer_compat, "disable_experimental_feature_warning", value)


def test_experimental_warns_future_warning_naming_the_api(experimental_switch):
    with pytest.warns(FutureWarning, match=r"^chainer\.foo\.f is experimental\. The interface"):
        experimental("chainer.foo.f")


def test_experimental_warning_points_at_the_caller(experimental_switch):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        experimental("api")
    assert os.path.samefile(caught[0].filename, __file__)


def test_experimental_is_silenced_by_the_package_switch(experimental_switch):
    experimental_switch(True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        experimental("chainer.foo.f")


def test_nondeterministic_is_silent_by_default():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nondeterministic("f")


def test_nondeterministic_warns_when_configured():
    with configuration.using_config("warn_nondeterministic", True):
        with pytest.warns(UserWarning, match=r"non-deterministic.*Source: my_kernel$"):
            nondeterministic("my_kernel")


def _final_base():
    class Base(enable_final()):
        @final
        def locked(self):
            return "base"

        @final(action=UserWarning)
        def discouraged(self):
            return "base"

        def free(self):
            return "base"

    return Base


def test_overriding_final_method_raises_type_error_at_class_creation():
    base = _final_base()
    with pytest.raises(TypeError, match=r"^method 'locked' is final\.$"):
        class Child(base):
            def locked(self):
                return "child"


def test_overriding_with_warning_action_warns_and_keeps_the_override():
    base = _final_base()
    with pytest.warns(UserWarning, match=r"Overriding method 'discouraged'\."):
        class Child(base):
            def discouraged(self):
                return "child"
    assert Child().discouraged() == "child"


def test_final_checks_reach_grandchildren_and_spare_free_methods():
    base = _final_base()

    class Child(base):
        def free(self):
            return "child"

    assert Child().free() == "child"
    with pytest.raises(TypeError, match="final"):
        class Grandchild(Child):
            def locked(self):
                return "grandchild"


def test_final_with_custom_exception():
    class Base(enable_final()):
        @final(action=NotImplementedError)
        def run(self):
            return 1

    with pytest.raises(NotImplementedError, match="'run' is final"):
        class Child(Base):
            def run(self):
                return 2


def test_enable_final_base_is_absent_from_the_mro_and_keeps_given_bases():
    class Dict(enable_final(base=dict)):
        pass

    assert Dict.__mro__ == (Dict, dict, object)
    assert Dict(a=1)["a"] == 1


def test_enable_final_combines_with_another_metaclass():
    class Abstract(enable_final(meta_base=abc.ABCMeta)):
        @abc.abstractmethod
        def area(self):
            raise NotImplementedError

        @final
        def describe(self):
            return "shape"

    with pytest.raises(TypeError):
        Abstract()

    class Square(Abstract):
        def area(self):
            return 4

    assert Square().area() == 4 and isinstance(Square(), Abstract)
    with pytest.raises(TypeError, match="'describe' is final"):
        class Bad(Abstract):
            def describe(self):
                return "bad"


@pytest.mark.parametrize("arguments, keywords", [
    ((), {"action": int}),
    ((), {"kind": TypeError}),
    ((len, len), {}),
])
def test_final_rejects_bad_arguments_with_type_error(arguments, keywords):
    with pytest.raises(TypeError, match="final"):
        decorator = final(*arguments, **keywords)
        decorator(lambda self: None)


def test_final_rejects_non_callables():
    with pytest.raises(TypeError, match="callable"):
        final(3)


def test_tempdir_exists_inside_and_is_removed_with_contents(tmp_path):
    with tempdir(prefix="chainer-", dir=tmp_path) as path:
        assert os.path.isdir(path)
        assert os.path.basename(path).startswith("chainer-")
        assert os.path.dirname(path) == str(tmp_path)
        with open(os.path.join(path, "file"), "w") as stream:
            stream.write("x")
    assert not os.path.exists(path)


def test_tempdir_is_removed_after_an_exception():
    with pytest.raises(KeyError):
        with tempdir() as path:
            raise KeyError("boom")
    assert not os.path.exists(path)


def test_tempdir_ignore_errors_tolerates_a_vanished_directory():
    import shutil

    with tempdir(ignore_errors=True) as path:
        shutil.rmtree(path)
    with pytest.raises(FileNotFoundError):
        with tempdir() as path:
            shutil.rmtree(path)
