"""SpectralNormalization: its gradients in float64, the recomputation path, our error messages."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check, initializers, links
from chainer_compat.link_hooks import SpectralNormalization


def _linear64(in_size=4, out_size=3):
    weight = numpy.random.RandomState(0).uniform(-1, 1, (out_size, in_size))
    return links.Linear(in_size, out_size, initialW=initializers.Constant(weight, numpy.float64),
                        nobias=True)


def _normalized_weight_function(link, hook):
    def normalize(weight):
        link.W = weight  # the hook reads the link's attribute, as during a forward call
        return hook.normalize_weight(link)
    return normalize


def test_gradients_of_the_normalized_weight_match_numerical_ones():
    # With a converged u, sigma = u W v is stationary in u and v, so holding them fixed in
    # backward agrees with the numerical derivative through the power iteration.
    link = _linear64()
    hook = SpectralNormalization(n_power_iteration=300)
    link.add_hook(hook)
    weight = link.W.array.copy()
    function = _normalized_weight_function(link, hook)
    rng = numpy.random.RandomState(1)
    with chainer.using_config("train", False):
        gradient_check.check_backward(function, weight, rng.normal(size=weight.shape),
                                      dtype=numpy.float64, atol=1e-4, rtol=1e-3)


def test_recomputation_reuses_the_stored_v_and_leaves_u():
    link = _linear64()
    hook = SpectralNormalization()
    link.add_hook(hook)
    link(numpy.ones((1, 4)))
    u_before = link.W_u.copy()
    stored_v = hook.v.copy()
    with chainer.using_config("in_recomputing", True):
        normalized = hook.normalize_weight(link)
    numpy.testing.assert_array_equal(link.W_u, u_before)
    numpy.testing.assert_array_equal(hook.v, stored_v)
    sigma = u_before @ link.W.array @ stored_v
    numpy.testing.assert_allclose(normalized.array, link.W.array / sigma, rtol=1e-12)


def test_double_float_link_keeps_u_in_its_dtype():
    link = _linear64()
    link.add_hook(SpectralNormalization())
    assert link.W_u.dtype == numpy.float64


def test_non_positive_power_iteration_is_rejected_with_the_value():
    # compat: Chainer asserts here; we raise ValueError, which user code can catch meaningfully.
    with pytest.raises(ValueError, match="n_power_iteration must be positive, got 0"):
        SpectralNormalization(n_power_iteration=0)


def test_missing_weight_message_names_the_weight():
    with pytest.raises(ValueError, match="Weight 'V' does not exist!"):
        _linear64().add_hook(SpectralNormalization(weight_name="V"))


def test_context_manager_message_says_to_use_add_hook():
    with pytest.raises(NotImplementedError, match="add_hook"):
        SpectralNormalization().__enter__()


def test_deleting_the_hook_from_a_never_called_lazy_link_is_harmless():
    link = links.Linear(None, 3)
    link.add_hook(SpectralNormalization(use_gamma=True))
    link.delete_hook("SpectralNormalization")
    assert not hasattr(link, "W_u")
    assert not link.local_link_hooks


def test_gamma_scales_the_weight_and_receives_a_gradient():
    link = _linear64()
    hook = SpectralNormalization(use_gamma=True, n_power_iteration=300)
    link.add_hook(hook)
    link.cleargrads()
    x = numpy.ones((2, 4))
    y = link(x)
    chainer.functions.sum(y).backward()
    sigma = link.W_u @ link.W.array @ hook.v
    expected = x @ (link.gamma.array * link.W.array / sigma).T
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-10)
    # d/dgamma sum(x (gamma W / sigma)^T) = sum(x W^T) / sigma
    numpy.testing.assert_allclose(link.gamma.grad, (x @ link.W.array.T).sum() / sigma,
                                  rtol=1e-10)


@pytest.mark.gpu
def test_runs_on_gpu_with_u_on_the_device(cupy):
    link = links.Linear(4, 3).to_device("@cupy:0")
    hook = SpectralNormalization(use_gamma=True)
    link.add_hook(hook)
    assert isinstance(link.W_u, cupy.ndarray)
    u_before = link.W_u.copy()
    y = link(cupy.ones((2, 4), cupy.float32))
    assert isinstance(y.array, cupy.ndarray)
    assert not bool((link.W_u == u_before).all())


def test_power_iteration_helper_refuses_no_steps_with_the_value():
    from chainer_compat.link_hooks.spectral_normalization import update_approximate_vectors

    with pytest.raises(ValueError, match="n_power_iteration must be positive, got 0"):
        update_approximate_vectors(numpy.eye(2, dtype=numpy.float32),
                                   numpy.ones(2, numpy.float32), 0, 1e-6)
