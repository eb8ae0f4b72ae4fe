"""Tests for chainer_compat.links.connection.linear: Linear's construction, lazy input size,
outputs and gradients, serialization, copies and devices."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check, initializers, serializers
from chainer_compat.links.connection.linear import Linear
from chainer_compat.utils import type_check


def _linear_reference(x, W, b, n_batch_axes=1):
    flat = x.reshape(x.shape[:n_batch_axes] + (-1,))
    out = flat @ W.T
    return out if b is None else out + b


def test_constructor_defaults_match_chainer_signature():
    link = Linear(3, 4)
    assert (link.in_size, link.out_size) == (3, 4)
    assert link.W.shape == (4, 3) and link.W.dtype == numpy.float32
    assert link.b.shape == (4,) and link.b.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.b.array, numpy.zeros(4, numpy.float32))
    assert isinstance(link.W.initializer, initializers.LeCunNormal)
    assert sorted(name for name, _ in link.namedparams()) == ["/W", "/b"]


def test_weight_is_lecun_normal_drawn_from_numpy_global_state():
    numpy.random.seed(7)
    link = Linear(5, 3)
    numpy.random.seed(7)
    expected = numpy.random.normal(0.0, numpy.sqrt(1.0 / 5), (3, 5)).astype(numpy.float32)
    numpy.testing.assert_allclose(link.W.array, expected, rtol=1e-6)


def test_single_size_is_the_output_size_and_w_is_uninitialized():
    link = Linear(4)
    assert link.in_size is None and link.out_size == 4
    assert link.W.array is None and not link.W.is_initialized
    assert link.b.shape == (4,)
    assert str(link) == "Linear(in_size=None, out_size=4, nobias=False)"


def test_lazy_initialization_uses_features_after_batch_axes():
    x = numpy.random.rand(2, 3, 5).astype(numpy.float32)
    link = Linear(None, 4)
    y = link(x)
    assert link.W.shape == (4, 15)
    assert y.shape == (2, 4)
    lazy_batch = Linear(4)
    y = lazy_batch(x, n_batch_axes=2)
    assert lazy_batch.W.shape == (4, 5)
    assert y.shape == (2, 3, 4)
    numpy.testing.assert_allclose(
        y.array, _linear_reference(x, lazy_batch.W.array, lazy_batch.b.array, 2), rtol=1e-5)


def test_lazy_weight_gets_cleared_grad_after_cleargrads():
    link = Linear(4)
    link.cleargrads()
    link(numpy.ones((1, 2), numpy.float32))
    assert link.W.grad is None


def test_lazy_weight_gets_zero_grad_after_zerograds():
    link = Linear(4)
    with pytest.warns(DeprecationWarning):
        link.zerograds()
    link(numpy.ones((1, 2), numpy.float32))
    numpy.testing.assert_array_equal(link.W.grad, numpy.zeros((4, 2), numpy.float32))


@pytest.mark.parametrize("nobias", [False, True])
def test_output_matches_numpy(nobias):
    x = numpy.random.rand(6, 3).astype(numpy.float32)
    link = Linear(3, 2, nobias=nobias)
    y = link(x)
    bias = None if nobias else link.b.array
    numpy.testing.assert_allclose(y.array, _linear_reference(x, link.W.array, bias), rtol=1e-5)


def test_nobias_has_b_none_and_only_w():
    link = Linear(3, 2, nobias=True)
    assert link.b is None
    assert [name for name, _ in link.namedparams()] == ["/W"]
    assert str(link) == "Linear(in_size=3, out_size=2, nobias=True)"


def test_initializers_accept_arrays_scalars_and_callables():
    weight = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    link = Linear(3, 2, initialW=weight, initial_bias=1.5)
    numpy.testing.assert_array_equal(link.W.array, weight)
    numpy.testing.assert_array_equal(link.b.array, numpy.full(2, 1.5, numpy.float32))
    link = Linear(3, 2, initialW=initializers.Constant(2.0),
                  initial_bias=initializers.Constant(-1.0))
    assert (link.W.array == 2).all() and (link.b.array == -1).all()


def test_array_initializer_takes_configured_dtype():
    # Chainer's Constant(array) has no dtype of its own: the parameter follows config.dtype.
    link = Linear(3, 2, initialW=numpy.zeros((2, 3), numpy.float64))
    assert link.W.dtype == numpy.float32


def test_config_dtype_sets_parameter_dtype():
    with chainer.using_config("dtype", numpy.float16):
        link = Linear(3, 2)
        lazy = Linear(2)
        lazy(numpy.ones((1, 3), numpy.float16))
    assert link.W.dtype == numpy.float16 and link.b.dtype == numpy.float16
    assert lazy.W.dtype == numpy.float16


def test_invalid_initializer_raises_type_error():
    with pytest.raises(TypeError, match="initializer must be"):
        Linear(3, 2, initialW=object())


def test_missing_out_size_raises_type_error():
    with pytest.raises(TypeError, match="out_size must be an int"):
        Linear(None)


def test_wrong_input_size_raises_invalid_type():
    link = Linear(3, 2)
    with pytest.raises(type_check.InvalidType):
        link(numpy.ones((2, 5), numpy.float32))


def test_from_params_copies_arrays_and_checks_bias_size():
    weight = numpy.random.rand(4, 3).astype(numpy.float32)
    bias = numpy.random.rand(4).astype(numpy.float32)
    link = Linear.from_params(chainer.Variable(weight), bias)
    assert (link.in_size, link.out_size) == (3, 4)
    numpy.testing.assert_array_equal(link.W.array, weight)
    numpy.testing.assert_array_equal(link.b.array, bias)
    assert link.W.array is not weight
    numpy.testing.assert_array_equal(Linear.from_params(weight).b.array, numpy.zeros(4))
    assert Linear.from_params(weight, nobias=True).b is None
    with pytest.raises(ValueError, match="b must have out_size"):
        Linear.from_params(weight, numpy.zeros(3, numpy.float32))


@pytest.mark.parametrize("nobias", [False, True])
@pytest.mark.parametrize("n_batch_axes", [1, 2])
def test_backward_matches_numerical_gradient(nobias, n_batch_axes):
    with chainer.using_config("dtype", numpy.float64):
        link = Linear(3 if n_batch_axes == 2 else 6, 2, nobias=nobias)
    x = numpy.random.uniform(-1, 1, (2, 2, 3))
    out_shape = (2, 2, 2) if n_batch_axes == 2 else (2, 2)
    gy = numpy.random.uniform(-1, 1, out_shape)
    params = (link.W,) if nobias else (link.W, link.b)
    gradient_check.check_backward(
        lambda v: link(v, n_batch_axes=n_batch_axes), x, gy, params, dtype=numpy.float64)


def test_double_backward_matches_numerical_gradient():
    with chainer.using_config("dtype", numpy.float64):
        link = Linear(3, 2)
    x = numpy.random.uniform(-1, 1, (4, 3))
    gy = numpy.random.uniform(-1, 1, (4, 2))
    ggx = numpy.random.uniform(-1, 1, (4, 3))
    params_grad_grad = (numpy.random.uniform(-1, 1, (2, 3)), numpy.random.uniform(-1, 1, 2))
    gradient_check.check_double_backward(
        link, x, gy, ggx, (link.W, link.b), params_grad_grad, dtype=numpy.float64)


def test_npz_round_trip_keeps_names_and_fills_lazy_link(tmp_path):
    source = Linear(3, 2)
    path = tmp_path / "linear.npz"
    serializers.save_npz(str(path), source)
    with numpy.load(path) as saved:
        assert sorted(saved.files) == ["W", "b"]
    target = Linear(2)
    serializers.load_npz(str(path), target)
    numpy.testing.assert_array_equal(target.W.array, source.W.array)
    numpy.testing.assert_array_equal(target.b.array, source.b.array)


def test_copy_modes():
    link = Linear(3, 2)
    shared = link.copy()
    assert shared.W.array is link.W.array
    deep = link.copy("copy")
    assert deep.W.array is not link.W.array
    numpy.testing.assert_array_equal(deep.W.array, link.W.array)
    link.b.array[...] = 5
    fresh = link.copy("init")
    assert (fresh.b.array == 0).all()
    assert fresh.W.shape == (2, 3)
    assert not numpy.array_equal(fresh.W.array, link.W.array)


def test_to_device_cpu_keeps_numpy_and_lazy_init_follows_device():
    link = Linear(4)
    assert link.to_device("@numpy") is link
    link(numpy.ones((2, 3), numpy.float32))
    assert isinstance(link.W.array, numpy.ndarray)
    assert link.device == chainer.get_device("@numpy")


@pytest.mark.gpu
def test_lazy_link_on_gpu_initializes_on_gpu(cupy):
    link = Linear(4).to_device("@cupy:0")
    y = link(cupy.ones((2, 3), cupy.float32))
    assert isinstance(link.W.array, cupy.ndarray) and isinstance(y.array, cupy.ndarray)
    expected = _linear_reference(numpy.ones((2, 3)), cupy.asnumpy(link.W.array),
                                 cupy.asnumpy(link.b.array))
    numpy.testing.assert_allclose(cupy.asnumpy(y.array), expected, rtol=1e-5)
