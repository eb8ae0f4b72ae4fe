"""Pins Chainer-visible behaviour of the evaluation, normalization, noise, array and math
functions added last (and their links), against NumPy references written here.

Runs on Chainer itself with CHAINER_CONFORMANCE_TARGET=chainer (see the session notes). The
functions are reached at Chainer's module paths, so the file does not depend on the
re-exports in ``functions/__init__.py``.
"""

from __future__ import annotations

import importlib
import math
import os
import warnings

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
type_check = importlib.import_module(chainer.__name__ + ".utils.type_check")
gradient_check = importlib.import_module(chainer.__name__ + ".gradient_check")


def _module(path: str):
    return importlib.import_module(f"{chainer.__name__}.{path}")


def _function(path: str, name: str):
    return getattr(_module("functions." + path), name)


def _link(path: str, name: str):
    return getattr(_module("links." + path), name)


# ----------------------------------------------------------------------------- evaluation


def _summary_reference(y, t, label_num, beta, ignore_label):
    predicted = y.argmax(axis=1).ravel()
    true = t.ravel()
    keep = true != ignore_label
    predicted, true = predicted[keep], true[keep]
    rows = []
    for label in range(label_num):
        tp = numpy.sum((predicted == label) & (true == label))
        relevant = numpy.sum(predicted == label)
        support = numpy.sum(true == label)
        precision = tp / relevant
        recall = tp / support
        fbeta = (1 + beta ** 2) * precision * recall / (beta ** 2 * precision + recall)
        rows.append((precision, recall, fbeta, support))
    return [numpy.array(column) for column in zip(*rows)]


@pytest.mark.parametrize("label_num,ignore_label,beta", [(None, -1, 1.0), (4, 3, 2.0)])
def test_classification_summary_matches_counts_per_class(label_num, ignore_label, beta):
    rng = numpy.random.RandomState(0)
    y = rng.standard_normal((40, 4)).astype(numpy.float32)
    t = rng.randint(0, 4, 40).astype(numpy.int32)
    summary = _function("evaluation.classification_summary", "classification_summary")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        precision, recall, fbeta, support = summary(y, t, label_num, beta, ignore_label)
        expected = _summary_reference(y, t, 4, beta, ignore_label)
    assert precision.dtype == numpy.float64 and fbeta.dtype == numpy.float64
    assert support.dtype.kind == "i"
    for got, want in zip((precision, recall, fbeta, support), expected):
        numpy.testing.assert_allclose(got.array, want, equal_nan=True)


def test_precision_recall_f1_return_score_and_support():
    rng = numpy.random.RandomState(1)
    y = rng.standard_normal((30, 3)).astype(numpy.float32)
    t = rng.randint(0, 3, 30).astype(numpy.int32)
    module = "evaluation.classification_summary"
    full = _function(module, "classification_summary")(y, t)
    for name, index in (("precision", 0), ("recall", 1), ("f1_score", 2)):
        score, support = _function(module, name)(y, t)
        numpy.testing.assert_allclose(score.array, full[index].array)
        numpy.testing.assert_array_equal(support.array, full[3].array)


def test_classification_summary_rejects_float_labels():
    summary = _function("evaluation.classification_summary", "classification_summary")
    with pytest.raises(type_check.InvalidType):
        summary(numpy.zeros((2, 3), numpy.float32), numpy.zeros(2, numpy.float32))


# ------------------------------------------------------------------------- normalization


def _group_norm_reference(x, groups, gamma, beta, eps):
    n, c = x.shape[:2]
    grouped = x.reshape(n, groups, -1).astype(numpy.float64)
    normalized = (grouped - grouped.mean(axis=2, keepdims=True)) / numpy.sqrt(
        grouped.var(axis=2, keepdims=True) + eps)
    normalized = normalized.reshape(n, c, -1)
    return (normalized * gamma[:, None] + beta[:, None]).reshape(x.shape)


def test_group_normalization_matches_numpy():
    rng = numpy.random.RandomState(2)
    x = rng.standard_normal((3, 6, 4, 2)).astype(numpy.float32)
    gamma = rng.uniform(0.5, 1.5, 6).astype(numpy.float32)
    beta = rng.standard_normal(6).astype(numpy.float32)
    y = _function("normalization.group_normalization", "group_normalization")(
        x, 3, gamma, beta, eps=1e-3)
    assert y.dtype == numpy.float32 and y.shape == x.shape
    numpy.testing.assert_allclose(y.array, _group_norm_reference(x, 3, gamma, beta, 1e-3),
                                  rtol=1e-4, atol=1e-5)


def test_group_normalization_errors():
    function = _function("normalization.group_normalization", "group_normalization")
    x = numpy.zeros((2, 6, 3), numpy.float32)
    gamma = numpy.ones(6, numpy.float32)
    with pytest.raises(ValueError):
        function(x, 4, gamma, gamma)
    with pytest.raises(TypeError):
        function(x, 3.0, gamma, gamma)
    with pytest.raises(type_check.InvalidType):
        function(x, 3, numpy.ones(5, numpy.float32), numpy.ones(5, numpy.float32))


def test_group_normalization_link_infers_size_and_names_parameters():
    link = _link("normalization.group_normalization", "GroupNormalization")(2)
    assert link.gamma.array is None and link.eps == 1e-5 and link.groups == 2
    x = numpy.random.RandomState(3).standard_normal((2, 4, 3)).astype(numpy.float32)
    y = link(x)
    assert sorted(name for name, _ in link.namedparams()) == ["/beta", "/gamma"]
    numpy.testing.assert_array_equal(link.gamma.array, numpy.ones(4, numpy.float32))
    numpy.testing.assert_allclose(
        y.array, _group_norm_reference(x, 2, numpy.ones(4), numpy.zeros(4), 1e-5),
        rtol=1e-4, atol=1e-5)


def _renorm_reference(x, gamma, beta, mean_run, var_run, rmax, dmax, eps):
    mean = x.mean(axis=0)
    std = numpy.sqrt(x.var(axis=0) + eps)
    sigma_run = numpy.sqrt(var_run + eps)
    r = numpy.clip(std / sigma_run, 1 / rmax, rmax)
    d = numpy.clip((mean - mean_run) / sigma_run, -dmax, dmax)
    return gamma * ((x - mean) / std * r + d) + beta


@pytest.mark.parametrize("update_statistics", [False, True])
def test_batch_renormalization_values_and_running_statistics(update_statistics):
    rng = numpy.random.RandomState(4)
    x = rng.standard_normal((8, 3)) * 2 + 1
    gamma, beta = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3)
    mean_run, var_run = rng.standard_normal(3) * 0.1, rng.uniform(0.5, 2, 3)
    expected = _renorm_reference(x, gamma, beta, mean_run, var_run, 1.5, 0.3, 2e-5)
    running_mean, running_var = mean_run.copy(), var_run.copy()
    function = _function("normalization.batch_renormalization", "batch_renormalization")
    y = function(x, gamma, beta, 1.5, 0.3, running_mean=running_mean,
                 running_var=running_var, decay=0.8, update_statistics=update_statistics)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)
    if update_statistics:
        numpy.testing.assert_allclose(running_mean, 0.8 * mean_run + 0.2 * x.mean(axis=0))
        numpy.testing.assert_allclose(running_var,
                                      0.8 * var_run + 0.2 * x.var(axis=0, ddof=1))
    else:
        numpy.testing.assert_array_equal(running_mean, mean_run)
        numpy.testing.assert_array_equal(running_var, var_run)


def test_batch_renormalization_gradients_treat_corrections_as_constants():
    rng = numpy.random.RandomState(5)
    x = rng.standard_normal((6, 2, 3))
    gamma, beta = rng.uniform(0.5, 1.5, 2), rng.standard_normal(2)
    # Running statistics far from the batch's saturate r at rmax and d at dmax, so that the
    # numerical gradient also sees them as constants.
    mean_run, var_run = numpy.full(2, -5.0), numpy.full(2, 0.01)
    function = _function("normalization.batch_renormalization", "batch_renormalization")

    def renormalize(x, gamma, beta):
        return function(x, gamma, beta, 1.3, 0.2, running_mean=mean_run.copy(),
                        running_var=var_run.copy())

    gradient_check.check_backward(renormalize, (x, gamma, beta), rng.standard_normal(x.shape),
                                  atol=1e-4, rtol=1e-3)


def test_batch_renormalization_requires_running_statistics():
    function = _function("normalization.batch_renormalization", "batch_renormalization")
    ones = numpy.ones(3)
    with pytest.raises(TypeError):
        function(numpy.zeros((2, 3)), ones, ones, 1, 0, running_var=ones)
    with pytest.raises(TypeError):
        function(numpy.zeros((2, 3)), ones, ones, 1, 0, running_mean=ones)


def test_fixed_batch_renormalization_warns_and_uses_given_statistics():
    rng = numpy.random.RandomState(6)
    x = rng.standard_normal((4, 3))
    gamma, beta, mean, var = rng.uniform(0.5, 1, 3), rng.standard_normal(3), \
        rng.standard_normal(3), rng.uniform(0.5, 1, 3)
    function = _function("normalization.batch_renormalization", "fixed_batch_renormalization")
    with pytest.warns(DeprecationWarning):
        y = function(x, gamma, beta, mean, var)
    numpy.testing.assert_allclose(y.array, gamma * (x - mean) / numpy.sqrt(var + 2e-5) + beta)


def test_batch_renormalization_link_persistents_and_modes():
    link = _link("normalization.batch_renormalization", "BatchRenormalization")(
        3, rmax=2.0, dmax=0.5)
    assert (link.rmax, link.dmax, link.decay, link.eps) == (2.0, 0.5, 0.9, 2e-5)
    assert link.r is None and link.d is None
    assert sorted(name for name, _ in link.namedparams()) == ["/beta", "/gamma"]
    assert {"avg_mean", "avg_var", "N"} <= set(link._persistent)
    x = numpy.random.RandomState(7).standard_normal((5, 3)).astype(numpy.float32)
    expected = _renorm_reference(x.astype(numpy.float64), 1, 0, numpy.zeros(3), numpy.ones(3),
                                 2.0, 0.5, 2e-5)
    with chainer.using_config("train", True):
        y = link(x)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)
    numpy.testing.assert_allclose(link.avg_mean, 0.1 * x.mean(axis=0), rtol=1e-5)
    with chainer.using_config("train", False):
        y = link(x)
    numpy.testing.assert_allclose(
        y.array, (x - link.avg_mean) / numpy.sqrt(link.avg_var + 2e-5), rtol=1e-5)


def _to_groups(x, groups):
    order = (1, 0) + tuple(range(2, x.ndim))
    return x.transpose(order).reshape(groups, x.shape[1] // groups, -1)


def _from_groups(grouped, shape):
    order = (1, 0) + tuple(range(2, len(shape)))
    return grouped.reshape((shape[1], shape[0]) + tuple(shape[2:])).transpose(order)


def test_decorrelated_batch_normalization_whitens_each_group():
    rng = numpy.random.RandomState(8)
    x = rng.standard_normal((10, 4, 3)) @ numpy.diag([1.0, 2.0, 3.0])
    x[:, 1] += 0.5 * x[:, 0]
    running_mean = numpy.zeros((2, 2))
    running_projection = numpy.broadcast_to(numpy.eye(2), (2, 2, 2)).copy()
    function = _function("normalization.decorrelated_batch_normalization",
                         "decorrelated_batch_normalization")
    y = function(x, groups=2, eps=0.0, running_mean=running_mean,
                 running_projection=running_projection, decay=0.5)
    assert y.shape == x.shape
    grouped_x = _to_groups(x, 2)
    grouped = _to_groups(y.array, 2)
    count = grouped.shape[2]
    covariance = grouped @ grouped.transpose(0, 2, 1) / count
    numpy.testing.assert_allclose(covariance, numpy.broadcast_to(numpy.eye(2), (2, 2, 2)),
                                  atol=1e-8)
    numpy.testing.assert_allclose(running_mean, 0.5 * grouped_x.mean(axis=2))
    centered = grouped_x - grouped_x.mean(axis=2, keepdims=True)
    values, vectors = numpy.linalg.eigh(centered @ centered.transpose(0, 2, 1) / count)
    whitening = vectors @ (values[:, :, None] ** -0.5 * vectors.transpose(0, 2, 1))
    numpy.testing.assert_allclose(
        running_projection, 0.5 * numpy.eye(2) + 0.5 * count / (count - 1) * whitening,
        rtol=1e-6)


def test_decorrelated_batch_normalization_input_gradient():
    rng = numpy.random.RandomState(9)
    x = rng.standard_normal((6, 4, 2))
    function = _function("normalization.decorrelated_batch_normalization",
                         "decorrelated_batch_normalization")
    gradient_check.check_backward(lambda x: function(x, groups=2), x,
                                  rng.standard_normal(x.shape), atol=1e-4, rtol=1e-3)


def _principal_axes_reference(x, gy, groups, eps):
    """Decorrelated batch normalization written with explicit diagonal matrices: PCA whitening
    (diag(w^-1/2) V^T), the rotation back (V), and the gradient on the principal axes, with the
    pair coupling through 1 / (w_i - w_j). Returns y, the projection V diag(w^-1/2) V^T and gx."""
    def diagonal(rows):
        return numpy.stack([numpy.diag(row) for row in rows])

    grouped = _to_groups(x, groups)
    count = grouped.shape[2]
    centered = grouped - grouped.mean(axis=2, keepdims=True)
    covariance = (centered @ centered.transpose(0, 2, 1) / x.dtype.type(count)
                  + x.dtype.type(eps) * numpy.eye(grouped.shape[1], dtype=x.dtype))
    values, vectors = numpy.linalg.eigh(covariance)
    to_principal = diagonal(values ** -0.5) @ vectors.transpose(0, 2, 1)
    principal = to_principal @ centered
    y = vectors @ principal

    g_principal = vectors.transpose(0, 2, 1) @ _to_groups(gy, groups)
    products = g_principal @ principal.transpose(0, 2, 1) / x.dtype.type(count)
    gaps = values[:, :, None] - values[:, None, :]
    inverse_gaps = numpy.zeros_like(gaps)
    inverse_gaps[gaps != 0] = 1 / gaps[gaps != 0]
    half = inverse_gaps.transpose(0, 2, 1) * (
        diagonal(values) @ products.transpose(0, 2, 1)
        + diagonal(values ** 0.5) @ products @ diagonal(values ** 0.5))
    coupling = half + half.transpose(0, 2, 1) - diagonal(
        numpy.diagonal(products, axis1=1, axis2=2))
    residual = (g_principal - g_principal.mean(axis=2, keepdims=True)
                + coupling.transpose(0, 2, 1) @ principal)
    gx = (residual.transpose(0, 2, 1) @ diagonal(values ** -0.5)
          @ vectors.transpose(0, 2, 1)).transpose(0, 2, 1)
    return y, vectors @ to_principal, gx


@pytest.mark.parametrize("shape,groups", [((7, 4), 2), ((5, 3, 2), 1), ((8, 32, 3, 3), 2)])
def test_decorrelated_batch_normalization_bits_follow_the_principal_axes(shape, groups):
    # float32, whose NumPy operations round alike in NumPy 1 and 2 (float64's ** -0.5 does not).
    rng = numpy.random.RandomState(12)
    x = rng.standard_normal(shape).astype(numpy.float32)
    gy = rng.standard_normal(shape).astype(numpy.float32)
    size = shape[1] // groups
    running_projection = numpy.zeros((groups, size, size), numpy.float32)
    function = _function("normalization.decorrelated_batch_normalization",
                         "decorrelated_batch_normalization")
    variable = chainer.Variable(x)
    y = function(variable, groups=groups, running_projection=running_projection, decay=0.0)
    y.grad = gy
    y.backward()
    expected_y, projection, expected_gx = _principal_axes_reference(x, gy, groups, 2e-5)
    count = x.size // shape[1]
    assert numpy.array_equal(_to_groups(y.array, groups), expected_y)
    assert numpy.array_equal(running_projection, 1.0 * (count / (count - 1.0)) * projection)
    assert numpy.array_equal(variable.grad, _from_groups(expected_gx, shape))


def test_fixed_decorrelated_batch_normalization_values():
    rng = numpy.random.RandomState(10)
    x = rng.standard_normal((3, 4, 2))
    mean, projection = rng.standard_normal((2, 2)), rng.standard_normal((2, 2, 2))
    function = _function("normalization.decorrelated_batch_normalization",
                         "fixed_decorrelated_batch_normalization")
    y = function(x, mean, projection, groups=2)
    expected = projection @ (_to_groups(x, 2) - mean[:, :, None])
    numpy.testing.assert_allclose(_to_groups(y.array, 2), expected)


def test_decorrelated_batch_normalization_link_statistics_and_modes():
    link = _link("normalization.decorrelated_batch_normalization",
                 "DecorrelatedBatchNormalization")(4, groups=2)
    assert link.avg_mean.shape == (2, 2) and link.avg_mean.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.avg_projection, numpy.stack([numpy.eye(2)] * 2))
    assert {"avg_mean", "avg_projection", "N"} <= set(link._persistent)
    assert list(link.namedparams()) == []
    x = numpy.random.RandomState(11).standard_normal((8, 4)).astype(numpy.float32)
    with chainer.using_config("train", True):
        link(x, finetune=True)
    assert link.N == 1
    numpy.testing.assert_allclose(link.avg_mean, _to_groups(x, 2).mean(axis=2), rtol=1e-5)
    with chainer.using_config("train", False):
        y = link(x)
    expected = link.avg_projection @ (_to_groups(x, 2) - link.avg_mean[:, :, None])
    numpy.testing.assert_allclose(_to_groups(y.array, 2), expected, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------------- noise


def test_rrelu_slopes_in_train_and_test_mode():
    function = _function("activation.rrelu", "rrelu")
    x = numpy.random.RandomState(12).standard_normal((4, 5)).astype(numpy.float32)
    with chainer.using_config("train", False):
        y = function(x, 0.1, 0.3)
    numpy.testing.assert_allclose(y.array, numpy.where(x >= 0, x, 0.2 * x), rtol=1e-6)
    numpy.random.seed(3)
    with chainer.using_config("train", True):
        y, r = function(x, 0.1, 0.3, return_r=True)
    numpy.random.seed(3)
    expected_r = numpy.random.uniform(0.1, 0.3, x.shape).astype(numpy.float32)
    numpy.testing.assert_array_equal(r, expected_r)
    numpy.testing.assert_allclose(y.array, numpy.where(x >= 0, x, expected_r * x))
    given = numpy.full(x.shape, 0.25, numpy.float32)
    with chainer.using_config("train", True):
        y = function(x, r=given, return_r=False)
    numpy.testing.assert_allclose(y.array, numpy.where(x >= 0, x, 0.25 * x))


@pytest.mark.parametrize("lower,upper", [(-0.1, 0.3), (0.1, 1.0), (0.3, 0.2)])
def test_rrelu_rejects_bad_bounds(lower, upper):
    with pytest.raises(ValueError):
        _function("activation.rrelu", "rrelu")(numpy.zeros(3, numpy.float32), lower, upper)


def test_zoneout_mixes_previous_and_new_state():
    function = _function("noise.zoneout", "zoneout")
    h = numpy.zeros((5, 6), numpy.float32)
    x = numpy.ones((5, 6), numpy.float32)
    with chainer.using_config("train", False):
        assert function(h, x) is x
    numpy.random.seed(4)
    with chainer.using_config("train", True):
        y = function(h, x, 0.3)
    numpy.random.seed(4)
    keep_new = numpy.random.rand(5, 6) >= 0.3
    numpy.testing.assert_array_equal(y.array, keep_new.astype(numpy.float32))
    with pytest.raises(ValueError):
        function(h, x, train=True)


def test_simplified_dropconnect_with_mask_and_without_training():
    function = _function("noise.simplified_dropconnect", "simplified_dropconnect")
    rng = numpy.random.RandomState(13)
    x = rng.standard_normal((3, 2, 2)).astype(numpy.float32)
    w = rng.standard_normal((5, 4)).astype(numpy.float32)
    b = rng.standard_normal(5).astype(numpy.float32)
    mask = (rng.rand(3, 5, 4) > 0.4).astype(numpy.float32)
    y = function(x, w, b, 0.4, mask=mask)
    expected = numpy.einsum("ijk,ik->ij", w * mask / 0.6, x.reshape(3, 4)) + b
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)
    y = function(x, w, b, 0.4, train=False)
    numpy.testing.assert_allclose(y.array, x.reshape(3, 4) @ w.T + b, rtol=1e-5, atol=1e-6)
    shared = (rng.rand(5, 4) > 0.5).astype(numpy.float32)
    y = function(x, w, None, 0.5, mask=shared, use_batchwise_mask=False)
    numpy.testing.assert_allclose(y.array, x.reshape(3, 4) @ (w * shared * 2).T, rtol=1e-5)


def test_simplified_dropconnect_gradients_with_fixed_mask():
    function = _function("noise.simplified_dropconnect", "simplified_dropconnect")
    rng = numpy.random.RandomState(14)
    x, w, b = rng.standard_normal((3, 4)), rng.standard_normal((2, 4)), rng.standard_normal(2)
    mask = (rng.rand(3, 2, 4) > 0.5).astype(numpy.float64)
    gradient_check.check_backward(lambda x, w, b: function(x, w, b, 0.5, mask=mask),
                                  (x, w, b), rng.standard_normal((3, 2)))


def test_simplified_dropconnect_link_parameters():
    link_class = _link("activation.simplified_dropconnect", "SimplifiedDropconnect")
    link = link_class(4, 3, ratio=0.3)
    assert link.W.shape == (3, 4) and link.b.shape == (3,) and link.ratio == 0.3
    numpy.testing.assert_array_equal(link.b.array, numpy.zeros(3, numpy.float32))
    lazy = link_class(None, 3, nobias=True)
    assert lazy.b is None and lazy.W.array is None
    y = lazy(numpy.ones((2, 2, 3), numpy.float32), train=False)
    assert lazy.W.shape == (3, 6) and y.shape == (2, 3)


# ------------------------------------------------------------------------------------ util


def test_forget_gives_the_same_values_and_gradients():
    forget = _function("util.forget", "forget")
    rng = numpy.random.RandomState(15)
    a = chainer.Variable(rng.standard_normal(5))
    b = chainer.Variable(rng.standard_normal(5))
    z = forget(lambda a, b: (a + b) * a, a, b)
    numpy.testing.assert_allclose(z.array, (a.array + b.array) * a.array)
    z.grad = numpy.ones(5)
    z.backward()
    numpy.testing.assert_allclose(a.grad, 2 * a.array + b.array)
    numpy.testing.assert_allclose(b.grad, a.array)
    pair = forget(lambda a: (a * 2, a * 3), a)
    assert isinstance(pair, tuple) and len(pair) == 2
    with pytest.raises(RuntimeError):
        forget(lambda a: a.array, a)


# ----------------------------------------------------------------------------------- array


def _bilinear_reference(x, out_h, out_w, align_corners):
    n, c, h, w = x.shape

    def coordinates(out_size, in_size):
        if align_corners:
            return numpy.linspace(0, in_size - 1, out_size)
        return numpy.maximum((numpy.arange(out_size) + 0.5) * in_size / out_size - 0.5, 0)

    ys, xs = coordinates(out_h, h), coordinates(out_w, w)
    y = numpy.empty((n, c, out_h, out_w))
    for i, sy in enumerate(ys):
        for j, sx in enumerate(xs):
            y0, x0 = int(sy), int(sx)
            y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
            fy, fx = sy - y0, sx - x0
            y[:, :, i, j] = ((1 - fy) * (1 - fx) * x[:, :, y0, x0] + (1 - fy) * fx
                             * x[:, :, y0, x1] + fy * (1 - fx) * x[:, :, y1, x0]
                             + fy * fx * x[:, :, y1, x1])
    return y


@pytest.fixture
def numpy_float_alias(monkeypatch):
    # Chainer 7.8.1's resize_images uses numpy.float, which NumPy 1.24 removed.
    if not hasattr(numpy, "float"):
        monkeypatch.setattr(numpy, "float", float, raising=False)


@pytest.mark.parametrize("align_corners", [True, False])
def test_resize_images_bilinear_matches_numpy(numpy_float_alias, align_corners):
    x = numpy.random.RandomState(16).standard_normal((2, 3, 4, 5)).astype(numpy.float32)
    y = _function("array.resize_images", "resize_images")(x, (7, 3),
                                                           align_corners=align_corners)
    assert y.shape == (2, 3, 7, 3) and y.dtype == numpy.float32
    numpy.testing.assert_allclose(y.array, _bilinear_reference(x, 7, 3, align_corners),
                                  rtol=1e-5, atol=1e-6)


def test_resize_images_nearest_matches_numpy(numpy_float_alias):
    x = numpy.random.RandomState(17).standard_normal((1, 2, 4, 6)).astype(numpy.float32)
    y = _function("array.resize_images", "resize_images")(x, (6, 4), mode="nearest")
    rows = numpy.minimum(numpy.floor(numpy.arange(6) * 4 / 6), 3).astype(int)
    cols = numpy.minimum(numpy.floor(numpy.arange(4) * 6 / 4), 5).astype(int)
    numpy.testing.assert_array_equal(y.array, x[:, :, rows][:, :, :, cols])


def test_im2col_layout():
    x = numpy.random.RandomState(18).standard_normal((2, 3, 5, 4)).astype(numpy.float32)
    y = _function("array.im2col", "im2col")(x, (3, 2), stride=(2, 1), pad=(1, 0),
                                             dilate=(1, 2))
    padded = numpy.pad(x, ((0, 0), (0, 0), (1, 1), (0, 0)))
    out_h, out_w = (5 + 2 - 3) // 2 + 1, (4 - 3) // 1 + 1
    assert y.shape == (2, 3 * 3 * 2, out_h, out_w)
    for ci in range(3):
        for i in range(3):
            for j in range(2):
                window = padded[:, ci, i: i + 2 * out_h - 1: 2, 2 * j: 2 * j + out_w]
                numpy.testing.assert_array_equal(y.array[:, (ci * 3 + i) * 2 + j], window)


def test_shift_moves_channel_groups():
    x = numpy.random.RandomState(19).standard_normal((1, 10, 4, 5)).astype(numpy.float32)
    y = _function("connection.shift", "shift")(x, 3, 1).array
    positions = list(range(9))
    positions[4], positions[8] = 8, 4
    for group, position in enumerate(positions):
        dy, dx = position // 3 - 1, position % 3 - 1
        channels = slice(group, None if group == 8 else group + 1)
        expected = numpy.zeros_like(x[:, channels])
        for row in range(4):
            for col in range(5):
                source_row, source_col = row - dy, col - dx
                if 0 <= source_row < 4 and 0 <= source_col < 5:
                    expected[..., row, col] = x[:, channels, source_row, source_col]
        numpy.testing.assert_array_equal(y[:, channels], expected)
    with pytest.raises(ValueError):
        _function("connection.shift", "shift")(x, 2)


def test_as_strided_overlapping_view_and_gradient():
    x = chainer.Variable(numpy.arange(4, dtype=numpy.float32))
    y = _function("array.as_strided", "as_strided")(x, (3, 2), (1, 1), 0)
    numpy.testing.assert_array_equal(y.array, [[0, 1], [1, 2], [2, 3]])
    y.grad = numpy.ones((3, 2), numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1, 2, 2, 1])
    with pytest.raises(ValueError):
        _function("array.as_strided", "as_strided")(x, (3, 2), (1, 1), 2)


def test_spatial_pyramid_pooling_2d_levels():
    function = _function("pooling.spatial_pyramid_pooling_2d", "spatial_pyramid_pooling_2d")
    x = numpy.random.RandomState(20).standard_normal((2, 3, 8, 4)).astype(numpy.float32)
    y = function(x, 3, "max")
    assert y.shape == (2, 3 * (1 + 4 + 16), 1, 1)
    expected = []
    for level in range(3):
        bins = 2 ** level
        kh, kw = math.ceil(8 / bins), math.ceil(4 / bins)
        pooled = x.reshape(2, 3, bins, kh, bins, kw).max(axis=(3, 5))
        expected.append(pooled.reshape(2, -1))
    numpy.testing.assert_array_equal(y.array[:, :, 0, 0], numpy.concatenate(expected, axis=1))
    with pytest.raises(ValueError):
        function(x, 2)


# ------------------------------------------------------------------------------------ math


@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_fft_matches_numpy_and_gradient(name):
    rng = numpy.random.RandomState(21)
    real, imag = rng.standard_normal((3, 8)), rng.standard_normal((3, 8))
    function = _function("math.fft", name)
    y_real, y_imag = function((real, imag))
    expected = getattr(numpy.fft, name)(real + 1j * imag)
    numpy.testing.assert_allclose(y_real.array, expected.real, atol=1e-12)
    numpy.testing.assert_allclose(y_imag.array, expected.imag, atol=1e-12)
    gradient_check.check_backward(lambda r, i: function((r, i)), (real, imag),
                                  (rng.standard_normal((3, 8)), rng.standard_normal((3, 8))))


# ---------------------------------------------------------------------------------- sparse


def test_to_coo_layout_and_order():
    sparse = _module("utils.sparse")
    dense = numpy.array([[[0, 2, 0], [-1, 0, 0]], [[1, 1, 0], [0, 0, 3]]], numpy.float32)
    matrix = sparse.to_coo(dense, ldnz=2)
    numpy.testing.assert_array_equal(matrix.data.array, [[2, -1, 0], [1, 1, 3]])
    numpy.testing.assert_array_equal(matrix.row, [[0, 1, -1], [0, 0, 1]])
    numpy.testing.assert_array_equal(matrix.col, [[1, 0, -1], [0, 1, 2]])
    assert tuple(matrix.shape) == (2, 3) and matrix.order == "C"
    numpy.testing.assert_array_equal(matrix.to_dense(), dense)
    assert sparse.get_order(numpy.array([1, 0, 1]), numpy.array([0, 1, 1])) == "F"
    assert sparse.get_order(numpy.array([1, 0]), numpy.array([1, 0])) == "other"
    assert sparse.get_order(numpy.array([[0, -1], [1, 0]]),
                            numpy.array([[1, -1], [0, 1]])) == "F"
    with pytest.raises(ValueError):
        sparse.CooMatrix(numpy.zeros(2), numpy.zeros(2, int), numpy.zeros(2, int), (0, 2))


@pytest.mark.parametrize("transa,transb", [(False, False), (True, False), (False, True),
                                           (True, True)])
def test_sparse_matmul_both_sides(transa, transb):
    sparse = _module("utils.sparse")
    function = _function("math.sparse_matmul", "sparse_matmul")
    rng = numpy.random.RandomState(22)
    a = rng.standard_normal((2, 3, 4)) * (rng.rand(2, 3, 4) > 0.5)
    b = rng.standard_normal((2, 4, 5))
    stored_a = a.transpose(0, 2, 1).copy() if transa else a
    stored_b = b.transpose(0, 2, 1).copy() if transb else b
    product = function(sparse.to_coo(stored_a), stored_b, transa, transb)
    numpy.testing.assert_allclose(product.array, a @ b)
    product = function(stored_a, sparse.to_coo(stored_b), transa, transb)
    numpy.testing.assert_allclose(product.array, a @ b)


def test_sparse_matmul_gradients_reach_both_operands():
    sparse = _module("utils.sparse")
    function = _function("math.sparse_matmul", "sparse_matmul")
    a = numpy.array([[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]])
    matrix = sparse.to_coo(a, requires_grad=True)
    b = chainer.Variable(numpy.arange(6.0).reshape(3, 2))
    product = function(matrix, b)
    product.grad = numpy.ones((2, 2))
    product.backward()
    numpy.testing.assert_allclose(b.grad, a.T @ numpy.ones((2, 2)))
    expected = [(numpy.ones(2) * b.array[c]).sum() for c in matrix.col]
    numpy.testing.assert_allclose(matrix.data.grad, expected)
    with pytest.raises(ValueError):
        function(a, b)


# ----------------------------------------------------------------------------- copy


@pytest.mark.parametrize("dst", [-1, "@numpy"])
def test_copy_to_the_same_device_hands_back_the_input_array(dst):
    x = chainer.Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    y = chainer.functions.copy(x, dst)
    assert y.array is x.array
    gy = numpy.ones((2, 3), numpy.float32)
    y.grad = gy
    y.backward()
    assert x.grad is gy
