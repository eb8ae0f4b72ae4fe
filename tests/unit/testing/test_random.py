"""Tests for chainer_compat.testing.random: fix_random and generate_seed."""

from __future__ import annotations

import random
import unittest
from typing import ClassVar

import numpy
import pytest

from chainer_compat import testing
from chainer_compat.testing import condition


def draw() -> tuple[list[float], float]:
    return numpy.random.rand(3).tolist(), random.random()


def test_fixed_function_sees_the_same_numbers_every_time():
    @testing.fix_random()
    def test_it():
        return draw()

    first = test_it()
    second = test_it()
    assert first == second
    assert first[0] == numpy.random.RandomState(100).rand(3).tolist()
    assert first[1] == random.Random(100).random()


def test_seed_can_be_chosen():
    @testing.fix_random(seed=7)
    def test_it():
        return numpy.random.rand(2).tolist()

    assert test_it() == numpy.random.RandomState(7).rand(2).tolist()


def test_global_states_are_restored_after_the_test():
    @testing.fix_random()
    def test_it():
        draw()

    numpy_state = numpy.random.get_state()
    python_state = random.getstate()
    test_it()
    after = numpy.random.get_state()
    assert all(numpy.array_equal(a, b) for a, b in zip(numpy_state[1:3], after[1:3]))
    assert random.getstate() == python_state


def test_states_are_restored_when_the_test_fails():
    @testing.fix_random()
    def test_it():
        draw()
        raise ValueError("fails")

    before = numpy.random.get_state()[1].copy()
    with pytest.raises(ValueError):
        test_it()
    numpy.testing.assert_array_equal(numpy.random.get_state()[1], before)


def test_nondeterministic_environment_variable_unfixes_the_seed(monkeypatch):
    monkeypatch.setenv("CHAINER_TEST_RANDOM_NONDETERMINISTIC", "1")

    @testing.fix_random()
    def test_it():
        return numpy.random.rand(4).tolist()

    # Two draws of four doubles from fresh entropy collide with negligible probability.
    assert test_it() != test_it()


class _Seeded(unittest.TestCase):
    __test__ = False  # run by the tests below, not collected on its own
    seen: ClassVar[list[list[float]]] = []

    def setUp(self):
        self.first = numpy.random.rand()

    def test_a(self):
        self.seen.append([self.first, numpy.random.rand()])

    def test_b(self):
        self.seen.append([self.first, numpy.random.rand()])


def test_fixed_unittest_class_gives_each_method_the_same_numbers():
    cls = testing.fix_random()(type("TestSeeded", (_Seeded,), {"seen": []}))
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(cls).run(result)
    assert result.wasSuccessful() and result.testsRun == 2
    expected = numpy.random.RandomState(100).rand(2).tolist()
    assert cls.seen == [expected, expected]


def test_fixed_parameterized_classes_are_all_seeded():
    module = __import__(__name__, fromlist=["_"])

    @testing.fix_random()
    @testing.parameterize({"a": 1}, {"a": 2})
    class TestSeededBundle(unittest.TestCase):
        seen: ClassVar[list[float]] = []

        def test_it(self):
            self.seen.append(numpy.random.rand())

    names = ["TestSeededBundle_param_0_{a=1}", "TestSeededBundle_param_1_{a=2}"]
    try:
        suite = unittest.TestSuite(
            unittest.defaultTestLoader.loadTestsFromTestCase(getattr(module, name))
            for name in names)
        result = unittest.TestResult()
        suite.run(result)
        assert result.wasSuccessful()
        seen = getattr(module, names[0]).seen
        assert seen == [numpy.random.RandomState(100).rand()] * 2
    finally:
        for name in names:
            delattr(module, name)


@testing.fix_random()
class TestPlainClassIsSeededThroughSetupMethod:
    def setup_method(self, method):
        self.method_name = method.__name__
        self.first = numpy.random.rand()

    def test_first_number_is_seeded(self):
        assert self.method_name == "test_first_number_is_seeded"
        assert self.first == numpy.random.RandomState(100).rand()


@testing.fix_random()
class TestPlainClassWithoutHooks:
    def test_seeded(self):
        assert numpy.random.rand() == numpy.random.RandomState(100).rand()


def test_fix_random_outside_repeat_gives_every_trial_the_same_numbers():
    seen = []

    @testing.fix_random()
    @condition.repeat(3)
    def test_it():
        seen.append(numpy.random.rand())

    test_it()
    # The seed is set once around all trials, so each trial draws the next number.
    assert seen == numpy.random.RandomState(100).rand(3).tolist()


def test_generate_seed_needs_a_fixed_state():
    with pytest.raises(RuntimeError, match="inside a test decorated with fix_random"):
        testing.generate_seed()

    @testing.fix_random()
    def test_it():
        return testing.generate_seed()

    assert test_it() == test_it()


def test_fix_random_rejects_other_objects():
    with pytest.raises(TypeError, match="fix_random must decorate"):
        testing.fix_random()(42)
