"""Tests for chainer_compat.links.connection.bias: Bias with a learned b and with a second
input."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check, serializers
from chainer_compat.links.connection.bias import Bias


def test_learned_bias_is_zeros_of_given_shape():
    link = Bias(axis=1, shape=(3,))
    assert [name for name, _ in link.namedparams()] == ["/b"]
    numpy.testing.assert_array_equal(link.b.array, numpy.zeros(3, numpy.float32))
    assert link.b.dtype == numpy.float32
    assert Bias(shape=3).b.shape == (3,)


def test_config_dtype_sets_bias_dtype():
    with chainer.using_config("dtype", numpy.float64):
        assert Bias(shape=(2,)).b.dtype == numpy.float64


def test_without_shape_there_is_no_parameter():
    link = Bias()
    assert list(link.params()) == []
    assert not hasattr(link, "b")


@pytest.mark.parametrize("axis", [1, 2])
def test_learned_bias_output_matches_numpy(axis):
    x = numpy.random.rand(2, 3, 4).astype(numpy.float32)
    shape = x.shape[axis:axis + 1]
    link = Bias(axis=axis, shape=shape)
    link.b.array[...] = numpy.random.rand(*shape)
    expanded = link.b.array.reshape(shape + (1,) * (x.ndim - axis - 1))
    numpy.testing.assert_allclose(link(x).array, x + expanded, rtol=1e-6)


def test_two_input_form_broadcasts_second_input():
    x = numpy.random.rand(2, 3, 4).astype(numpy.float32)
    y = numpy.random.rand(3, 4).astype(numpy.float32)
    numpy.testing.assert_allclose(Bias(axis=1)(x, y).array, x + y[None], rtol=1e-6)


def test_wrong_number_of_inputs_raises_value_error():
    x = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(ValueError, match="one input, got 2"):
        Bias(shape=(3,))(x, x)
    with pytest.raises(ValueError, match="two inputs, got 1"):
        Bias()(x)


def test_backward_matches_numerical_gradient():
    with chainer.using_config("dtype", numpy.float64):
        link = Bias(axis=1, shape=(3,))
    link.b.array[...] = numpy.random.uniform(-1, 1, 3)
    x = numpy.random.uniform(-1, 1, (2, 3, 4))
    gy = numpy.random.uniform(-1, 1, (2, 3, 4))
    gradient_check.check_backward(link, x, gy, link.b, dtype=numpy.float64)


def test_two_input_backward_matches_numerical_gradient():
    x = numpy.random.uniform(-1, 1, (2, 3, 4))
    y = numpy.random.uniform(-1, 1, (3, 4))
    gy = numpy.random.uniform(-1, 1, (2, 3, 4))
    gradient_check.check_backward(Bias(axis=1), (x, y), gy, dtype=numpy.float64)


def test_npz_round_trip(tmp_path):
    source = Bias(shape=(3,))
    source.b.array[...] = numpy.arange(3)
    path = tmp_path / "bias.npz"
    serializers.save_npz(str(path), source)
    with numpy.load(path) as saved:
        assert saved.files == ["b"]
    target = Bias(shape=(3,))
    serializers.load_npz(str(path), target)
    numpy.testing.assert_array_equal(target.b.array, source.b.array)


def test_copy_shares_and_copies():
    link = Bias(shape=(3,))
    assert link.copy().b.array is link.b.array
    copied = link.copy("copy")
    copied.b.array[...] = 1
    assert (link.b.array == 0).all()


@pytest.mark.gpu
def test_runs_on_gpu(cupy):
    link = Bias(shape=(3,)).to_device("@cupy:0")
    y = link(cupy.ones((2, 3), cupy.float32))
    assert isinstance(link.b.array, cupy.ndarray)
    numpy.testing.assert_array_equal(cupy.asnumpy(y.array), numpy.ones((2, 3)))
