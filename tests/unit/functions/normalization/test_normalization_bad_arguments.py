"""Bad arguments of the normalization functions get Chainer's exception types (found by a
differential fuzz against Chainer 7.8.1)."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat.functions as F


def _ones(*shape):
    return numpy.ones(shape, numpy.float32)


def test_fixed_decorrelated_bn_rejects_channels_not_divisible_by_groups():
    with pytest.raises(ValueError, match=r"channels of x must be a multiple of groups.*5.*2"):
        F.fixed_decorrelated_batch_normalization(_ones(4, 5), _ones(2, 2), _ones(2, 2, 2),
                                                 groups=2)


@pytest.mark.parametrize(("mean_shape", "projection_shape", "wrong"), [
    ((3, 2), (2, 2, 2), "mean"),
    ((2, 2), (2, 2, 3), "projection"),
    ((2, 2), (2, 3, 2), "projection"),
    ((2, 2), (1, 2, 2, 2), "projection"),
])
def test_fixed_decorrelated_bn_rejects_statistics_of_the_wrong_shape(
        mean_shape, projection_shape, wrong):
    with pytest.raises(ValueError, match=rf"^{wrong} must have shape"):
        F.fixed_decorrelated_batch_normalization(_ones(4, 4), _ones(*mean_shape),
                                                 _ones(*projection_shape), groups=2)


@pytest.mark.parametrize("mean_shape", [(2,), (), (2, 2, 1)])
def test_fixed_decorrelated_bn_mean_not_2d_is_an_axis_error_as_in_chainer(mean_shape):
    # Statistics that broadcast stay accepted, as in Chainer.
    for good_mean, good_projection in [((1, 2), (2, 2, 2)), ((2, 1), (2, 2, 2)),
                                       ((2, 2), (2, 2)), ((2, 2), (1, 2, 2))]:
        y = F.fixed_decorrelated_batch_normalization(
            _ones(4, 4), _ones(*good_mean), _ones(*good_projection), groups=2)
        assert y.shape == (4, 4)
    with pytest.raises(numpy.exceptions.AxisError, match="mean must be 2-dimensional") as info:
        F.fixed_decorrelated_batch_normalization(_ones(4, 4), _ones(*mean_shape),
                                                 _ones(2, 2, 2), groups=2)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, IndexError)


def _call_with_eps(name, eps):
    x, g = _ones(4, 3), _ones(3)
    if name == "batch_normalization":
        return F.batch_normalization(x, g, g, eps=eps)
    if name == "fixed_batch_normalization":
        return F.fixed_batch_normalization(x, g, g, g, g, eps=eps)
    if name == "fixed_batch_renormalization":
        with pytest.warns(DeprecationWarning, match="fixed_batch_renormalization is deprecated"):
            return F.fixed_batch_renormalization(x, g, g, g, g, eps=eps)
    return F.layer_normalization(x, g, g, eps=eps)


_EPS_FUNCTIONS = ["batch_normalization", "fixed_batch_normalization",
                  "fixed_batch_renormalization", "layer_normalization"]


@pytest.mark.parametrize("name", _EPS_FUNCTIONS)
@pytest.mark.parametrize("eps", [None, "x"])
def test_eps_that_is_no_number_raises_type_error(name, eps):
    for number in [1e-5, 1, numpy.float32(1e-5), numpy.array(1e-5)]:
        assert not numpy.isnan(_call_with_eps(name, number).array).any()
    # None used to give an all-NaN output; Chainer fails adding it to the variance.
    with pytest.raises(TypeError, match="eps of .* must be a real number"):
        _call_with_eps(name, eps)
