"""Parameters as Chainer 7.8.1 names and orders them, for the callables where a comparison of
every public signature with Chainer's found a difference: each must take Chainer's
parameters, in Chainer's order, with Chainer's defaults; ours may add optional ones after
them. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer 7.8.1 itself.
"""

from __future__ import annotations

import importlib
import inspect
import os

import numpy
import pytest

PACKAGE = os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat")
EMPTY = inspect.Parameter.empty

# (module, attribute path, Chainer's parameters: a name, or (name, default))
SIGNATURES = [
    ("utils.conv", "im2col",
     ["img", "kh", "kw", "sy", "sx", "ph", "pw", ("cover_all", False), ("dy", 1), ("dx", 1),
      ("out_h", None), ("out_w", None)]),
    ("utils.conv", "im2col_cpu",
     ["img", "kh", "kw", "sy", "sx", "ph", "pw", ("pval", 0), ("cover_all", False), ("dy", 1),
      ("dx", 1), ("out_h", None), ("out_w", None)]),
    ("utils.conv", "im2col_gpu",
     ["img", "kh", "kw", "sy", "sx", "ph", "pw", ("cover_all", False), ("dy", 1), ("dx", 1),
      ("out_h", None), ("out_w", None)]),
    ("utils.conv_nd", "im2col_nd",
     ["img", "ksize", "stride", "pad", ("cover_all", False), ("dilate", 1)]),
    ("utils.conv_nd", "im2col_nd_cpu",
     ["img", "ksize", "stride", "pad", ("pval", 0), ("cover_all", False), ("dilate", 1)]),
    ("functions.activation.tanh", "TanhGrad.__init__", ["self", "x"]),
    ("functions.activation.sigmoid", "SigmoidGrad.__init__", ["self", "inputs"]),
    ("functions.activation.softplus", "SoftplusGrad.__init__", ["self", "inputs"]),
    ("functions.activation.elu", "ELUGrad.__init__", ["self", "alpha", "cond"]),
    ("functions.array.repeat", "RepeatGrad.__init__",
     ["self", "repeats", "axis", "in_shape", "in_dtype"]),
    ("functions.loss.negative_sampling", "NegativeSamplingFunctionGrad.__init__",
     ["self", "reduce", "ignore_mask", "sample_size", "samples", "wx"]),
    ("sequential", "Sequential.insert", ["self", "i", "layer"]),
    ("sequential", "Sequential.pop", ["self", ("i", -1)]),
    ("testing", "FunctionTestError.check", ["expr", "message"]),
    ("testing", "LinkTestError.check", ["expr", "message"]),
]


def _resolve(module: str, path: str):
    target = importlib.import_module(f"{PACKAGE}.{module}")
    for name in path.split("."):
        target = getattr(target, name)
    return target


@pytest.mark.parametrize("module, path, expected", SIGNATURES,
                         ids=[f"{m}.{p}" for m, p, _ in SIGNATURES])
def test_takes_chainers_parameters_in_chainers_order(module, path, expected):
    parameters = list(inspect.signature(_resolve(module, path)).parameters.values())
    positional = [p for p in parameters
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = [e if isinstance(e, str) else e[0] for e in expected]
    assert [p.name for p in positional[:len(names)]] == names
    for entry, parameter in zip(expected, positional):
        if not isinstance(entry, str):
            assert parameter.default == entry[1], parameter
    for parameter in positional[len(names):]:
        assert parameter.default is not EMPTY, f"an extra parameter needs a default: {parameter}"


@pytest.mark.parametrize("case", ["FunctionTestCase", "LinkTestCase"])
def test_test_cases_compute_numerical_gradients_in_float64_by_default(case):
    testing = importlib.import_module(f"{PACKAGE}.testing")
    assert getattr(testing, case).numerical_grad_dtype is numpy.float64


def test_polynomial_shift_keeps_its_invoke_before_training_flag():
    extensions = importlib.import_module(f"{PACKAGE}.training.extensions")
    assert extensions.PolynomialShift("lr", 2, 10).invoke_before_training is True
