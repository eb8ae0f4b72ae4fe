"""Chainer-visible implementation classes at Chainer's internal module paths, which legacy code
imports or subclasses: the pooling bases ``pooling_2d.Pooling2D`` and ``pooling_nd._PoolingND``
(their window attributes), ``max_pooling_nd.max_pooling_2d``, ``DeCov``, ``CrossCovariance``,
``BatchRenormalizationFunction`` and ``ConnectionistTemporalClassification``. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer 7.8.1 itself.
"""

from __future__ import annotations

import importlib
import os
import warnings

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
gradient_check = importlib.import_module(chainer.__name__ + ".gradient_check")


def _module(path):
    return importlib.import_module(f"{chainer.__name__}.functions.{path}")


def _uniform(shape, seed=0, dtype=numpy.float64):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


# ----------------------------------------------------------------------------- pooling bases
def test_2d_pooling_nodes_are_pooling2d_with_chainers_window_attributes():
    pooling_2d = _module("pooling.pooling_2d")
    x = _uniform((1, 2, 7, 6), dtype=numpy.float32)
    pooled, indexes = F.max_pooling_2d(x, (3, 2), (2, 1), (1, 0), return_indices=True)
    nodes = [
        F.average_pooling_2d(x, (3, 2), (2, 1), (1, 0)).creator,
        F.unpooling_2d(x, (3, 2), (2, 1), (1, 0), cover_all=False).creator,
        F.upsampling_2d(pooled, indexes, (3, 2), (2, 1), (1, 0)).creator,
    ]
    for node in nodes:
        assert isinstance(node, pooling_2d.Pooling2D), type(node)
        window = (node.kh, node.kw, node.sy, node.sx, node.ph, node.pw)
        assert window == (3, 2, 2, 1, 1, 0), type(node)
    assert [node.cover_all for node in nodes] == [False, False, True]


def test_nd_pooling_nodes_are_pooling_nd_with_chainers_window_attributes():
    pooling_nd = _module("pooling.pooling_nd")
    x = _uniform((1, 2, 5, 6, 4), dtype=numpy.float32)
    nodes = [
        F.max_pooling_nd(x, (3, 2, 2), (2, 1, 2), (1, 0, 1)).creator,
        F.average_pooling_nd(x, (3, 2, 2), (2, 1, 2), (1, 0, 1)).creator,
        F.unpooling_nd(x, (3, 2, 2), (2, 1, 2), (1, 0, 1)).creator,
    ]
    for node in nodes:
        assert isinstance(node, pooling_nd._PoolingND), type(node)
        assert node.ndim == 3
        assert tuple(node.ksize) == (3, 2, 2)
        assert tuple(node.stride) == (2, 1, 2)
        assert tuple(node.pad) == (1, 0, 1)
    assert [node.cover_all for node in nodes] == [True, False, True]


def _window_sums(x, ksize):
    """Sums over non-overlapping ``ksize`` windows of the trailing axes of ``x``."""
    shape = x.shape[:2]
    for size, k in zip(x.shape[2:], ksize):
        shape += (size // k, k)
    return x.reshape(shape).sum(axis=tuple(range(3, x.ndim * 2 - 2 + 1, 2)))


def test_a_pooling2d_subclass_reads_the_window_from_the_base_attributes():
    pooling_2d = _module("pooling.pooling_2d")

    class SumPooling2D(pooling_2d.Pooling2D):
        def forward_cpu(self, inputs):
            x, = inputs
            return _window_sums(x, (self.kh, self.kw)),

        def backward(self, indexes, grad_outputs):
            gy, = grad_outputs
            return F.unpooling_2d(gy, (self.kh, self.kw), cover_all=False),

    x = chainer.Variable(_uniform((2, 3, 4, 6)))
    y, = SumPooling2D((2, 3), cover_all=False).apply((x,))
    numpy.testing.assert_allclose(y.array, _window_sums(x.array, (2, 3)))
    gy = _uniform((2, 3, 2, 2), seed=1)
    gradient_check.check_backward(
        lambda x: SumPooling2D((2, 3), cover_all=False).apply((x,))[0], x.array, gy)


def test_a_pooling_nd_subclass_reads_the_window_from_the_base_attributes():
    pooling_nd = _module("pooling.pooling_nd")

    class SumPoolingND(pooling_nd._PoolingND):
        def forward_cpu(self, inputs):
            x, = inputs
            return _window_sums(x, self.ksize),

        def backward(self, indexes, grad_outputs):
            gy, = grad_outputs
            return F.unpooling_nd(gy, self.ksize, cover_all=False),

    x = chainer.Variable(_uniform((2, 1, 4, 6, 2)))
    node = SumPoolingND(3, (2, 3, 1), cover_all=False)
    assert node.stride == node.ksize == (2, 3, 1) and node.pad == (0, 0, 0)
    y, = node.apply((x,))
    numpy.testing.assert_allclose(y.array, _window_sums(x.array, (2, 3, 1)))
    gradient_check.check_backward(
        lambda x: SumPoolingND(3, (2, 3, 1), cover_all=False).apply((x,))[0], x.array,
        _uniform(y.shape, seed=1))


def test_pooling_nd_base_rejects_zero_spatial_axes_with_value_error():
    with pytest.raises(ValueError):
        _module("pooling.pooling_nd")._PoolingND(0, 2)


def test_max_pooling_2d_is_also_at_chainers_max_pooling_nd_path():
    x = _uniform((2, 3, 5, 4), dtype=numpy.float32)
    y = _module("pooling.max_pooling_nd").max_pooling_2d(x, 3, 2, 1)
    numpy.testing.assert_array_equal(y.array, F.max_pooling_2d(x, 3, 2, 1).array)


# ----------------------------------------------------------------------------- loss classes
@pytest.mark.parametrize("reduce", ["half_squared_sum", "no"])
def test_decov_class_called_old_style_matches_decov_with_its_gradient(reduce):
    DeCov = _module("loss.decov").DeCov
    h = _uniform((5, 3))
    y = DeCov(reduce)(chainer.Variable(h))
    numpy.testing.assert_allclose(y.array, F.decov(h, reduce).array, rtol=1e-12)
    gradient_check.check_backward(
        lambda h: DeCov(reduce)(h), h, _uniform(y.shape, seed=1), atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("reduce", ["half_squared_sum", "no"])
def test_cross_covariance_node_matches_cross_covariance_with_its_gradient(reduce):
    CrossCovariance = _module("loss.cross_covariance").CrossCovariance
    y, z = _uniform((5, 3)), _uniform((5, 2), seed=1)
    loss, = CrossCovariance(reduce).apply((y, z))
    numpy.testing.assert_allclose(loss.array, F.cross_covariance(y, z, reduce).array,
                                  rtol=1e-12)
    gradient_check.check_backward(
        lambda y, z: CrossCovariance(reduce).apply((y, z))[0], (y, z),
        _uniform(loss.shape, seed=2), atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("module, name", [("loss.decov", "DeCov"),
                                          ("loss.cross_covariance", "CrossCovariance")])
def test_covariance_loss_classes_reject_an_unknown_reduce_with_value_error(module, name):
    with pytest.raises(ValueError):
        getattr(_module(module), name)("mean")


def test_batch_renormalization_function_called_old_style_updates_the_statistics():
    BatchRenormalizationFunction = _module(
        "normalization.batch_renormalization").BatchRenormalizationFunction
    x, gamma, beta = _uniform((6, 3, 2)), _uniform(3, seed=1), _uniform(3, seed=2)
    mean, var = _uniform(3, seed=3) * 0.3, _uniform(3, seed=4) * 0.5 + 1.0
    expected_mean, expected_var = mean.copy(), var.copy()
    expected = F.batch_renormalization(
        x, gamma, beta, 2.0, 0.5, 1e-3, expected_mean, expected_var, 0.7,
        update_statistics=True)
    node = BatchRenormalizationFunction(1e-3, mean, var, 0.7, 2.0, 0.5)
    y = node(chainer.Variable(x), chainer.Variable(gamma), chainer.Variable(beta))
    numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-12)
    numpy.testing.assert_allclose(mean, expected_mean, rtol=1e-12)
    numpy.testing.assert_allclose(var, expected_var, rtol=1e-12)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert node.running_mean is mean
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)


def test_ctc_class_called_old_style_matches_the_function():
    ctc = _module("loss.ctc")
    xs = [_uniform((2, 4), seed=i, dtype=numpy.float32) for i in range(5)]
    t = numpy.array([[1, 2], [3, 3]], numpy.int32)
    input_length = numpy.array([5, 4], numpy.int32)
    label_length = numpy.array([2, 2], numpy.int32)
    expected = F.connectionist_temporal_classification(xs, t, 0, input_length, label_length,
                                                       reduce="no")
    node = ctc.ConnectionistTemporalClassification(0, reduce="no")
    loss = node(input_length, label_length, t, F.stack(xs))
    numpy.testing.assert_allclose(loss.array, expected.array, rtol=1e-5)
    with pytest.raises(ValueError):
        ctc.ConnectionistTemporalClassification(0, reduce="sum")
