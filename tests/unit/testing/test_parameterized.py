"""Tests for chainer_compat.testing.parameterized: generated class names, counts and behaviour."""

from __future__ import annotations

import inspect
import sys
import textwrap
import types
import unittest
from collections.abc import Iterator

import numpy
import pytest

from chainer_compat import testing
from chainer_compat.testing import parameterized


@pytest.fixture
def sandbox() -> Iterator[types.ModuleType]:
    """A throwaway module to define decorated test classes in, as a real test module would."""
    module = types.ModuleType("chainer_compat_parameterize_sandbox")
    sys.modules[module.__name__] = module
    yield module
    del sys.modules[module.__name__]


def define(module: types.ModuleType, source: str) -> None:
    exec(textwrap.dedent(source), module.__dict__)  # noqa: S102 - test code we write


def generated_classes(module: types.ModuleType) -> dict[str, type]:
    return {name: value for name, value in vars(module).items()
            if isinstance(value, type) and name.startswith("Test")}


def test_parameterize_names_each_class_by_index_and_sorted_params(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.parameterize({"b": 2, "a": 1}, {"a": "x", "b": None})
        class TestFoo(unittest.TestCase):
            def test_it(self):
                pass
    """)
    assert sorted(generated_classes(sandbox)) == [
        "TestFoo_param_0_{a=1, b=2}",
        "TestFoo_param_1_{a='x', b=None}",
    ]


def test_parameterize_binds_original_name_to_a_non_class(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.parameterize({"a": 1})
        class TestFoo(unittest.TestCase):
            def test_it(self):
                pass
    """)
    assert not isinstance(sandbox.TestFoo, type)
    assert "TestFoo" not in generated_classes(sandbox)


def test_parameterize_sets_params_as_attributes(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.parameterize({"a": 1, "shape": (2, 3)}, {"a": 5, "shape": ()})
        class TestFoo(unittest.TestCase):
            def test_it(self):
                pass
    """)
    first = getattr(sandbox, "TestFoo_param_0_{a=1, shape=(2, 3)}")
    second = getattr(sandbox, "TestFoo_param_1_{a=5, shape=()}")
    assert (first.a, first.shape) == (1, (2, 3))
    assert (second.a, second.shape) == (5, ())


def test_parameterize_names_types_and_functions_by_name(sandbox):
    define(sandbox, """
        import unittest
        import numpy
        from chainer_compat import testing

        def double(x):
            return 2 * x

        @testing.parameterize({"dtype": numpy.float32, "f": double, "op": numpy.add})
        class TestFoo(unittest.TestCase):
            def test_it(self):
                pass
    """)
    assert list(generated_classes(sandbox)) == ["TestFoo_param_0_{dtype=float32, f=double, op=add}"]


def test_parameterize_shortens_long_values_in_the_middle():
    name = parameterized._class_name("TestFoo", 0, {"a": "x" * 500})
    value = name[len("TestFoo_param_0_{a="):-1]
    assert len(value) == 100
    assert value.startswith("'xxx") and value.endswith("xxx'") and "..." in value


def test_parameterized_function_param_is_called_without_self(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        def double(x):
            return 2 * x

        @testing.parameterize({"f": double})
        class TestFoo(unittest.TestCase):
            def test_it(self):
                self.assertEqual(self.f(4), 8)
    """)
    (cls,) = generated_classes(sandbox).values()
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(cls).run(result)
    assert result.testsRun == 1 and result.wasSuccessful()


def test_stacked_parameterize_multiplies_classes_and_drops_intermediate_ones(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.parameterize({"a": 1}, {"a": 2})
        @testing.parameterize({"b": 3}, {"b": 4}, {"b": 5})
        class TestFoo(unittest.TestCase):
            def test_it(self):
                pass
    """)
    names = sorted(generated_classes(sandbox))
    assert len(names) == 6
    assert names[0] == "TestFoo_param_0_{b=3}_param_0_{a=1}"
    assert "TestFoo_param_2_{b=5}_param_1_{a=2}" in names
    # The classes of the inner decorator are bases now, not tests.
    assert all(name.count("_param_") == 2 for name in names)


def test_parameterize_works_with_unittest_loader(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.parameterize(*testing.product({"a": [1, 2], "b": [3]}))
        class TestFoo(unittest.TestCase):
            def test_one(self):
                assert self.b == 3

            def test_two(self):
                assert self.a in (1, 2)
    """)
    suite = unittest.defaultTestLoader.loadTestsFromModule(sandbox)
    result = unittest.TestResult()
    suite.run(result)
    assert result.testsRun == 4
    assert result.wasSuccessful()


def test_parameterized_failure_names_base_method_and_params(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.parameterize({"a": 7})
        class TestFoo(unittest.TestCase):
            def test_it(self):
                raise ValueError("boom")
    """)
    (cls,) = generated_classes(sandbox).values()
    with pytest.raises(ValueError) as info:
        cls("test_it").test_it()
    message = str(info.value)
    assert "Parameterized test failed." in message
    assert "Base test method: TestFoo.test_it" in message
    assert "  a: 7" in message
    assert "ValueError: boom" in message


def test_parameterized_skip_is_not_wrapped(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.parameterize({"a": 7})
        class TestFoo(unittest.TestCase):
            def test_it(self):
                self.skipTest("not today")
    """)
    (cls,) = generated_classes(sandbox).values()
    with pytest.raises(unittest.SkipTest, match="not today"):
        cls("test_it").test_it()


def test_parameterize_rejects_a_function():
    def test_function():
        pass

    with pytest.raises(TypeError, match="must decorate a test class"):
        testing.parameterize({"a": 1})(test_function)


def test_parameterize_rejects_non_dict_params():
    with pytest.raises(TypeError, match="parameterize arguments must be dicts"):
        testing.parameterize([{"a": 1}])


def test_product_of_dict_sorts_keys_and_varies_last_key_fastest():
    assert testing.product({"b": [1, 2], "a": ["x", "y"]}) == [
        {"a": "x", "b": 1}, {"a": "x", "b": 2}, {"a": "y", "b": 1}, {"a": "y", "b": 2}]


def test_product_of_dict_with_joined_names_unpacks_tuples():
    params = {"shape,axis": [((2, 3), 0), ((4,), None)], "dtype": [numpy.float32]}
    assert testing.product(params) == [
        {"dtype": numpy.float32, "shape": (2, 3), "axis": 0},
        {"dtype": numpy.float32, "shape": (4,), "axis": None},
    ]


def test_product_of_lists_of_dicts_merges_one_dict_from_each():
    result = testing.product([
        [{"a": 1, "b": 2}, {"a": 10, "b": 20}],
        [{"c": 3}, {"c": 4}, {"c": 5}],
    ])
    assert len(result) == 6
    assert result[0] == {"a": 1, "b": 2, "c": 3}
    assert result[-1] == {"a": 10, "b": 20, "c": 5}


@pytest.mark.parametrize("bad", [[{"a": 1}], [[1, 2]], 3, "ab"])
def test_product_rejects_other_shapes(bad):
    with pytest.raises(TypeError, match="parameter must be"):
        testing.product(bad)


def test_product_dict_later_dicts_override_and_count_multiplies():
    result = testing.product_dict(
        [{"a": 1}, {"a": 2}], [{"b": 1}, {"b": 2}, {"b": 3}], [{"a": 0, "c": 9}])
    assert len(result) == 6
    assert all(item == {"a": 0, "b": item["b"], "c": 9} for item in result)
    assert [item["b"] for item in result] == [1, 2, 3, 1, 2, 3]


def test_product_generates_one_class_per_combination(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.parameterize(*testing.product({"a": [1, 2, 3], "b": [True, False]}))
        class TestFoo(unittest.TestCase):
            def test_it(self):
                pass
    """)
    names = sorted(generated_classes(sandbox))
    assert len(names) == 6
    assert names[0] == "TestFoo_param_0_{a=1, b=True}"
    assert names[-1] == "TestFoo_param_5_{a=3, b=False}"


def test_from_pytest_parameterize_builds_dicts():
    assert testing.from_pytest_parameterize("a,b", [(1, 2), (3, 4)]) == [
        {"a": 1, "b": 2}, {"a": 3, "b": 4}]
    assert testing.from_pytest_parameterize("a", [(1, 2), 3]) == [{"a": (1, 2)}, {"a": 3}]
    with pytest.raises(ValueError, match="tuple of 2 values"):
        testing.from_pytest_parameterize("a,b", [(1, 2, 3)])


def test_parameterize_pytest_generates_classes(sandbox):
    define(sandbox, """
        import unittest
        from chainer_compat import testing

        @testing.parameterize_pytest("a,b", [(1, 2), (3, 4)])
        class TestFoo(unittest.TestCase):
            def test_it(self):
                pass
    """)
    assert sorted(generated_classes(sandbox)) == ["TestFoo_param_0_{a=1, b=2}",
                                             "TestFoo_param_1_{a=3, b=4}"]


def test_parameterize_on_plain_class_keeps_fixture_signature(sandbox):
    define(sandbox, """
        from chainer_compat import testing

        @testing.parameterize({"a": 1})
        class TestFoo:
            def test_it(self, tmp_path, value=3):
                return self.a, tmp_path, value
    """)
    (cls,) = generated_classes(sandbox).values()
    assert list(inspect.signature(cls.test_it).parameters) == ["self", "tmp_path", "value"]
    assert cls().test_it("path") == (1, "path", 3)
