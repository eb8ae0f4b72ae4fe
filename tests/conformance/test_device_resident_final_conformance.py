"""DeviceResident's final methods: a Link subclass that overrides to_device, to_chx or
from_chx is refused when it is defined, one that overrides to_cpu, to_gpu or to_intel64 is
warned about, and links combine with abstract mixins. Set CHAINER_CONFORMANCE_TARGET=chainer to
run this file on Chainer itself.
"""

from __future__ import annotations

import abc
import importlib
import os
import warnings

import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))


@pytest.mark.parametrize("method", ["to_device", "to_chx", "from_chx"])
def test_overriding_a_final_method_is_refused(method):
    with pytest.raises(TypeError, match=f"method '{method}' is final"):
        type("Moving", (chainer.Link,), {method: lambda self, *args: self})


@pytest.mark.parametrize("method", ["to_cpu", "to_gpu", "to_intel64"])
def test_overriding_a_deprecated_mover_warns(method):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        moving = type("Moving", (chainer.Chain,), {method: lambda self, *args: self})
    messages = [str(w.message) for w in caught if w.category is DeprecationWarning]
    assert messages == [f"Overriding method '{method}'."]
    assert issubclass(moving, chainer.Link)


def test_links_combine_with_abstract_mixins():
    class Mixin(abc.ABC):
        @abc.abstractmethod
        def describe(self):
            raise NotImplementedError

    class Half(chainer.Chain, Mixin):
        pass

    with pytest.raises(TypeError):
        Half()  # still abstract

    class Whole(Half):
        def describe(self):
            return "whole"

    assert Whole().describe() == "whole"
    assert isinstance(Whole(), chainer.Link)
