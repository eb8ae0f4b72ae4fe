"""A pytest-style module (plain classes, fixtures, parametrize), run by test_backend_config.py in a
pytest subprocess. Not collected by the suite itself (its name does not start with ``test_``).
"""

import pytest

from chainer_compat import testing


@pytest.fixture
def offset():
    return 10


@testing.parameterize({"scale": 1}, {"scale": 3})
@testing.inject_backend_tests(None, [{}, {"use_cuda": True, "use_cudnn": "always"}])
class TestPlain:

    @pytest.mark.parametrize("power", [1, 2])
    def test_forward(self, backend_config, offset, power):
        xp = backend_config.xp
        total = int((xp.ones(2) * self.scale ** power).sum()) + offset
        assert total == 2 * self.scale ** power + 10
