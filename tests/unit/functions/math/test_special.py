"""The special functions (erf family, ndtr family, lgamma, digamma, polygamma, zeta): values
against SciPy, gradients of first and second order, type errors, and the CPU paths when SciPy
is missing (an ImportError, or for erf, erfc and ndtr a slower fallback with a warning)."""

from __future__ import annotations

import math
import warnings

import numpy
import pytest
import scipy.special
from gradient_paths import gradients_under_a_hook

import chainer_compat
from chainer_compat import warnings as compat_warnings
from chainer_compat.functions.math import (
    _special,
    digamma,
    erf,
    erfc,
    erfcinv,
    erfcx,
    erfinv,
    lgamma,
    log_ndtr,
    ndtr,
    ndtri,
    polygamma,
    zeta,
)
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]

# name: (function, SciPy reference, input range kept away from poles and domain edges).
UNARY = {
    "erf": (erf.erf, scipy.special.erf, (-2.0, 2.0)),
    "erfc": (erfc.erfc, scipy.special.erfc, (-2.0, 2.0)),
    "erfinv": (erfinv.erfinv, scipy.special.erfinv, (-0.9, 0.9)),
    "erfcinv": (erfcinv.erfcinv, scipy.special.erfcinv, (0.1, 1.9)),
    "erfcx": (erfcx.erfcx, scipy.special.erfcx, (-1.0, 3.0)),
    "ndtr": (ndtr.ndtr, scipy.special.ndtr, (-3.0, 3.0)),
    "ndtri": (ndtri.ndtri, scipy.special.ndtri, (0.1, 0.9)),
    "log_ndtr": (log_ndtr.log_ndtr, scipy.special.log_ndtr, (-4.0, 3.0)),
    "lgamma": (lgamma.lgamma, scipy.special.gammaln, (0.5, 4.0)),
    "digamma": (digamma.digamma, scipy.special.digamma, (0.5, 4.0)),
}
# Chainer's fallback for these three uses Python's math module when SciPy is missing.
FALLBACK = {"erf": math.erf, "erfc": math.erfc,
            "ndtr": lambda x: 0.5 * math.erfc(-x / math.sqrt(2.0))}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_unary_values_and_gradients_match_scipy(name, shape, dtype, uniform, check_function):
    func, reference, (low, high) = UNARY[name]
    check_function(func, (uniform(shape, dtype, low, high),), reference)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_label_and_type_check(name):
    func = UNARY[name][0]
    assert func(numpy.full(2, 0.5, numpy.float32)).creator.label == name
    with pytest.raises(type_check.InvalidType, match=rf"{name} \(Forward\)"):
        func(numpy.arange(3))


def test_log_ndtr_gradient_stays_finite_in_the_far_tail():
    x = chainer_compat.Variable(numpy.array([-40.0, -20.0]))
    y = log_ndtr.log_ndtr(x)
    y.grad = numpy.ones(2)
    y.backward()
    # d/dx log ndtr(x) approaches -x as x goes to minus infinity.
    numpy.testing.assert_allclose(x.grad, -x.array, rtol=1e-2)


@pytest.mark.parametrize("order", [0, 1, 2])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_polygamma_values_and_gradients(order, dtype, xp, uniform, check_function):
    x = uniform((2, 3), dtype, 0.5, 3.0)
    n = xp.full((2, 3), order, dtype=numpy.int32)
    check_function(lambda x, n: polygamma.polygamma(n, x), (x, n),
                   lambda x, n: scipy.special.polygamma(n, x))


def test_polygamma_orders_broadcast_against_x(xp, uniform, check_function):
    x = uniform((2, 3), numpy.float64, 0.5, 3.0)
    n = xp.asarray([0, 1, 2], numpy.int64)
    check_function(lambda x, n: polygamma.polygamma(n, x), (x, n),
                   lambda x, n: scipy.special.polygamma(n, x))


def test_polygamma_rejects_float_orders_and_integer_x():
    x = numpy.full(3, 0.5, numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"polygamma \(Forward\)[\s\S]*n\.dtype"):
        polygamma.polygamma(numpy.ones(3, numpy.float32), x)
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype"):
        polygamma.polygamma(numpy.ones(3, numpy.int32), numpy.arange(3))


@pytest.mark.parametrize("exponent", [2.0, 3.5])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_zeta_values_and_gradients(exponent, dtype, uniform, check_function):
    q = uniform((2, 3), dtype, 0.5, 2.0)
    check_function(lambda q: zeta.zeta(exponent, q), (q,),
                   lambda q: scipy.special.zeta(exponent, q))


def test_zeta_label_and_type_check():
    assert zeta.zeta(2.0, numpy.ones(2, numpy.float32)).creator.label == "zeta"
    with pytest.raises(type_check.InvalidType, match=r"zeta \(Forward\)[\s\S]*q\.dtype"):
        zeta.zeta(2.0, numpy.arange(1, 3))


@pytest.fixture
def without_scipy(monkeypatch):
    """Makes scipy.special unimportable for the special functions and forgets found kernels."""
    def missing():
        raise ImportError("No module named 'scipy'")
    monkeypatch.setattr(_special, "_scipy_special", missing)
    monkeypatch.setattr(_special, "_cpu_kernels", {})


@pytest.mark.parametrize("name", sorted(set(UNARY) - set(FALLBACK)))
def test_missing_scipy_raises_import_error_that_says_how_to_install(name, without_scipy):
    func, _, (low, high) = UNARY[name]
    with pytest.raises(ImportError, match=r"SciPy is not available[\s\S]*pip install scipy"):
        func(numpy.full(2, (low + high) / 2))


@pytest.mark.parametrize("func, order", [
    (lambda x: polygamma.polygamma(numpy.zeros(2, numpy.int32), x), "polygamma"),
    (lambda x: zeta.zeta(2.0, x), "zeta")])
def test_missing_scipy_also_stops_polygamma_and_zeta(func, order, without_scipy):
    with pytest.raises(ImportError, match=rf"{order}[\s\S]*pip install scipy"):
        func(numpy.ones(2))


@pytest.mark.parametrize("name", sorted(FALLBACK))
def test_missing_scipy_falls_back_to_python_math_with_a_warning(name, without_scipy):
    func = UNARY[name][0]
    x = numpy.linspace(-2.0, 2.0, 7).astype(numpy.float32)
    with pytest.warns(compat_warnings.PerformanceWarning, match="pip install scipy"):
        y = func(x)
    assert y.dtype == numpy.float32
    expected = numpy.array([FALLBACK[name](float(v)) for v in x])
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6, atol=1e-7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        func(x)  # the fallback is found once, so it warns once


@pytest.mark.parametrize("function, labels", [
    # Chainer 7.8.1's sequences.
    (erf.erf, ["_ ** 2", "__neg__", "exp", "_ * 1.1283791670955126", "_ * _"]),
    (erfc.erfc, ["_ ** 2", "__neg__", "exp", "_ * (-1.1283791670955126)", "_ * _"]),
    (ndtr.ndtr, ["_ ** 2", "_ * (-0.5)", "exp", "_ * 0.3989422804014327", "_ * _"]),
    (erfinv.erfinv, ["_ ** 2", "exp", "_ * 0.8862269254527579", "_ * _"]),
    (ndtri.ndtri, ["_ ** 2", "_ * 0.5", "exp", "_ * 2.5066282746310002", "_ * _"]),
    (log_ndtr.log_ndtr, ["__neg__", "_ * 0.7071067811865475", "erfcx", "0.7978845608028654 / _",
                "_ * _"]),
    (lambda x: polygamma.polygamma(numpy.ones(4, numpy.int32), x), ["_ + 1", "polygamma", "_ * _"]),
    (erfcx.erfcx, ["_ * _", "_ + (-0.5641895835477563)", "_ * 2", "_ * _"]),
])
def test_a_hook_sees_chainers_gradient_nodes(function, labels):
    x = numpy.array([0.1, 0.35, 0.6, 0.85], numpy.float32)
    gy = numpy.array([1.0, -2.0, 0.5, 3.0], numpy.float32)
    plain, hooked, seen = gradients_under_a_hook(function, (x,), gy)
    assert seen == labels
    numpy.testing.assert_array_equal(plain[0], hooked[0])
