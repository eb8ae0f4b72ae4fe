"""SpectralNormalization and WeightStandardization as Chainer 7.8.1 users see them: the persistent
vector ``u`` and its seeding, power iteration in train mode only, the normalized forward, gamma,
npz round trips and errors. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer.
"""

from __future__ import annotations

import importlib
import io
import os

import numpy
import pytest

TARGET = os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat")
chainer = importlib.import_module(TARGET)
L = importlib.import_module(TARGET + ".links")
link_hooks = importlib.import_module(TARGET + ".link_hooks")
serializers = importlib.import_module(TARGET + ".serializers")
SpectralNormalization = link_hooks.SpectralNormalization
WeightStandardization = link_hooks.WeightStandardization


def _weight(shape, seed=3):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(numpy.float32)


def _linear(in_size=4, out_size=3):
    return L.Linear(in_size, out_size, initialW=_weight((out_size, in_size)),
                    initial_bias=numpy.arange(out_size, dtype=numpy.float32))


def _normalize(vector, eps):
    return vector / (numpy.linalg.norm(vector) + eps)


def _reference_sigma(matrix, u, n_iteration, eps=1e-6):
    """NumPy power iteration: returns (sigma, new u, v)."""
    matrix = matrix.astype(numpy.float64)
    u = u.astype(numpy.float64)
    for _ in range(n_iteration):
        v = _normalize(u @ matrix, eps)
        u = _normalize(matrix @ v, eps)
    return u @ matrix @ v, u, v


def test_u_is_drawn_from_the_global_numpy_rng_when_added():
    link = _linear()
    numpy.random.seed(11)
    link.add_hook(SpectralNormalization())
    numpy.random.seed(11)
    expected = numpy.random.normal(size=(3,)).astype(numpy.float32)
    assert link.W_u.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.W_u, expected)


def test_forward_divides_the_weight_by_the_estimated_sigma_and_restores_it():
    link = _linear()
    hook = SpectralNormalization(n_power_iteration=2)
    link.add_hook(hook)
    weight = link.W
    u_before = link.W_u.copy()
    x = _weight((2, 4), seed=5)
    y = link(x)
    sigma, u_after, v = _reference_sigma(link.W.array, u_before, 2)
    expected = x @ (link.W.array / sigma).T + link.b.array
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)
    assert link.W is weight
    numpy.testing.assert_allclose(link.W_u, u_after, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(hook.v, v, rtol=1e-5, atol=1e-6)


def test_u_is_not_updated_in_test_mode():
    link = _linear()
    link.add_hook(SpectralNormalization())
    u_before = link.W_u.copy()
    with chainer.using_config("train", False):
        link(_weight((2, 4), seed=5))
    numpy.testing.assert_array_equal(link.W_u, u_before)
    link(_weight((2, 4), seed=5))
    assert not numpy.array_equal(link.W_u, u_before)


def test_sigma_converges_to_the_largest_singular_value():
    link = _linear(5, 4)
    hook = SpectralNormalization(n_power_iteration=200)
    link.add_hook(hook)
    link(_weight((1, 5)))
    sigma = link.W_u @ link.W.array @ hook.v
    expected = numpy.linalg.svd(link.W.array, compute_uv=False)[0]
    numpy.testing.assert_allclose(sigma, expected, rtol=1e-4)


def test_factor_scales_the_normalized_weight():
    plain = _linear()
    scaled = _linear()
    numpy.random.seed(2)
    plain.add_hook(SpectralNormalization())
    numpy.random.seed(2)
    scaled.add_hook(SpectralNormalization(factor=2.0))
    x = _weight((2, 4), seed=5)
    expected = 2 * (plain(x).array - plain.b.array) + plain.b.array
    numpy.testing.assert_allclose(scaled(x).array, expected, rtol=1e-5, atol=1e-6)


def test_gradient_of_the_weight_goes_through_sigma():
    link = L.Linear(4, 3, initialW=_weight((3, 4)), nobias=True)
    link.add_hook(SpectralNormalization())
    link.cleargrads()
    u_before = link.W_u.copy().astype(numpy.float64)
    x = _weight((2, 4), seed=5)
    y = link(x)
    chainer.functions.sum(y).backward()
    weight = link.W.array.astype(numpy.float64)
    sigma, u, v = _reference_sigma(weight, u_before, 1)
    # d/dW sum(x W^T) / sigma, with u and v held constant (sigma = u W v).
    plain_grad = numpy.ones((2, 3)).T @ x.astype(numpy.float64)
    total = (x.astype(numpy.float64) @ weight.T).sum()
    expected = plain_grad / sigma - total / sigma ** 2 * numpy.outer(u, v)
    numpy.testing.assert_allclose(link.W.grad, expected, rtol=1e-4, atol=1e-5)


def test_use_gamma_adds_a_scalar_parameter_set_to_the_largest_singular_value():
    link = _linear()
    link.add_hook(SpectralNormalization(use_gamma=True))
    assert isinstance(link.gamma, chainer.Parameter)
    assert link.gamma.shape == ()
    expected = numpy.linalg.svd(link.W.array, compute_uv=False)[0]
    numpy.testing.assert_allclose(link.gamma.array, expected, rtol=1e-5)
    assert "gamma" in dict(link.namedparams())["/gamma"].name


def test_delete_hook_removes_u_and_gamma():
    link = _linear()
    link.add_hook(SpectralNormalization(use_gamma=True))
    link.delete_hook("SpectralNormalization")
    assert not hasattr(link, "W_u")
    assert not hasattr(link, "gamma")
    assert sorted(name for name, _ in link.namedparams()) == ["/W", "/b"]


def test_npz_round_trip_keeps_u():
    source = _linear()
    source.add_hook(SpectralNormalization())
    source(_weight((2, 4), seed=5))
    buffer = io.BytesIO()
    serializers.save_npz(buffer, source)
    buffer.seek(0)
    with numpy.load(buffer) as saved:
        assert "W_u" in saved.files
        numpy.testing.assert_array_equal(saved["W_u"], source.W_u)
    buffer.seek(0)
    target = _linear()
    target.add_hook(SpectralNormalization())
    serializers.load_npz(buffer, target)
    numpy.testing.assert_array_equal(target.W_u, source.W_u)


def test_lazy_weight_gets_u_on_the_first_call():
    link = L.Linear(None, 3)
    link.add_hook(SpectralNormalization())
    assert not hasattr(link, "W_u")
    link(numpy.ones((2, 5), numpy.float32))
    assert link.W.shape == (3, 5)
    assert link.W_u.shape == (3,)


def test_custom_weight_and_hook_names():
    link = _linear()
    hook = SpectralNormalization(weight_name="b", name="sn_b")
    link.add_hook(hook)
    assert hook.vector_name == "b_u"
    assert link.b_u.shape == (3,)
    assert "sn_b" in link.local_link_hooks


def test_deconvolution_uses_axis_1():
    link = L.Deconvolution2D(2, 5, 3)
    hook = SpectralNormalization()
    link.add_hook(hook)
    assert hook.axis == 1
    assert link.W_u.shape == (5,)


def test_convolution_weight_is_flattened_to_a_matrix():
    link = L.Convolution2D(2, 4, 3, initialW=_weight((4, 2, 3, 3)))
    hook = SpectralNormalization()
    link.add_hook(hook)
    assert hook.reshape_W(link.W.array).shape == (4, 18)
    link(numpy.ones((1, 2, 5, 5), numpy.float32))
    assert hook.v.shape == (18,)


def test_errors():
    with pytest.raises(ValueError):
        _linear().add_hook(SpectralNormalization(weight_name="missing"))
    with pytest.raises(NotImplementedError):
        with SpectralNormalization():
            pass
    with pytest.raises(ValueError):
        _linear().add_hook(WeightStandardization(weight_name="missing"))
    with pytest.raises(NotImplementedError):
        with WeightStandardization():
            pass
    with pytest.raises(TypeError):
        WeightStandardization(1e-3)  # eps is keyword-only


def _standardized(weight, eps):
    rows = weight.reshape(weight.shape[0], -1).astype(numpy.float64)
    mean = rows.mean(axis=1, keepdims=True)
    variance = ((rows - mean) ** 2).mean(axis=1, keepdims=True)
    return ((rows - mean) / numpy.sqrt(variance + eps)).reshape(weight.shape)


def test_weight_standardization_on_linear():
    link = _linear()
    link.add_hook(WeightStandardization(eps=1e-3))
    weight = link.W
    x = _weight((2, 4), seed=5)
    y = link(x)
    expected = x @ _standardized(link.W.array, 1e-3).T + link.b.array
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)
    assert link.W is weight


def test_weight_standardization_on_lazy_convolution():
    link = L.Convolution2D(None, 3, 2, nobias=True)
    link.add_hook(WeightStandardization())
    x = _weight((1, 2, 3, 3), seed=5)
    y = link(x)
    assert link.W.shape == (3, 2, 2, 2)
    flat = _standardized(link.W.array, 1e-5).reshape(3, -1)
    patches = numpy.stack([x[0, :, i:i + 2, j:j + 2].ravel()
                           for i in range(2) for j in range(2)])
    expected = (patches @ flat.T).T.reshape(1, 3, 2, 2)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)


def test_the_modules_helpers_compute_the_power_iteration_and_sigma():
    helpers = importlib.import_module(TARGET + ".link_hooks.spectral_normalization")
    matrix = _weight((3, 5))
    u0 = _normalize(numpy.random.RandomState(4).normal(size=3).astype(numpy.float32), 1e-12)
    numpy.testing.assert_allclose(helpers.l2normalize(numpy, u0 * 7, 1e-12), u0, rtol=1e-6)
    u, v = helpers.update_approximate_vectors(chainer.Variable(matrix), u0, 2, 1e-6)
    sigma, u_expected, v_expected = _reference_sigma(matrix, u0, 2)
    numpy.testing.assert_allclose(u, u_expected, rtol=1e-5)
    numpy.testing.assert_allclose(v, v_expected, rtol=1e-5)
    weight = chainer.Variable(matrix)
    value = helpers.calculate_max_singular_value(weight, u, v)
    assert isinstance(value, chainer.Variable)
    numpy.testing.assert_allclose(value.array, sigma, rtol=1e-5)
    value.backward()
    numpy.testing.assert_allclose(weight.grad, numpy.outer(u, v), rtol=1e-6)
    # Many steps reach the largest singular value.
    u, v = helpers.update_approximate_vectors(chainer.Variable(matrix), u0, 300, 1e-6)
    numpy.testing.assert_allclose(
        helpers.calculate_max_singular_value(chainer.Variable(matrix), u, v).array,
        numpy.linalg.svd(matrix, compute_uv=False)[0], rtol=1e-5)
