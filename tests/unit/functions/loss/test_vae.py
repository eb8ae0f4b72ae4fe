"""gaussian_kl_divergence, gaussian_nll and bernoulli_nll: values against closed forms, every
reduction, gradients of first and second order, invalid reductions."""

from __future__ import annotations

import math

import numpy
import pytest
from gradient_paths import LabelRecorder, gradients_under_a_hook

from chainer_compat import Variable, gradient_check
from chainer_compat.functions.loss.vae import bernoulli_nll, gaussian_kl_divergence, gaussian_nll


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _kl(mean, ln_var):
    return 0.5 * (mean ** 2 + numpy.exp(ln_var) - ln_var - 1)


def _gaussian_nll(x, mean, ln_var):
    variance = numpy.exp(ln_var)
    return 0.5 * (numpy.log(2 * math.pi * variance) + (x - mean) ** 2 / variance)


def _bernoulli_nll(x, y):
    p = 1 / (1 + numpy.exp(-y))
    return -(x * numpy.log(p) + (1 - x) * numpy.log(1 - p))


def _reduce(values, reduce):
    return {"sum": values.sum(), "mean": values.mean(), "no": values}[reduce]


def _arrays(count, dtype, seed=0):
    rng = numpy.random.default_rng(seed)
    return tuple(rng.uniform(-1, 1, (3, 2)).astype(dtype) for _ in range(count))


CASES = [
    ("gaussian_kl_divergence", gaussian_kl_divergence, _kl, 2),
    ("gaussian_nll", gaussian_nll, _gaussian_nll, 3),
    ("bernoulli_nll", bernoulli_nll, _bernoulli_nll, 2),
]
IDS = [case[0] for case in CASES]


@pytest.mark.parametrize("name, function, reference, arity", CASES, ids=IDS)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("reduce", ["sum", "mean", "no"])
def test_forward_matches_closed_form(xp, name, function, reference, arity, dtype, reduce):
    arrays = _arrays(arity, dtype)
    if name == "bernoulli_nll":
        arrays = ((arrays[0] > 0).astype(dtype), arrays[1])
    y = function(*[xp.asarray(a) for a in arrays], reduce=reduce)
    expected = _reduce(reference(*[a.astype(numpy.float64) for a in arrays]), reduce)
    assert y.dtype == dtype and y.shape == numpy.shape(expected)
    tolerance = {"atol": 2e-2, "rtol": 2e-2} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(_host(y.array), expected, **tolerance)


@pytest.mark.parametrize("name, function, reference, arity", CASES, ids=IDS)
@pytest.mark.parametrize("reduce", ["sum", "mean", "no"])
def test_backward_and_double_backward_match_numerical(xp, name, function, reference, arity,
                                                      reduce):
    arrays = tuple(xp.asarray(a) for a in _arrays(arity, numpy.float64, seed=1))
    rng = numpy.random.default_rng(2)
    gy = xp.asarray(rng.standard_normal(() if reduce != "no" else (3, 2)))
    grad_grads = tuple(xp.asarray(rng.standard_normal((3, 2))) for _ in arrays)

    def f(*args):
        return function(*args, reduce=reduce)

    gradient_check.check_backward(f, arrays, gy)
    gradient_check.check_double_backward(f, arrays, gy, grad_grads)


@pytest.mark.parametrize("name, function, reference, arity", CASES, ids=IDS)
def test_invalid_reduce_raises_value_error(name, function, reference, arity):
    with pytest.raises(ValueError, match="^only 'sum', 'mean' and 'no' are valid for 'reduce'"):
        function(*_arrays(arity, numpy.float32), reduce="max")


@pytest.mark.parametrize("mean_is_variable", [True, False])
def test_gaussian_kl_divergence_applies_chainers_functions(mean_is_variable):
    rng = numpy.random.default_rng(13)
    mean, ln_var = (rng.standard_normal((4, 3)).astype(numpy.float32) for _ in range(2))
    with LabelRecorder() as recorder:
        gaussian_kl_divergence(Variable(mean) if mean_is_variable else mean, ln_var,
                               reduce="mean")
    # Chainer 7.8.1's sequence: exp before the square, which an array mean has no node for.
    square = ["_ * _"] if mean_is_variable else []
    assert recorder.labels == ["exp"] + square + ["_ + _", "_ - _", "_ + (-1)", "_ * 0.5",
                                                  "Mean"]
    plain, hooked, labels = gradients_under_a_hook(
        gaussian_kl_divergence, (mean, ln_var), numpy.array(1.5, numpy.float32))
    assert labels == ["BroadcastTo", "_ * 0.5", "__neg__", "_ * _", "_ * _", "_ + _", "_ * _",
                      "_ + _"]
    for gradient, under_hook in zip(plain, hooked):
        numpy.testing.assert_array_equal(gradient, under_hook)


@pytest.mark.parametrize("variables, labels", [
    # Chainer 7.8.1's sequences: the precision first; arrays are combined without nodes.
    ((True, True, True), ["__neg__", "exp", "_ - _", "_ * _", "_ * _", "_ * (-0.5)",
                          "_ + 1.8378770664093453", "_ * 0.5", "_ - _"]),
    ((False, False, False), ["exp", "_ * _", "_ * (-0.5)", "_ - _"]),
    ((False, True, False), ["exp", "_ - _", "_ * _", "_ * _", "_ * (-0.5)", "_ - _"]),
])
def test_gaussian_nll_applies_chainers_functions(variables, labels):
    rng = numpy.random.default_rng(18)
    arrays = [rng.standard_normal((2, 3)).astype(numpy.float32) for _ in range(3)]
    inputs = [Variable(a) if wrap else a for a, wrap in zip(arrays, variables)]
    with LabelRecorder() as recorder:
        loss = gaussian_nll(*inputs, reduce="no")
    assert recorder.labels == labels
    x, mean, ln_var = (a.astype(numpy.float64) for a in arrays)
    expected = 0.5 * (ln_var + math.log(2 * math.pi)) + 0.5 * (x - mean) ** 2 * numpy.exp(-ln_var)
    numpy.testing.assert_allclose(loss.array, expected, rtol=1e-5)
