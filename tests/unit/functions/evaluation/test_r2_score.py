"""r2_score: values against the textbook formula, both multioutput modes, errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.evaluation.r2_score import r2_score
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _reference(pred, true):
    pred = pred.astype(numpy.float64)
    true = true.astype(numpy.float64)
    residual = ((true - pred) ** 2).sum(axis=0)
    spread = ((true - true.mean(axis=0)) ** 2).sum(axis=0)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        return numpy.where(spread == 0, 0.0, 1 - residual / spread)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(6,), (6, 3), (5, 2, 2)])
@pytest.mark.parametrize("multioutput", ["uniform_average", "raw_values"])
def test_matches_formula(xp, dtype, shape, multioutput):
    rng = numpy.random.default_rng(0)
    true = rng.standard_normal(shape).astype(dtype)
    pred = (true + 0.3 * rng.standard_normal(shape)).astype(dtype)
    result = r2_score(xp.asarray(pred), xp.asarray(true), multioutput=multioutput)
    expected = _reference(pred, true)
    if multioutput == "uniform_average":
        expected = expected.mean()
    assert result.dtype == dtype and result.shape == numpy.shape(expected)
    tolerance = {"atol": 1e-2} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(_host(result.array), expected, **tolerance)


def test_constant_target_scores_zero():
    true = numpy.array([[1.0, 2.0], [1.0, 3.0]])
    result = r2_score(numpy.array([[0.0, 2.0], [5.0, 3.0]]), true, multioutput="raw_values")
    numpy.testing.assert_array_equal(result.array, [0.0, 1.0])


def test_sample_weight_raises_not_implemented_error():
    with pytest.raises(NotImplementedError, match="sample_weight of r2_score must be None"):
        r2_score(numpy.zeros(3), numpy.zeros(3), sample_weight=numpy.ones(3))


def test_invalid_multioutput_raises_value_error():
    with pytest.raises(ValueError, match="multioutput of r2_score must be 'uniform_average'"):
        r2_score(numpy.zeros(3), numpy.zeros(3), multioutput="variance_weighted")


def test_shape_mismatch_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"R2_score[\s\S]*pred\.shape == true\.shape"):
        r2_score(numpy.zeros((3, 2)), numpy.zeros((2, 3)))
