"""A Chainer-style unittest module, run by test_backend_config.py in a pytest subprocess.

Not collected by the suite itself (its name does not start with ``test_``).
"""

import unittest

from chainer_compat import testing
from chainer_compat.testing import attr


@testing.parameterize(*testing.product({"scale": [1, 2]}))
@testing.inject_backend_tests(
    ["test_forward"],
    [
        {},
        {"use_cuda": True},
    ])
class TestLegacy(unittest.TestCase):

    def setUp(self):
        self.offset = 10

    def test_forward(self, backend_config):
        xp = backend_config.xp
        total = xp.arange(3).sum() * self.scale + self.offset
        assert int(total) == 3 * self.scale + 10

    def test_plain(self):
        self.assertIn(self.scale, (1, 2))

    @attr.gpu
    def test_explicit_gpu(self):
        import cupy
        self.assertEqual(int(cupy.arange(3).sum()), 3)


testing.run_module(__name__, __file__)
