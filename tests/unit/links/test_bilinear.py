"""Tests for chainer_compat.links.connection.bilinear: Bilinear's parameters, initializers,
output and gradients."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check, serializers
from chainer_compat.links.connection.bilinear import Bilinear


def _bilinear_reference(e1, e2, W, V1=None, V2=None, b=None):
    out = numpy.einsum("ni,nj,ijk->nk", e1, e2, W)
    if V1 is not None:
        out = out + e1 @ V1 + e2 @ V2 + b
    return out


def test_parameters_and_shapes():
    link = Bilinear(2, 3, 4)
    shapes = {name: param.shape for name, param in link.namedparams()}
    assert shapes == {"/W": (2, 3, 4), "/V1": (2, 4), "/V2": (3, 4), "/b": (4,)}
    assert link.in_sizes == (2, 3) and link.nobias is False
    numpy.testing.assert_array_equal(link.b.array, numpy.zeros(4, numpy.float32))
    assert all(param.dtype == numpy.float32 for param in link.params())


def test_nobias_has_only_w():
    link = Bilinear(2, 3, 4, nobias=True)
    assert [name for name, _ in link.namedparams()] == ["/W"]
    assert not hasattr(link, "V1")


def test_initial_bias_tuple_initializes_v1_v2_b():
    V1 = numpy.ones((2, 4), numpy.float32)
    link = Bilinear(2, 3, 4, initial_bias=(V1, 2.0, 3.0))
    numpy.testing.assert_array_equal(link.V1.array, V1)
    assert (link.V2.array == 2).all() and (link.b.array == 3).all()


@pytest.mark.parametrize("kwargs, match", [
    ({"initialW": numpy.ones((2, 3, 5))}, "initialW must have shape"),
    ({"initial_bias": (numpy.ones((3, 4)), None, None)}, "V1"),
    ({"initial_bias": 1}, "initial_bias must be a tuple"),
    ({"initial_bias": (None, None)}, "initial_bias must be a tuple"),
])
def test_bad_initializers_raise_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Bilinear(2, 3, 4, **kwargs)


@pytest.mark.parametrize("nobias, initialW, initial_bias", [
    (True, numpy.ones((3, 3, 4)), None),
    (False, numpy.ones((2, 3, 4)), (numpy.ones((2, 4)), numpy.ones((4, 4)), numpy.ones(4))),
    (False, numpy.ones((2, 3, 4)), (numpy.ones((2, 4)), numpy.ones((3, 4)), numpy.ones(5))),
])
def test_wrongly_shaped_array_initializer_is_also_an_assertion_error(
        nobias, initialW, initial_bias):
    # Chainer rejects these with a bare assert, so legacy code may catch AssertionError.
    with pytest.raises(AssertionError, match="must have shape"):
        Bilinear(2, 3, 4, nobias, initialW, initial_bias)


@pytest.mark.parametrize("nobias", [False, True])
def test_output_matches_numpy(nobias):
    link = Bilinear(2, 3, 4, nobias=nobias)
    rng = numpy.random.RandomState(3)
    if not nobias:
        link.b.array[...] = rng.rand(4)
    e1 = rng.rand(5, 2).astype(numpy.float32)
    e2 = rng.rand(5, 3).astype(numpy.float32)
    extra = () if nobias else (link.V1.array, link.V2.array, link.b.array)
    # float32 sums in another order: an output near 0 differs by rounding, not relatively.
    numpy.testing.assert_allclose(
        link(e1, e2).array, _bilinear_reference(e1, e2, link.W.array, *extra), rtol=1e-5,
        atol=1e-6)


@pytest.mark.parametrize("nobias", [False, True])
def test_backward_matches_numerical_gradient(nobias):
    with chainer.using_config("dtype", numpy.float64):
        link = Bilinear(2, 3, 4, nobias=nobias)
    e1 = numpy.random.uniform(-1, 1, (5, 2))
    e2 = numpy.random.uniform(-1, 1, (5, 3))
    gy = numpy.random.uniform(-1, 1, (5, 4))
    params = tuple(link.params())
    gradient_check.check_backward(link, (e1, e2), gy, params, dtype=numpy.float64)


def test_zero_grads_fills_zeros():
    link = Bilinear(2, 3, 4)
    with pytest.warns(DeprecationWarning):
        link.zero_grads()
    assert all((param.grad == 0).all() for param in link.params())


def test_npz_round_trip(tmp_path):
    source = Bilinear(2, 3, 4)
    path = tmp_path / "bilinear.npz"
    serializers.save_npz(str(path), source)
    with numpy.load(path) as saved:
        assert sorted(saved.files) == ["V1", "V2", "W", "b"]
    target = Bilinear(2, 3, 4)
    serializers.load_npz(str(path), target)
    for name in ("W", "V1", "V2", "b"):
        numpy.testing.assert_array_equal(getattr(target, name).array,
                                         getattr(source, name).array)
