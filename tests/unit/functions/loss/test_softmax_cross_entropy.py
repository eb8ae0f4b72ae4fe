"""softmax_cross_entropy: every option against a NumPy reference, gradients, argument errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import assert_same_gradient, input_gradient_both_ways

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.loss import softmax_cross_entropy as sce
from chainer_compat.functions.loss.softmax_cross_entropy import softmax_cross_entropy
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _log_softmax(x):
    x = x.astype(numpy.float64)
    shifted = x - x.max(axis=1, keepdims=True)
    return shifted - numpy.log(numpy.exp(shifted).sum(axis=1, keepdims=True))


def _reference(x, t, normalize=True, class_weight=None, ignore_label=-1, reduce="mean"):
    """Loop over every label position: -w[t] * log_softmax(x)[n, t, ...]."""
    log_y = numpy.moveaxis(_log_softmax(x), 1, -1)  # classes last
    losses = numpy.zeros(t.shape)
    for position in numpy.ndindex(*t.shape):
        label = t[position]
        if label == ignore_label:
            continue
        weight = 1.0 if class_weight is None else class_weight[label]
        losses[position] = -weight * log_y[position][label]
    if reduce == "no":
        return losses
    count = (t != ignore_label).sum() if normalize else len(x)
    return losses.sum() / max(count, 1)


def _problem(rng, shape, dtype, ignore_label=-1, ignored=(1,)):
    x = rng.standard_normal(shape).astype(dtype)
    t_shape = shape[:1] + shape[2:]
    t = rng.integers(0, shape[1], t_shape).astype(numpy.int32)
    flat = t.reshape(-1)
    for index in ignored:
        flat[index] = ignore_label
    return x, t


TOLERANCE = {
    numpy.float16: {"atol": 1e-2, "rtol": 1e-2},
    numpy.float32: {"atol": 1e-6, "rtol": 1e-5},
    numpy.float64: {"atol": 1e-12, "rtol": 1e-10},
}


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(4, 3), (3, 4, 2), (2, 3, 2, 2)])
@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("use_class_weight", [False, True])
def test_forward_matches_reference(xp, dtype, shape, reduce, use_class_weight):
    rng = numpy.random.default_rng(0)
    x, t = _problem(rng, shape, dtype)
    class_weight = rng.uniform(0.5, 2, shape[1]).astype(dtype) if use_class_weight else None
    loss = softmax_cross_entropy(
        xp.asarray(x), xp.asarray(t), reduce=reduce,
        class_weight=None if class_weight is None else xp.asarray(class_weight))
    expected = _reference(x, t, class_weight=class_weight, reduce=reduce)
    assert loss.dtype == dtype and loss.shape == expected.shape
    numpy.testing.assert_allclose(_host(loss.array), expected, **TOLERANCE[dtype])


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("ignore_label", [-1, 2])
def test_normalize_and_ignore_label(xp, normalize, ignore_label):
    rng = numpy.random.default_rng(1)
    x, t = _problem(rng, (5, 4), numpy.float64, ignore_label=ignore_label, ignored=(0, 3))
    loss = softmax_cross_entropy(xp.asarray(x), xp.asarray(t), normalize=normalize,
                                 ignore_label=ignore_label)
    expected = _reference(x, t, normalize=normalize, ignore_label=ignore_label)
    numpy.testing.assert_allclose(_host(loss.array), expected, rtol=1e-12)


def test_gradient_is_softmax_minus_one_hot_over_count():
    rng = numpy.random.default_rng(2)
    x, t = _problem(rng, (4, 3), numpy.float64)
    x_var = chainer_compat.Variable(x)
    softmax_cross_entropy(x_var, t).backward()
    expected = numpy.exp(_log_softmax(x))
    expected[numpy.arange(4), numpy.where(t == -1, 0, t)] -= 1
    expected[t == -1] = 0
    numpy.testing.assert_allclose(x_var.grad, expected / (t != -1).sum(), rtol=1e-12)


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 2)])
@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("use_class_weight", [False, True])
@pytest.mark.parametrize("cache_score", [True, False])
@pytest.mark.parametrize("enable_double_backprop", [False, True])
def test_backward_matches_numerical(xp, shape, reduce, use_class_weight, cache_score,
                                    enable_double_backprop):
    rng = numpy.random.default_rng(3)
    x, t = _problem(rng, shape, numpy.float64)
    t = xp.asarray(t)
    class_weight = xp.asarray(rng.uniform(0.5, 2, shape[1])) if use_class_weight else None
    gy = None if reduce == "mean" else xp.asarray(rng.standard_normal(t.shape))

    def f(x):
        return softmax_cross_entropy(x, t, cache_score=cache_score, class_weight=class_weight,
                                     reduce=reduce, enable_double_backprop=enable_double_backprop)

    gradient_check.check_backward(f, xp.asarray(x), gy)


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("use_class_weight", [False, True])
def test_double_backward_matches_numerical(xp, reduce, use_class_weight):
    rng = numpy.random.default_rng(4)
    x, t = _problem(rng, (3, 4), numpy.float64)
    t = xp.asarray(t)
    class_weight = xp.asarray(rng.uniform(0.5, 2, 4)) if use_class_weight else None
    gy = xp.asarray(rng.standard_normal(() if reduce == "mean" else t.shape))

    def f(x):
        return softmax_cross_entropy(x, t, class_weight=class_weight, reduce=reduce,
                                     enable_double_backprop=True)

    gradient_check.check_double_backward(f, xp.asarray(x), gy,
                                         xp.asarray(rng.standard_normal(x.shape)))


def test_both_implementations_agree_in_value_and_gradient():
    rng = numpy.random.default_rng(5)
    x, t = _problem(rng, (3, 4, 2), numpy.float32)
    weights = rng.uniform(0.5, 2, 4).astype(numpy.float32)
    results = []
    for enable in (False, True):
        x_var = chainer_compat.Variable(x.copy())
        loss = softmax_cross_entropy(x_var, t, class_weight=weights, normalize=False,
                                     enable_double_backprop=enable)
        loss.backward()
        results.append((loss.array, x_var.grad))
    numpy.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5)
    numpy.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5, atol=1e-7)


def test_double_backprop_without_the_flag_raises_runtime_error():
    rng = numpy.random.default_rng(6)
    x, t = _problem(rng, (3, 4), numpy.float64)
    x_var = chainer_compat.Variable(x)
    loss = softmax_cross_entropy(x_var, t)
    gx, = chainer_compat.grad([loss], [x_var], enable_double_backprop=True)
    with pytest.raises(RuntimeError, match="enable_double_backprop=True"):
        gx.grad = numpy.ones_like(x)
        gx.backward()


def test_all_labels_ignored_gives_zero_loss_and_gradient():
    x_var = chainer_compat.Variable(numpy.ones((2, 3)))
    loss = softmax_cross_entropy(x_var, numpy.array([-1, -1], numpy.int32))
    loss.backward()
    assert loss.array == 0
    numpy.testing.assert_array_equal(x_var.grad, numpy.zeros((2, 3)))


def test_large_logits_do_not_overflow():
    x = numpy.array([[1000.0, 0.0], [0.0, -1000.0]], numpy.float32)
    loss = softmax_cross_entropy(x, numpy.array([1, 1], numpy.int32))
    numpy.testing.assert_allclose(loss.array, 1000.0, rtol=1e-6)


@pytest.mark.parametrize("soft_target_loss", ["cross-entropy", "kl-divergence"])
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_soft_targets(xp, soft_target_loss, reduce):
    rng = numpy.random.default_rng(7)
    x = rng.standard_normal((3, 4, 2))
    t = rng.uniform(0.1, 1, (3, 4, 2))
    t /= t.sum(axis=1, keepdims=True)
    log_y = _log_softmax(x)
    if soft_target_loss == "kl-divergence":
        per_sample = (t * (numpy.log(t + 1e-7) - log_y)).sum(axis=1)
    else:
        per_sample = -(t * log_y).sum(axis=1)
    expected = per_sample.mean() if reduce == "mean" else per_sample
    loss = softmax_cross_entropy(xp.asarray(x), xp.asarray(t), reduce=reduce,
                                 soft_target_loss=soft_target_loss)
    numpy.testing.assert_allclose(_host(loss.array), expected, rtol=1e-10)
    gy = None if reduce == "mean" else xp.asarray(rng.standard_normal(per_sample.shape))

    def f(x):
        return softmax_cross_entropy(x, xp.asarray(t), reduce=reduce,
                                     soft_target_loss=soft_target_loss)

    gradient_check.check_backward(f, xp.asarray(x), gy)


def test_invalid_reduce_raises_value_error():
    with pytest.raises(ValueError, match="^only 'mean' and 'no' are valid for 'reduce'"):
        softmax_cross_entropy(numpy.zeros((2, 3), "f"), numpy.zeros(2, numpy.int32),
                              reduce="sum")


def test_invalid_soft_target_loss_raises_value_error():
    with pytest.raises(ValueError, match="soft_target_loss of softmax_cross_entropy"):
        softmax_cross_entropy(numpy.zeros((2, 3), "f"), numpy.zeros(2, numpy.int32),
                              soft_target_loss="l2")


@pytest.mark.parametrize("class_weight, message", [
    (numpy.ones((3, 1), "f"), r"^class_weight\.ndim should be 1\n.*got ndim=2"),
    (numpy.ones(3, numpy.int32), "^The dtype of class_weight should be 'f'\n.*got int32"),
    (chainer_compat.Variable(numpy.ones(3, "f")),
     "^class_weight should be a numpy.ndarray or cupy.ndarray, not a chainer.Variable"),
])
def test_invalid_class_weight_raises_value_error(class_weight, message):
    with pytest.raises(ValueError, match=message):
        softmax_cross_entropy(numpy.zeros((2, 3), "f"), numpy.zeros(2, numpy.int32),
                              class_weight=class_weight)


@pytest.mark.parametrize("enable_double_backprop", [False, True])
@pytest.mark.parametrize("classes", [2, 4])
def test_class_weight_of_another_length_raises_value_error(enable_double_backprop, classes):
    # compat: Chainer's broadcast of the weights raises ValueError; a longer array must not be
    # read silently, nor a shorter one fail with IndexError.
    with pytest.raises(ValueError, match=rf"one weight per class \(3\), or one for all, got "
                       rf"shape \({classes},\)"):
        softmax_cross_entropy(numpy.zeros((2, 3), "f"), numpy.array([2, 0], numpy.int32),
                              class_weight=numpy.ones(classes, "f"),
                              enable_double_backprop=enable_double_backprop)


@pytest.mark.parametrize("enable_double_backprop", [False, True])
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_one_class_weight_serves_every_class(enable_double_backprop, reduce):
    # compat: Chainer broadcasts class_weight over x, so a single weight scales every class.
    x_array = numpy.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], "f")
    t = numpy.array([2, -1], numpy.int32)
    results = []
    for weights in (numpy.array([2.5], "f"), numpy.full(3, 2.5, "f")):
        x = chainer_compat.Variable(x_array.copy())
        loss = softmax_cross_entropy(x, t, class_weight=weights, reduce=reduce,
                                     enable_double_backprop=enable_double_backprop)
        chainer_compat.functions.sum(loss).backward()
        results.append((loss.array, x.grad))
    numpy.testing.assert_array_equal(results[0][0], results[1][0])
    numpy.testing.assert_array_equal(results[0][1], results[1][1])
    assert numpy.abs(results[0][1]).sum() > 0


@pytest.mark.parametrize("enable_double_backprop", [False, True])
def test_soft_targets_ignore_class_weight(enable_double_backprop):
    # compat: Chainer applies class_weight to integer labels only, whatever its length.
    x = numpy.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], "f")
    t = numpy.array([[0.2, 0.3, 0.5], [0.6, 0.4, 0.0]], "f")
    plain = softmax_cross_entropy(x, t, enable_double_backprop=enable_double_backprop)
    for weights in (numpy.full(3, 2.0, "f"), numpy.ones(5, "f")):
        weighted = softmax_cross_entropy(x, t, class_weight=weights,
                                         enable_double_backprop=enable_double_backprop)
        assert weighted.array == plain.array


@pytest.mark.parametrize("enable_double_backprop", [False, True])
def test_label_shape_mismatch_raises_invalid_type(enable_double_backprop):
    with pytest.raises(type_check.InvalidType, match=r"SoftmaxCrossEntropy[\s\S]*t\.shape"):
        softmax_cross_entropy(numpy.zeros((2, 3), "f"), numpy.zeros(3, numpy.int32),
                              enable_double_backprop=enable_double_backprop)


def test_label_rank_mismatch_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"t\.ndim == x\.ndim - 1"):
        softmax_cross_entropy(numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), numpy.int32))


def test_soft_target_of_other_shape_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"x\.shape == t\.shape"):
        softmax_cross_entropy(numpy.zeros((2, 3), "f"), numpy.zeros((2, 4), "f"))


def test_debug_mode_rejects_out_of_range_labels():
    with (chainer_compat.using_config("debug", True),
          pytest.raises(ValueError, match=r"0 <= t < x\.shape\[1\] \(3\)")):
        softmax_cross_entropy(numpy.zeros((2, 3), "f"), numpy.array([0, 3], numpy.int32))


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(5, 4), (3, 4, 2)])
@pytest.mark.parametrize("options", [
    {}, {"reduce": "no"}, {"normalize": False}, {"cache_score": False},
    {"class_weight": True}, {"class_weight": True, "reduce": "no"}, {"soft_target": True},
])
@pytest.mark.parametrize("ignored", [(), (1,)])
def test_gradient_without_a_node_is_the_nodes_gradient(xp, dtype, shape, options, ignored):
    # NOTE [gradients without a node]: a hook makes backward apply the gradient node.
    rng = numpy.random.default_rng(9)
    options = dict(options)
    x_array, t = _problem(rng, shape, dtype, ignored=ignored)
    if options.pop("soft_target", False):
        t = rng.uniform(0.1, 1, shape).astype(dtype)
        t /= t.sum(axis=1, keepdims=True)
    if options.pop("class_weight", False):
        options["class_weight"] = xp.asarray(rng.uniform(0.5, 2, shape[1]).astype(dtype))
    gy_shape = () if options.get("reduce", "mean") == "mean" else shape[:1] + shape[2:]
    gy = xp.asarray(rng.standard_normal(gy_shape).astype(dtype))
    t = xp.asarray(t)

    direct, through_node, labels = input_gradient_both_ways(
        lambda x: softmax_cross_entropy(x, t, **options), xp.asarray(x_array), gy)
    assert labels == ["_SoftmaxCrossEntropyGrad_NoDoubleBackprop"]
    assert direct.dtype == dtype
    assert_same_gradient(direct, through_node)


def test_second_backward_reads_the_cached_softmax_unchanged(xp):
    rng = numpy.random.default_rng(10)
    x_array, t = _problem(rng, (4, 3), numpy.float32, ignored=())
    x = chainer_compat.Variable(xp.asarray(x_array))
    loss = softmax_cross_entropy(x, xp.asarray(t))
    loss.backward()
    first = x.grad.copy()
    loss.backward()  # accumulates: the gradient must be computed from the same softmax again
    assert _host(x.grad).tobytes() == _host(first + first).tobytes()


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(6, 5), (3, 4, 2, 3)])
@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("cache_score", [True, False])
@pytest.mark.parametrize("ignored", [(), (0, 2), (0, 1, 2, 3, 4, 5)])
def test_fused_cupy_kernels_match_the_array_expressions(cupy, dtype, shape, normalize,
                                                         cache_score, ignored):
    # NOTE [fused CuPy kernels]: a class_weight of ones takes the array expressions for the
    # picking, the mean and the gradient (log_z and the softmax are the same kernels on both
    # paths: the next test pins those to the expressions), and multiplying by 1 is exact, so
    # the two paths agree but for the sign of an ignored label's zero gradient and, in float16
    # without normalize, the rounding of the scale (one ulp).
    rng = numpy.random.default_rng(11)
    x_array, t = _problem(rng, shape, dtype, ignored=ignored)
    gloss = cupy.asarray(rng.standard_normal(()), dtype)
    results = []
    for class_weight in (None, cupy.ones(shape[1], dtype)):
        x = chainer_compat.Variable(cupy.asarray(x_array))
        loss = softmax_cross_entropy(x, cupy.asarray(t), normalize=normalize,
                                     cache_score=cache_score, class_weight=class_weight)
        loss.grad = gloss.copy()
        loss.backward()
        results.append((_host(loss.array), _host(x.grad)))
    (fused_loss, fused_grad), (expressions_loss, expressions_grad) = results
    assert fused_loss.dtype == expressions_loss.dtype == dtype
    assert fused_grad.dtype == expressions_grad.dtype == dtype
    if dtype == numpy.float16 and not normalize:
        tolerance = {"rtol": 2 ** -10, "atol": 0}
    else:
        tolerance = {"rtol": 0, "atol": 0}  # equal, +0 and -0 alike
    numpy.testing.assert_allclose(fused_loss, expressions_loss, **tolerance)
    numpy.testing.assert_allclose(fused_grad, expressions_grad, **tolerance)
    if ignored:  # the fused kernel writes +0 there, as Chainer's CUDA kernel does
        rows = fused_grad.reshape(shape[0], shape[1], -1)
        labels = t.reshape(shape[0], -1)
        for sample, unit in zip(*numpy.nonzero(labels == -1)):
            assert not numpy.signbit(rows[sample, :, unit]).any()


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("layout", ["matrix", "more axes", "transposed"])
def test_log_z_and_the_softmax_have_the_array_expressions_bits(xp, dtype, layout):
    # NOTE [fused CuPy kernels]: on CuPy each is one elementwise kernel, written to round as
    # these expressions do (NOTE [Chainer's rounding]); on NumPy they are these expressions.
    rng = numpy.random.default_rng(12)
    if layout == "matrix":
        x = rng.standard_normal((6, 7))
    elif layout == "more axes":
        x = rng.standard_normal((3, 7, 2, 4))
    else:
        x = rng.standard_normal((7, 6)).T  # not contiguous
    x = xp.asarray(4 * x).astype(dtype)
    peak, _, _, total = sce._softmax_parts(xp, x)

    log_z = sce._log_normalizer(xp, peak, total)
    expected = xp.log(total)
    expected += peak
    assert log_z.dtype == dtype and log_z.shape == expected.shape
    assert _host(log_z).tobytes() == _host(expected).tobytes()

    y = sce._softmax_from(xp, x, log_z)
    expected = x - log_z
    xp.exp(expected, out=expected)
    assert y.dtype == dtype and y.shape == x.shape
    assert _host(y).tobytes() == _host(expected).tobytes()


def test_label_out_of_range_gives_nan_on_cupy(cupy):
    # Outside debug mode labels are not checked; the fused kernel must not read out of bounds.
    x = chainer_compat.Variable(cupy.zeros((2, 3), numpy.float32))
    loss = softmax_cross_entropy(x, cupy.asarray([0, 3], numpy.int32))
    assert numpy.isnan(_host(loss.array))
    loss = softmax_cross_entropy(x, cupy.asarray([-2, 1], numpy.int32))
    assert numpy.isnan(_host(loss.array))


# enable_double_backprop=True builds Chainer's graph: NOTE [the double-backprop graph]. The
# label lists below are that graph's nodes, as Chainer 7.8.1's FunctionHooks report them.
class _LabelRecorder(chainer_compat.FunctionHook):
    name = "LabelRecorder"

    def __init__(self):
        self.labels = []

    def forward_preprocess(self, function, in_data):
        self.labels.append("f:" + function.label)

    def backward_preprocess(self, function, in_data, out_grad):
        self.labels.append("b:" + function.label)


def _labels_of_three_passes(x_array, t, **options):
    """Hook labels of the forward, the backward and the double backward of the loss."""
    recorders = [_LabelRecorder() for _ in range(3)]
    x = chainer_compat.Variable(x_array)
    with recorders[0]:
        loss = softmax_cross_entropy(x, t, enable_double_backprop=True, **options)
    with recorders[1]:
        gx, = chainer_compat.grad([loss], [x], [chainer_compat.Variable(
            numpy.ones(loss.shape, x_array.dtype))], enable_double_backprop=True)
    with recorders[2]:
        chainer_compat.functions.sum(gx * numpy.ones_like(x_array)).backward()
    return [recorder.labels for recorder in recorders]


def test_double_backprop_graph_has_chainers_nodes_float16_mean():
    # float16: the masked losses are cast to float32, divided by the count of 2 (a constant
    # multiplication by 1/2), summed and cast back.
    x = numpy.linspace(-1, 1, 12).reshape(3, 4).astype(numpy.float16)
    forward, backward, double = _labels_of_three_passes(
        x, numpy.array([2, -1, 0], numpy.int32), class_weight=numpy.ones(4, numpy.float16))
    assert forward == [
        "f:LogSoftmax", "f:__neg__", "f:BroadcastTo", "f:_ * _", "f:Rollaxis", "f:Reshape",
        "f:SelectItem", "f:_ * _", "f:Cast", "f:_ * 0.5", "f:Sum", "f:Cast"]
    assert backward == [
        "b:Cast", "f:Cast", "b:Sum", "f:BroadcastTo", "b:_ * 0.5", "f:_ * 0.5", "b:Cast",
        "f:Cast", "b:_ * _", "f:_ * _", "b:SelectItem", "f:Assign", "b:Reshape", "b:Rollaxis",
        "f:Rollaxis", "b:_ * _", "f:_ * _", "b:__neg__", "f:__neg__", "b:LogSoftmax",
        "f:LogSoftmaxGrad"]
    assert [label for label in double if label.startswith("b:")] == [
        "b:Sum", "b:_ * _", "b:LogSoftmaxGrad", "b:__neg__", "b:_ * _", "b:Rollaxis",
        "b:Assign", "b:_ * _", "b:Cast", "b:_ * 0.5", "b:BroadcastTo", "b:LogSoftmax",
        "b:Cast"]


def test_double_backprop_graph_has_chainers_nodes_more_axes_no_reduction():
    x = numpy.linspace(-1, 1, 12).reshape(2, 3, 2).astype(numpy.float32)
    forward, backward, double = _labels_of_three_passes(
        x, numpy.array([[0, 2], [-1, 1]], numpy.int32), reduce="no")
    assert forward == ["f:LogSoftmax", "f:__neg__", "f:Rollaxis", "f:Reshape", "f:SelectItem",
                       "f:Reshape", "f:_ * _"]
    assert backward == [
        "b:_ * _", "f:_ * _", "b:Reshape", "f:Reshape", "b:SelectItem", "f:Assign",
        "b:Reshape", "f:Reshape", "b:Rollaxis", "f:Rollaxis", "b:__neg__", "f:__neg__",
        "b:LogSoftmax", "f:LogSoftmaxGrad"]
    assert [label for label in double if label.startswith("b:")] == [
        "b:Sum", "b:_ * _", "b:LogSoftmaxGrad", "b:__neg__", "b:Rollaxis", "b:Reshape",
        "b:Assign", "b:Reshape", "b:LogSoftmax", "b:_ * _"]


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_double_backprop_ignored_loss_is_positive_zero(dtype):
    # An ignored label's loss is -log p (positive) times the 0 of the mask: +0, as in Chainer,
    # also for a mean over nothing but ignored labels.
    x = numpy.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], dtype)
    t = numpy.array([1, -1], numpy.int32)
    loss = softmax_cross_entropy(x, t, reduce="no", enable_double_backprop=True)
    assert loss.array[1] == 0 and not numpy.signbit(loss.array[1])
    loss = softmax_cross_entropy(x, numpy.array([-1, -1], numpy.int32),
                                 enable_double_backprop=True)
    assert loss.array == 0 and not numpy.signbit(loss.array)


def test_double_backprop_clips_an_out_of_range_label_as_chainer():
    # Outside debug mode Chainer clips labels into [0, C - 1] for select_item and counts them.
    x = numpy.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], numpy.float32)
    loss = softmax_cross_entropy(x, numpy.array([5, -3], numpy.int32), reduce="no",
                                 enable_double_backprop=True)
    log_y = chainer_compat.functions.log_softmax(x).array
    assert loss.array.tobytes() == (-log_y[[0, 1], [2, 0]]).tobytes()


def test_double_backprop_float16_rounds_in_chainers_order():
    rng = numpy.random.default_rng(13)
    x_array, t = _problem(rng, (3, 4), numpy.float16, ignored=(0,))
    gloss = numpy.asarray(rng.uniform(-1, 1), numpy.float16)
    x = chainer_compat.Variable(x_array)
    loss = softmax_cross_entropy(x, t, normalize=False, enable_double_backprop=True)
    loss.grad = gloss
    loss.backward()

    log_y = chainer_compat.functions.log_softmax(x_array).array
    rows, labels = numpy.arange(3), t.clip(0, 3)
    in_use = (t != -1).astype(numpy.float16)
    # Forward: the masked -log p in float16, each cast to float32 and multiplied by 1/3 (the
    # division by the batch size is a multiplication by its reciprocal, rounded to float32),
    # summed in float32, cast back to float16.
    scale = numpy.float32(1 / 3)
    masked = -log_y[rows, labels] * in_use
    expected_loss = (masked.astype(numpy.float32) * scale).sum().astype(numpy.float16)
    assert loss.array.tobytes() == expected_loss.tobytes()
    # Backward, node by node in reverse: gloss to float32, times 1/3, back to float16, times
    # the mask, placed at the labels, negated, then log_softmax's gradient g - exp(y) sum(g).
    picked = (numpy.float32(gloss) * scale).astype(numpy.float16) * in_use
    g = numpy.zeros((3, 4), numpy.float16)
    g[rows, labels] = picked
    g = -g
    expected_gx = g - numpy.exp(log_y) * g.sum(axis=1, keepdims=True)
    assert x.grad.dtype == numpy.float16
    assert x.grad.tobytes() == expected_gx.tobytes()


def test_float16_soft_target_mean_sums_in_float16():
    # Chainer sums the per-sample losses in float16, then scales by 1/N rounded to float16
    # (seed 15: the first whose float32 sum and scaling round one ulp apart).
    rng = numpy.random.default_rng(15)
    x = rng.uniform(-2, 2, (3, 4)).astype(numpy.float16)
    t = rng.dirichlet(numpy.ones(4), 3).astype(numpy.float16)
    per_sample = softmax_cross_entropy(x, t, reduce="no").array
    expected = per_sample.sum(dtype=numpy.float16) * numpy.float16(1 / 3)
    loss = softmax_cross_entropy(x, t)
    assert loss.array.dtype == numpy.float16
    assert loss.array.tobytes() == expected.tobytes()


def test_double_backprop_without_the_flag_has_chainers_message():
    x = chainer_compat.Variable(numpy.zeros((2, 3), numpy.float32))
    loss = softmax_cross_entropy(x, numpy.array([0, 1], numpy.int32))
    gx, = chainer_compat.grad([loss], [x], enable_double_backprop=True)
    with pytest.raises(RuntimeError) as info:
        chainer_compat.functions.sum(gx * gx).backward()
    assert str(info.value) == (
        "F.softmax_cross_entropy was called with 'enable_double_backprop=False' argument, but "
        "double-backprop is actually being performed. Please specify "
        "'enable_double_backprop=True' explicitly.")
