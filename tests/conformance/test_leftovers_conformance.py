"""Chainer-visible behaviour of the small leftovers: ``F.cholesky``; ``chainer.utils``'s
``experimental``, ``nondeterministic``, ``final``/``enable_final`` and ``tempdir``; the sampling
initializers; ``testing.condition.QuietTestRunner`` and ``testing.distribution_unittest``;
``CUDAProfileHook`` and the cuDNN-dropout names of ``backends.cuda`` without CUDA; the gradient
nodes of ``functions.math.basic_math``. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file
on Chainer 7.8.1 itself.
"""

from __future__ import annotations

import importlib
import os
import unittest
import warnings

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
basic_math = importlib.import_module(chainer.__name__ + ".functions.math.basic_math")
utils = importlib.import_module(chainer.__name__ + ".utils")
initializers = importlib.import_module(chainer.__name__ + ".initializers")
testing = importlib.import_module(chainer.__name__ + ".testing")
condition = importlib.import_module(chainer.__name__ + ".testing.condition")
function_hooks = importlib.import_module(chainer.__name__ + ".function_hooks")
cuda = importlib.import_module(chainer.__name__ + ".backends.cuda")
gradient_check = importlib.import_module(chainer.__name__ + ".gradient_check")
type_check = importlib.import_module(chainer.__name__ + ".utils.type_check")


def _has_cuda():
    try:
        cuda.check_cuda_available()
    except RuntimeError:
        return False
    return True


@pytest.fixture(autouse=True)
def _seed():
    numpy.random.seed(0)


def _positive_definite(n):
    root = numpy.random.uniform(-1, 1, (n, n))
    return root @ root.T + n * numpy.eye(n)


# ------------------------------------------------------------------------------- cholesky
def test_cholesky_is_numpys_lower_factor():
    a = _positive_definite(4).astype(numpy.float32)
    y = F.cholesky(a)
    assert y.dtype == numpy.float32
    numpy.testing.assert_allclose(y.array, numpy.linalg.cholesky(a), rtol=1e-5, atol=1e-6)


def test_cholesky_gradients_through_symmetric_input():
    a = _positive_definite(3)

    def symmetric_cholesky(x):
        return F.cholesky(0.5 * (x + F.transpose(x)))

    gy = numpy.random.uniform(-1, 1, a.shape)
    gradient_check.check_backward(symmetric_cholesky, a, gy, eps=1e-4, atol=1e-6, rtol=1e-5)
    ggx = numpy.random.uniform(-1, 1, a.shape)
    gradient_check.check_double_backward(symmetric_cholesky, a, gy, ggx, eps=1e-4, atol=1e-6,
                                         rtol=1e-5)


def test_cholesky_errors():
    with pytest.raises(numpy.linalg.LinAlgError):
        F.cholesky(-numpy.eye(2))
    with pytest.raises(type_check.InvalidType):
        F.cholesky(numpy.zeros((2, 2, 2)))


# ---------------------------------------------------------------------------------- utils
def test_experimental_warns_unless_disabled(monkeypatch):
    monkeypatch.setattr(chainer, "disable_experimental_feature_warning", False)
    with pytest.warns(FutureWarning, match=r"^chainer\.f is experimental\. The interface can "
                                           r"change in the future\.$"):
        utils.experimental("chainer.f")
    monkeypatch.setattr(chainer, "disable_experimental_feature_warning", True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        utils.experimental("chainer.f")


def test_nondeterministic_warns_only_when_configured():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        utils.nondeterministic("kernel")
    with chainer.using_config("warn_nondeterministic", True):
        with pytest.warns(UserWarning, match=r"^Potentially non-deterministic code is being "
                                             r"executed while config\.warn_nondeterministic "
                                             r"set\. Source: kernel$"):
            utils.nondeterministic("kernel")


def test_final_methods():
    class Base(utils.enable_final()):
        @utils.final
        def locked(self):
            return 1

        @utils.final(action=UserWarning)
        def soft(self):
            return 1

    assert Base.__mro__ == (Base, object)
    with pytest.raises(TypeError, match=r"^method 'locked' is final\.$"):
        class Child(Base):
            def locked(self):
                return 2
    with pytest.warns(UserWarning, match=r"^Overriding method 'soft'\.$"):
        class Other(Base):
            def soft(self):
                return 2
    assert Other().soft() == 2

    class WithDict(utils.enable_final(base=dict)):
        pass

    assert WithDict.__mro__ == (WithDict, dict, object)
    assert utils.meta.final is utils.final


def test_tempdir(tmp_path):
    with utils.tempdir(dir=str(tmp_path), prefix="p") as path:
        assert os.path.isdir(path) and os.path.basename(path).startswith("p")
        open(os.path.join(path, "f"), "w").close()
    assert not os.path.exists(path)
    with utils.tempdir(ignore_errors=True) as path:
        os.rmdir(path)


# --------------------------------------------------------------------------- initializers
def _tent(size):
    factor = (size + 1) // 2
    center = factor - 1 if size % 2 == 1 else factor - 0.5
    return 1 - numpy.abs(numpy.arange(size) - center) / factor


@pytest.mark.parametrize("name, upsampling", [("UpsamplingDeconvFilter", True),
                                              ("DownsamplingConvFilter", False)])
@pytest.mark.parametrize("shape", [(3, 3, 4, 4), (2, 1, 3, 3), (2, 2, 3, 3, 3)])
def test_sampling_filters(name, upsampling, shape):
    array = numpy.full(shape, 5.0, dtype=numpy.float32)
    getattr(initializers, name)()(array)
    kernel = numpy.ones(())
    for _ in shape[2:]:
        kernel = numpy.multiply.outer(kernel, _tent(shape[2]))
    if not upsampling:
        kernel = kernel / kernel.sum()
    expected = numpy.zeros(shape)
    for c in range(shape[0]):
        expected[c, 0 if shape[1] == 1 else c] = kernel
    numpy.testing.assert_allclose(array, expected, rtol=1e-6)


def test_sampling_filter_errors():
    with pytest.raises(ValueError, match="Unsupported interpolation method: nearest"):
        initializers.UpsamplingDeconvFilter(interpolation="nearest")
    with pytest.raises(ValueError, match=r"ksize must be all same: 3 != 4"):
        initializers.DownsamplingConvFilter()(numpy.empty((2, 2, 3, 4)))
    with pytest.raises(AssertionError):
        initializers.DownsamplingConvFilter()(numpy.empty((2, 3, 3, 3)))


# -------------------------------------------------------------------------------- testing
def test_quiet_test_runner_returns_the_result():
    class Case(unittest.TestCase):
        def test_fails(self):
            self.fail("no")

    result = condition.QuietTestRunner().run(unittest.TestSuite([Case("test_fails")]))
    assert isinstance(result, unittest.TestResult)
    assert result.testsRun == 1 and len(result.failures) == 1


def test_distribution_unittest_checks_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    distributions = importlib.import_module(chainer.__name__ + ".distributions")

    def make(scipy_dist):
        class Case(testing.distribution_unittest):
            shape = (3,)
            sample_shape = (2,)
            is_variable = True

            def setUp_configure(self):
                self.dist = distributions.Normal
                self.scipy_dist = scipy_dist
                self.test_targets = {"mean", "log_prob", "cdf", "support", "batch_shape"}
                loc = numpy.random.uniform(-1, 1, self.shape).astype(numpy.float32)
                scale = numpy.random.uniform(0.5, 2, self.shape).astype(numpy.float32)
                self.params = {"loc": loc, "scale": scale}
                self.scipy_params = {"loc": loc, "scale": scale}

            def sample_for_test(self):
                return numpy.random.normal(size=(2, 3)).astype(numpy.float32)

        return Case

    names = ["test_mean_cpu", "test_log_prob_cpu", "test_cdf_cpu", "test_support_cpu",
             "test_batch_shape_cpu", "test_variance_cpu"]
    good = condition.QuietTestRunner().run(
        unittest.TestSuite(make(stats.norm)(name) for name in names))
    assert good.wasSuccessful(), good.failures + good.errors
    assert [test._testMethodName for test, _ in good.skipped] == ["test_variance_cpu"]
    bad = condition.QuietTestRunner().run(
        unittest.TestSuite(make(stats.laplace)(name) for name in names))
    assert sorted(test._testMethodName for test, _ in bad.failures) == [
        "test_cdf_cpu", "test_log_prob_cpu"]


# ------------------------------------------------------------------ CUDA-only names on CPU
@pytest.mark.skipif(_has_cuda(), reason="pins the behaviour on a machine without CUDA")
def test_cuda_only_names_without_cuda():
    assert function_hooks.CUDAProfileHook.name == "CUDAProfileHook"
    with pytest.raises(RuntimeError, match="CUDA environment is not correctly set up"):
        function_hooks.CUDAProfileHook()
    with pytest.raises(RuntimeError, match=r"^cuDNN is not enabled\."):
        cuda.get_cudnn_dropout_states()


# ------------------------------------------------------------------------- basic_math grads
def test_basic_math_gradient_nodes_compute_the_gradients():
    x = numpy.random.uniform(0.5, 2.0, (2, 3))
    w = numpy.random.uniform(0.5, 2.0, (2, 3))
    gy = numpy.random.uniform(-1, 1, (2, 3))
    gx, = basic_math.AbsoluteGrad(-x).apply((gy,))
    numpy.testing.assert_allclose(gx.array, -gy)
    gx0, gx1 = basic_math.DivGrad(True).apply((x, w, gy))
    numpy.testing.assert_allclose(gx0.array, gy / w)
    numpy.testing.assert_allclose(gx1.array, -gy * x / w ** 2)
    gx, = basic_math.DivFromConstantGrad(3.0).apply((x, gy))
    numpy.testing.assert_allclose(gx.array, -3.0 * gy / x ** 2)
    gx0, gx1 = basic_math.PowVarVarGrad(True, x ** w).apply((x, w, gy))
    numpy.testing.assert_allclose(gx0.array, w * x ** (w - 1) * gy)
    numpy.testing.assert_allclose(gx1.array, numpy.log(x) * x ** w * gy)
    gx, = basic_math.PowVarConstGrad(2.5).apply((x, gy))
    numpy.testing.assert_allclose(gx.array, 2.5 * x ** 1.5 * gy)
    gx, = basic_math.PowConstVarGrad(2.0).apply((2.0 ** x, gy))
    numpy.testing.assert_allclose(gx.array, numpy.log(2.0) * 2.0 ** x * gy)


def test_basic_math_gradient_nodes_are_twice_differentiable():
    x = numpy.random.uniform(0.5, 2.0, (3,))
    w = numpy.random.uniform(0.5, 2.0, (3,))
    gy = numpy.random.uniform(-1, 1, (3,))
    ggx = numpy.random.uniform(-1, 1, (3,))
    gradient_check.check_backward(
        lambda a, b: basic_math.PowVarConstGrad(2.5).apply((a, b)), (x, gy), ggx, eps=1e-4,
        atol=1e-6, rtol=1e-5)
    gradient_check.check_backward(
        lambda a, b, c: basic_math.DivGrad(True).apply((a, b, c)), (x, w, gy), (ggx, ggx),
        eps=1e-4, atol=1e-6, rtol=1e-5)


def test_install_variable_arithmetics_is_harmless_to_repeat():
    basic_math.install_variable_arithmetics()
    basic_math.install_variable_arithmetics()
    v = chainer.Variable(numpy.array([1.0, 2.0]))
    numpy.testing.assert_allclose((2 ** v - v / 2).array, 2 ** v.array - v.array / 2)
