"""The suite's own seeding (conftest.py): each test starts from draws fixed by its id."""

from __future__ import annotations

import os
import random
import zlib

import numpy


def _expected_seed(nodeid: str) -> int:
    offset = int(os.environ.get("CHAINER_COMPAT_TEST_SEED", "0"))
    return (zlib.crc32(nodeid.encode()) + offset) % 2**32


def test_global_generators_start_from_the_tests_own_seed(request):
    seed = _expected_seed(request.node.nodeid)
    expected = numpy.random.RandomState(seed).random_sample(4)
    assert numpy.random.random(4).tolist() == expected.tolist()
    assert random.random() == random.Random(seed).random()


def test_another_test_draws_other_numbers(request):
    # Not the same seed for every test: that would check one direction everywhere.
    here = numpy.random.random(4)
    other_test = request.node.nodeid.replace("test_another_test_draws_other_numbers",
                                             "test_global_generators_start_from_the_tests_own_seed")
    elsewhere = numpy.random.RandomState(_expected_seed(other_test)).random_sample(4)
    assert here.tolist() != elsewhere.tolist()
