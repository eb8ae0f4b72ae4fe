"""The cases of ``functions.py``: forward + backward of Chainer's functions and links on CPU.

Run by ``functions.py`` in each library's interpreter; by hand::

    python benchmarks/function_cases.py chainer_compat --only relu,linear --reps 5

prints ``{case: {"min": ms, "med": ms} or {"error": ...}}`` as JSON. The first argument picks
the library: ``chainer_compat`` (through ``install_as_chainer``) or ``chainer``. Cases build
their inputs from a generator seeded by their name, so both libraries get the same arrays.
"""

import gc
import json
import os
import sys
import time
import zlib

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

if len(sys.argv) < 2 or sys.argv[1] not in ("chainer_compat", "chainer"):
    raise SystemExit(__doc__)
if sys.argv[1] == "chainer_compat":
    import chainer_compat

    chainer_compat.install_as_chainer()
import chainer  # type: ignore[import-not-found]  # noqa: E402
import chainer.functions as F  # type: ignore[import-not-found]  # noqa: E402
import chainer.links as L  # type: ignore[import-not-found]  # noqa: E402
import numpy as np  # noqa: E402

f32 = np.float32
CASES: list = []


def case(name, fwd_only=False):
    def deco(fn):
        CASES.append((name, fn, fwd_only))
        return fn

    return deco


def rs_for(name):
    return np.random.RandomState(zlib.crc32(name.encode()) & 0x7FFFFFFF)


def U(rs, shape, lo=-1.0, hi=1.0, dtype=f32):
    return rs.uniform(lo, hi, shape).astype(dtype)


E = (128, 1024)  # elementwise shape
IMG = (32, 64, 32, 32)  # conv/pool/norm shape

# Each setup returns (fn, arrays[, link]): fn(*Variables) -> output(s); arrays become
# fresh Variables (with gradient) each repetition.


def unary(name, f, lo=-1.0, hi=1.0, shape=E):
    @case(name)
    def _(rs):
        return f, [U(rs, shape, lo, hi)]


# ---------------- activations
unary("relu", F.relu)
unary("leaky_relu", F.leaky_relu)
unary("elu", F.elu)
unary("selu", F.selu)
unary("sigmoid", F.sigmoid)
unary("tanh", F.tanh)
unary("softplus", F.softplus)
unary("clipped_relu", lambda x: F.clipped_relu(x, 0.5))
unary("crelu", F.crelu)
unary("hard_sigmoid", F.hard_sigmoid)
unary("maxout_p4", lambda x: F.maxout(x, 4))
unary("softmax", F.softmax)
unary("log_softmax", F.log_softmax)
unary("softmax_img_axis1", F.softmax, shape=(32, 10, 32, 32))


@case("swish_F")
def _(rs):
    return (lambda x, b: F.swish(x, b)), [U(rs, E), U(rs, (1024,), 0.5, 1.5)]


@case("L.Swish")
def _(rs):
    np.random.seed(1)
    link = L.Swish((1024,))
    return link, [U(rs, E)], link


@case("L.PReLU")
def _(rs):
    np.random.seed(1)
    link = L.PReLU((64,))
    return link, [U(rs, IMG)], link


# ---------------- array
unary("reshape", lambda x: F.reshape(x, (128, 32, 32)))
unary("transpose_nhwc", lambda x: F.transpose(x, (0, 2, 3, 1)), shape=IMG)


@case("concat_axis1")
def _(rs):
    return (lambda a, b: F.concat((a, b), axis=1)), [U(rs, IMG), U(rs, IMG)]


unary("split_axis_2", lambda x: F.split_axis(x, 2, axis=1), shape=IMG)
unary("split_axis_idx", lambda x: F.split_axis(x, [100, 300, 700], axis=1))


@case("stack4")
def _(rs):
    return (lambda *xs: F.stack(xs, axis=1)), [U(rs, E) for _ in range(4)]


unary("broadcast_to", lambda x: F.broadcast_to(x, E), shape=(1, 1024))
unary("broadcast_to_img", lambda x: F.broadcast_to(x, IMG), shape=(1, 64, 1, 1))
unary("get_item_slice", lambda x: x[:, 10:500:2])
unary("get_item_img_slice", lambda x: x[:, :, 1:-1, 1:-1], shape=IMG)


@case("get_item_fancy")
def _(rs):
    idx = rs.randint(0, 128, 256)
    return (lambda x: x[idx]), [U(rs, E)]


@case("get_item_bool")
def _(rs):
    m = rs.rand(128) > 0.5
    return (lambda x: x[m]), [U(rs, E)]


unary("pad_img", lambda x: F.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), "constant"), shape=IMG)
unary("tile", lambda x: F.tile(x, (1, 4)), shape=(128, 256))
unary("repeat", lambda x: F.repeat(x, 4, axis=1), shape=(128, 256))


@case("where")
def _(rs):
    c = rs.rand(*E) > 0.5
    return (lambda a, b: F.where(c, a, b)), [U(rs, E), U(rs, E)]


unary("expand_dims", lambda x: F.expand_dims(x, 1))
unary("flip", lambda x: F.flip(x, 1))
unary("cast_f64", lambda x: F.cast(x, np.float64))
unary("cast_f16", lambda x: F.cast(x, np.float16))
unary("separate", lambda x: F.separate(x, axis=0), shape=(16, 128, 256))
unary("flatten", F.flatten, shape=IMG)
unary("swapaxes", lambda x: F.swapaxes(x, 1, 3), shape=IMG)
unary("squeeze", F.squeeze, shape=(128, 1, 1024))
unary("resize_images", lambda x: F.resize_images(x, (64, 64)), shape=(8, 32, 32, 32))
unary("im2col", lambda x: F.im2col(x, 3, pad=1), shape=(8, 32, 32, 32))
unary("space2depth", lambda x: F.space2depth(x, 2), shape=IMG)

# ---------------- math


@case("matmul")
def _(rs):
    return F.matmul, [U(rs, (64, 512)), U(rs, (512, 512))]


@case("matmul_transb")
def _(rs):
    return (lambda a, b: F.matmul(a, b, transb=True)), [U(rs, (64, 512)), U(rs, (512, 512))]


@case("matmul_3d")
def _(rs):
    return F.matmul, [U(rs, (32, 64, 64)), U(rs, (32, 64, 64))]


@case("batch_matmul")
def _(rs):
    return F.batch_matmul, [U(rs, (32, 64, 64)), U(rs, (32, 64, 64))]


unary("sum_all", F.sum)
unary("sum_axis1", lambda x: F.sum(x, axis=1))
unary("sum_img_023", lambda x: F.sum(x, axis=(0, 2, 3)), shape=IMG)
unary("mean", F.mean)
unary("max_axis1", lambda x: F.max(x, axis=1))
unary("min_axis1", lambda x: F.min(x, axis=1))
unary("max_all", F.max)


@case("argmax", fwd_only=True)
def _(rs):
    return (lambda x: F.argmax(x, axis=1)), [U(rs, E)]


unary("exp", F.exp)
unary("log", F.log, 0.1, 2.0)
unary("sqrt", F.sqrt, 0.1, 2.0)
unary("square", F.square)
unary("absolute", F.absolute)
unary("clip", lambda x: F.clip(x, -0.5, 0.5))
unary("cumsum_axis1", lambda x: F.cumsum(x, axis=1))
unary("logsumexp_axis1", lambda x: F.logsumexp(x, axis=1))
unary("erf", F.erf)
unary("sin", F.sin)
unary("pow_scalar", lambda x: x**2.5, 0.1, 2.0)
unary("rsqrt", F.rsqrt, 0.1, 2.0)


@case("arith_mul_add_div")
def _(rs):
    return (lambda a, b, c: (a * b + c) / b), [U(rs, E), U(rs, E, 0.5, 1.5), U(rs, E)]


@case("arith_scalar")
def _(rs):
    return (lambda a: (a * 2.0 + 1.0) / 3.0 - 0.5), [U(rs, E)]


@case("linear_interpolate")
def _(rs):
    return F.linear_interpolate, [U(rs, E, 0, 1), U(rs, E), U(rs, E)]


@case("bias_axis1")
def _(rs):
    return (lambda x, b: F.bias(x, b, axis=1)), [U(rs, IMG), U(rs, (64,))]


@case("scale_axis1")
def _(rs):
    return (lambda x, s: F.scale(x, s, axis=1)), [U(rs, IMG), U(rs, (64,))]


@case("average_weighted")
def _(rs):
    return (lambda x, w: F.average(x, axis=1, weights=w)), [U(rs, E), U(rs, (1024,), 0.1, 1)]


unary("batch_l2_norm_squared", F.batch_l2_norm_squared)


@case("einsum_bij_bjk")
def _(rs):
    return (lambda a, b: F.einsum("bij,bjk->bik", a, b)), [U(rs, (32, 64, 64)), U(rs, (32, 64, 64))]


@case("tensordot")
def _(rs):
    return (lambda a, b: F.tensordot(a, b, axes=2)), [U(rs, (64, 32, 16)), U(rs, (32, 16, 256))]


@case("maximum")
def _(rs):
    return F.maximum, [U(rs, E), U(rs, E)]


# ---------------- connection
@case("linear")
def _(rs):
    return F.linear, [U(rs, (64, 512)), U(rs, (512, 512)), U(rs, (512,))]


@case("conv2d_3x3_p1")
def _(rs):
    return (lambda x, W, b: F.convolution_2d(x, W, b, pad=1)), [
        U(rs, IMG),
        U(rs, (64, 64, 3, 3)),
        U(rs, (64,)),
    ]


@case("conv2d_1x1")
def _(rs):
    return (lambda x, W, b: F.convolution_2d(x, W, b)), [
        U(rs, IMG),
        U(rs, (128, 64, 1, 1)),
        U(rs, (128,)),
    ]


@case("conv2d_3x3_s2_p1")
def _(rs):
    return (lambda x, W, b: F.convolution_2d(x, W, b, stride=2, pad=1)), [
        U(rs, IMG),
        U(rs, (128, 64, 3, 3)),
        U(rs, (128,)),
    ]


@case("conv2d_3x3_p1_nobias")
def _(rs):
    return (lambda x, W: F.convolution_2d(x, W, pad=1)), [U(rs, IMG), U(rs, (64, 64, 3, 3))]


@case("conv2d_3x3_p1_f16")
def _(rs):
    return (lambda x, W, b: F.convolution_2d(x, W, b, pad=1)), [
        U(rs, (16, 32, 32, 32), dtype=np.float16),
        U(rs, (32, 32, 3, 3), dtype=np.float16),
        U(rs, (32,), dtype=np.float16),
    ]


@case("deconv2d_4x4_s2_p1")
def _(rs):
    return (lambda x, W, b: F.deconvolution_2d(x, W, b, stride=2, pad=1)), [
        U(rs, (32, 128, 16, 16)),
        U(rs, (128, 64, 4, 4)),
        U(rs, (64,)),
    ]


@case("depthwise_conv2d")
def _(rs):
    return (lambda x, W, b: F.depthwise_convolution_2d(x, W, b, pad=1)), [
        U(rs, IMG),
        U(rs, (1, 64, 3, 3)),
        U(rs, (64,)),
    ]


@case("dilated_conv2d")
def _(rs):
    return (lambda x, W, b: F.dilated_convolution_2d(x, W, b, pad=2, dilate=2)), [
        U(rs, (32, 32, 32, 32)),
        U(rs, (32, 32, 3, 3)),
        U(rs, (32,)),
    ]


@case("conv2d_dilate_kw")
def _(rs):
    return (lambda x, W, b: F.convolution_2d(x, W, b, pad=2, dilate=2)), [
        U(rs, (32, 32, 32, 32)),
        U(rs, (32, 32, 3, 3)),
        U(rs, (32,)),
    ]


@case("conv2d_groups4")
def _(rs):
    return (lambda x, W, b: F.convolution_2d(x, W, b, pad=1, groups=4)), [
        U(rs, IMG),
        U(rs, (64, 16, 3, 3)),
        U(rs, (64,)),
    ]


@case("convolution_nd_3d")
def _(rs):
    return (lambda x, W, b: F.convolution_nd(x, W, b, pad=1)), [
        U(rs, (8, 16, 16, 16, 16)),
        U(rs, (16, 16, 3, 3, 3)),
        U(rs, (16,)),
    ]


@case("deconvolution_nd_3d")
def _(rs):
    return (lambda x, W, b: F.deconvolution_nd(x, W, b, stride=2, pad=1)), [
        U(rs, (8, 16, 8, 8, 8)),
        U(rs, (16, 16, 4, 4, 4)),
        U(rs, (16,)),
    ]


@case("embed_id")
def _(rs):
    ids = rs.randint(0, 10000, (64, 50)).astype(np.int32)
    return (lambda W: F.embed_id(ids, W)), [U(rs, (10000, 256))]


@case("lstm")
def _(rs):
    return F.lstm, [U(rs, (64, 256)), U(rs, (64, 1024))]


@case("bilinear")
def _(rs):
    return F.bilinear, [U(rs, (64, 64)), U(rs, (64, 64)), U(rs, (64, 64, 32))]


def _nstep_inputs(rs, n_layers=1, in_size=128, out_size=128, batch=16, T=20):
    ws, bs = [], []
    for layer in range(n_layers):
        ins = in_size if layer == 0 else out_size
        ws.append([U(rs, (out_size, ins if i < 4 else out_size), -0.1, 0.1) for i in range(8)])
        bs.append([U(rs, (out_size,), -0.1, 0.1) for i in range(8)])
    xs = [U(rs, (batch, in_size)) for _ in range(T)]
    hx = U(rs, (n_layers, batch, out_size))
    cx = U(rs, (n_layers, batch, out_size))
    return ws, bs, xs, hx, cx


@case("n_step_lstm")
def _(rs):
    ws, bs, xs, hx, cx = _nstep_inputs(rs)
    nl, nb = len(ws), len(xs)
    flat = [hx, cx] + [a for w in ws for a in w] + [a for b in bs for a in b] + xs

    def f(*v):
        h, c = v[0], v[1]
        p = 2
        W = [list(v[p + 8 * i : p + 8 * i + 8]) for i in range(nl)]
        p += 8 * nl
        B = [list(v[p + 8 * i : p + 8 * i + 8]) for i in range(nl)]
        p += 8 * nl
        X = list(v[p : p + nb])
        hy, cy, ys = F.n_step_lstm(nl, 0.0, h, c, W, B, X)
        return [hy, cy] + list(ys)

    return f, flat


@case("n_step_gru")
def _(rs):
    rs2 = rs
    ws = [[U(rs2, (128, 128), -0.1, 0.1) for i in range(6)]]
    bs = [[U(rs2, (128,), -0.1, 0.1) for i in range(6)]]
    xs = [U(rs2, (16, 128)) for _ in range(20)]
    hx = U(rs2, (1, 16, 128))
    flat = [hx] + ws[0] + bs[0] + xs

    def f(*v):
        hy, ys = F.n_step_gru(1, 0.0, v[0], [list(v[1:7])], [list(v[7:13])], list(v[13:]))
        return [hy] + list(ys)

    return f, flat


# ---------------- normalization
@case("batch_normalization")
def _(rs):
    return (lambda x, g, b: F.batch_normalization(x, g, b)), [
        U(rs, IMG),
        U(rs, (64,), 0.5, 1.5),
        U(rs, (64,)),
    ]


@case("batch_normalization_2d")
def _(rs):
    return (lambda x, g, b: F.batch_normalization(x, g, b)), [
        U(rs, (128, 1024)),
        U(rs, (1024,), 0.5, 1.5),
        U(rs, (1024,)),
    ]


@case("batch_normalization_f16")
def _(rs):
    h = np.float16
    return (lambda x, g, b: F.batch_normalization(x, g, b)), [
        U(rs, IMG, dtype=h),
        U(rs, (64,), 0.5, 1.5, dtype=h),
        U(rs, (64,), dtype=h),
    ]


@case("fixed_batch_normalization")
def _(rs):
    return F.fixed_batch_normalization, [
        U(rs, IMG),
        U(rs, (64,), 0.5, 1.5),
        U(rs, (64,)),
        U(rs, (64,)),
        U(rs, (64,), 0.5, 1.5),
    ]


@case("layer_normalization")
def _(rs):
    return F.layer_normalization, [U(rs, E), U(rs, (1024,), 0.5, 1.5), U(rs, (1024,))]


@case("group_normalization")
def _(rs):
    return (lambda x, g, b: F.group_normalization(x, 8, g, b)), [
        U(rs, IMG),
        U(rs, (64,), 0.5, 1.5),
        U(rs, (64,)),
    ]


unary("local_response_normalization", F.local_response_normalization, shape=IMG)
unary("normalize_l2", F.normalize)

# ---------------- pooling
unary("max_pooling_2d_2x2", lambda x: F.max_pooling_2d(x, 2), shape=IMG)
unary("max_pooling_2d_3x3_s2_p1", lambda x: F.max_pooling_2d(x, 3, 2, 1), shape=IMG)
unary("max_pooling_2d_3x3_s1_p1", lambda x: F.max_pooling_2d(x, 3, 1, 1), shape=IMG)
unary("average_pooling_2d_2x2", lambda x: F.average_pooling_2d(x, 2), shape=IMG)
unary("average_pooling_2d_3x3_s2_p1", lambda x: F.average_pooling_2d(x, 3, 2, 1), shape=IMG)
unary("average_pooling_2d_global", lambda x: F.average_pooling_2d(x, 32), shape=IMG)
unary("average_pooling_nd_3d", lambda x: F.average_pooling_nd(x, 2), shape=(8, 16, 16, 16, 16))
unary("max_pooling_nd_3d", lambda x: F.max_pooling_nd(x, 2), shape=(8, 16, 16, 16, 16))
unary("unpooling_2d", lambda x: F.unpooling_2d(x, 2, outsize=(32, 32)), shape=(32, 64, 16, 16))


@case("upsampling_2d")
def _(rs):
    x0 = chainer.Variable(U(rs, IMG))
    _, idx = F.max_pooling_2d(x0, 2, return_indices=True)
    return (lambda y: F.upsampling_2d(y, idx, 2, outsize=(32, 32))), [U(rs, (32, 64, 16, 16))]


@case("roi_pooling_2d")
def _(rs):
    n = 64
    bi = rs.randint(0, 4, n).astype(f32)
    x0 = rs.uniform(0, 20, n)
    y0 = rs.uniform(0, 20, n)
    rois = np.stack([bi, x0, y0, x0 + rs.uniform(4, 12, n), y0 + rs.uniform(4, 12, n)], 1).astype(
        f32
    )
    return (lambda x: F.roi_pooling_2d(x, rois, 7, 7, 1.0)), [U(rs, (4, 64, 32, 32))]


unary(
    "spatial_pyramid_pooling_2d",
    lambda x: F.spatial_pyramid_pooling_2d(x, 3, pooling="max"),
    shape=IMG,
)

# ---------------- loss


@case("softmax_cross_entropy")
def _(rs):
    t = rs.randint(0, 1000, 128).astype(np.int32)
    return (lambda x: F.softmax_cross_entropy(x, t)), [U(rs, (128, 1000))]


@case("softmax_cross_entropy_f16")
def _(rs):
    t = rs.randint(0, 1000, 128).astype(np.int32)
    return (lambda x: F.softmax_cross_entropy(x, t)), [U(rs, (128, 1000), dtype=np.float16)]


@case("softmax_cross_entropy_img")
def _(rs):
    t = rs.randint(0, 21, (16, 64, 64)).astype(np.int32)
    return (lambda x: F.softmax_cross_entropy(x, t)), [U(rs, (16, 21, 64, 64))]


@case("sigmoid_cross_entropy")
def _(rs):
    t = rs.randint(0, 2, E).astype(np.int32)
    return (lambda x: F.sigmoid_cross_entropy(x, t)), [U(rs, E)]


@case("mean_squared_error")
def _(rs):
    return F.mean_squared_error, [U(rs, E), U(rs, E)]


@case("mean_absolute_error")
def _(rs):
    return F.mean_absolute_error, [U(rs, E), U(rs, E)]


@case("huber_loss")
def _(rs):
    return (lambda a, b: F.huber_loss(a, b, 1.0)), [U(rs, E, -2, 2), U(rs, E, -2, 2)]


@case("hinge")
def _(rs):
    t = rs.randint(0, 1000, 128).astype(np.int32)
    return (lambda x: F.hinge(x, t)), [U(rs, (128, 1000))]


@case("contrastive")
def _(rs):
    y = rs.randint(0, 2, 128).astype(np.int32)
    return (lambda a, b: F.contrastive(a, b, y)), [U(rs, (128, 256)), U(rs, (128, 256))]


@case("triplet")
def _(rs):
    return F.triplet, [U(rs, (128, 256)), U(rs, (128, 256)), U(rs, (128, 256))]


@case("gaussian_kl_divergence")
def _(rs):
    return F.gaussian_kl_divergence, [U(rs, (128, 256)), U(rs, (128, 256))]


@case("bernoulli_nll")
def _(rs):
    return F.bernoulli_nll, [U(rs, E, 0, 1), U(rs, E)]


@case("gaussian_nll")
def _(rs):
    return F.gaussian_nll, [U(rs, E), U(rs, E), U(rs, E)]


@case("ctc")
def _(rs):
    T, B, V = 50, 16, 30
    t = rs.randint(1, V, (B, 10)).astype(np.int32)

    def f(*xs):
        return F.connectionist_temporal_classification(list(xs), t, 0)

    return f, [U(rs, (B, V)) for _ in range(T)]


@case("negative_sampling")
def _(rs):
    np.random.seed(3)
    counts = rs.randint(1, 100, 1000)
    t = rs.randint(0, 1000, 64).astype(np.int32)
    sampler = chainer.utils.WalkerAlias(counts.astype(np.float64) / counts.sum())
    return (lambda x, W: F.negative_sampling(x, t, W, sampler.sample, 5)), [
        U(rs, (64, 128)),
        U(rs, (1000, 128)),
    ]


# ---------------- noise
unary("dropout", lambda x: F.dropout(x, 0.5))


@case("gaussian")
def _(rs):
    return F.gaussian, [U(rs, E), U(rs, E)]


# ---------------- links
@case("L.Linear")
def _(rs):
    np.random.seed(1)
    link = L.Linear(512, 512)
    return link, [U(rs, (64, 512))], link


@case("L.Convolution2D")
def _(rs):
    np.random.seed(1)
    link = L.Convolution2D(64, 64, 3, 1, 1)
    return link, [U(rs, IMG)], link


@case("L.BatchNormalization")
def _(rs):
    np.random.seed(1)
    link = L.BatchNormalization(64)
    return link, [U(rs, IMG)], link


@case("L.BatchNormalization_test")
def _(rs):
    np.random.seed(1)
    link = L.BatchNormalization(64)

    def f(x):
        with chainer.using_config("train", False):
            return link(x)

    return f, [U(rs, IMG)], link


@case("L.LSTM_2steps")
def _(rs):
    np.random.seed(1)
    link = L.LSTM(256, 256)

    def f(x1, x2):
        link.reset_state()
        link(x1)
        return link(x2)

    return f, [U(rs, (64, 256)), U(rs, (64, 256))], link


@case("L.NStepLSTM")
def _(rs):
    np.random.seed(1)
    link = L.NStepLSTM(1, 128, 128, 0.0)

    def f(*xs):
        hy, cy, ys = link(None, None, list(xs))
        return [hy, cy] + list(ys)

    return f, [U(rs, (20, 128)) for _ in range(16)], link


@case("L.NStepLSTM_2layer")
def _(rs):
    np.random.seed(1)
    link = L.NStepLSTM(2, 128, 128, 0.0)

    def f(*xs):
        hy, cy, ys = link(None, None, list(xs))
        return [hy, cy] + list(ys)

    return f, [U(rs, (20, 128)) for _ in range(16)], link


@case("L.Deconvolution2D")
def _(rs):
    np.random.seed(1)
    link = L.Deconvolution2D(128, 64, 4, 2, 1)
    return link, [U(rs, (32, 128, 16, 16))], link


@case("L.EmbedID")
def _(rs):
    np.random.seed(1)
    link = L.EmbedID(10000, 256)
    ids = rs.randint(0, 10000, (64, 50)).astype(np.int32)
    return (lambda: link(ids)), [], link


@case("L.Classifier_MLP")
def _(rs):
    np.random.seed(1)
    mlp = chainer.Sequential(
        L.Linear(784, 1000), F.relu, L.Linear(1000, 1000), F.relu, L.Linear(1000, 10)
    )
    link = L.Classifier(mlp)
    t = rs.randint(0, 10, 128).astype(np.int32)
    return (lambda x: link(x, t)), [U(rs, (128, 784))], link


@case("cnn_block")
def _(rs):
    np.random.seed(1)
    c1 = L.Convolution2D(32, 64, 3, 1, 1, nobias=True)
    bn = L.BatchNormalization(64)
    c = chainer.ChainList(c1, bn)

    def f(x):
        return F.max_pooling_2d(F.relu(bn(c1(x))), 2)

    return f, [U(rs, (32, 32, 32, 32))], c


# ---------------------------------------------------------------- extras (x_)
@case("x_repeat_tuple")
def _(rs):
    reps = tuple(int(r) for r in rs.randint(1, 5, 256))
    return (lambda x: F.repeat(x, reps, axis=1)), [U(rs, (128, 256))]


@case("x_embed_id_ignore")
def _(rs):
    ids = rs.randint(0, 10000, (64, 50)).astype(np.int32)
    ids[:, 40:] = -1
    return (lambda W: F.embed_id(ids, W, ignore_label=-1)), [U(rs, (10000, 256))]


@case("x_embed_id_ptb")
def _(rs):
    ids = rs.randint(0, 10000, (20, 35)).astype(np.int32)
    return (lambda W: F.embed_id(ids, W)), [U(rs, (10000, 650))]


unary("x_get_item_int_col", lambda x: x[:, 5])
unary("x_get_item_row", lambda x: x[3])
unary("x_get_item_newaxis", lambda x: x[..., None])
unary("x_get_item_step_img", lambda x: x[:, :, ::2, ::2], shape=IMG)


@case("x_get_item_fancy_axis1")
def _(rs):
    idx = rs.randint(0, 1024, 512)
    return (lambda x: x[:, idx]), [U(rs, E)]


@case("x_get_item_fancy_2d")
def _(rs):
    i0 = rs.randint(0, 128, 2000)
    i1 = rs.randint(0, 1024, 2000)
    return (lambda x: x[i0, i1]), [U(rs, E)]


@case("x_scatter_add")
def _(rs):
    idx = rs.randint(0, 128, 256)
    return (lambda a, b: F.scatter_add(a, idx, b)), [U(rs, E), U(rs, (256, 1024))]


@case("x_select_item")
def _(rs):
    t = rs.randint(0, 1000, 128).astype(np.int32)
    return (lambda x: F.select_item(x, t)), [U(rs, (128, 1000))]


@case("x_permutate")
def _(rs):
    idx = rs.permutation(128).astype(np.int32)
    return (lambda x: F.permutate(x, idx, axis=0)), [U(rs, E)]


unary("x_rollaxis", lambda x: F.rollaxis(x, 1, 4), shape=IMG)
unary("x_moveaxis", lambda x: F.moveaxis(x, 1, -1), shape=IMG)


@case("x_hstack")
def _(rs):
    return (lambda a, b: F.hstack((a, b))), [U(rs, E), U(rs, E)]


@case("x_vstack")
def _(rs):
    return (lambda a, b: F.vstack((a, b))), [U(rs, E), U(rs, E)]


@case("x_dstack")
def _(rs):
    return (lambda a, b: F.dstack((a, b))), [U(rs, (32, 32, 64)), U(rs, (32, 32, 64))]


unary("x_depth2space", lambda x: F.depth2space(x, 2), shape=IMG)
unary("x_diagonal", lambda x: F.diagonal(x, 0, 1, 2), shape=(64, 128, 128))
unary("x_fliplr", F.fliplr)


@case("x_pad_sequence")
def _(rs):
    lengths = rs.randint(5, 50, 32)
    return (lambda *xs: F.pad_sequence(xs)), [U(rs, (int(length), 128)) for length in lengths]


@case("x_transpose_sequence")
def _(rs):
    ls = sorted(rs.randint(5, 50, 32), reverse=True)
    return (lambda *xs: F.transpose_sequence(xs)), [U(rs, (int(length), 128)) for length in ls]


unary("x_prod_axis1", lambda x: F.prod(x, axis=1), 0.9, 1.1, shape=(128, 64))
unary("x_cumprod_axis1", lambda x: F.cumprod(x, axis=1), 0.9, 1.1, shape=(128, 64))
unary("x_log1p", F.log1p, 0, 1)
unary("x_expm1", F.expm1)
unary("x_lgamma", F.lgamma, 0.5, 3)
unary("x_digamma", F.digamma, 0.5, 3)
unary("x_erfinv", F.erfinv, -0.9, 0.9)
unary("x_erfc", F.erfc)
unary("x_log_ndtr", F.log_ndtr)
unary("x_ndtr", F.ndtr)
unary("x_arctanh", F.arctanh, -0.9, 0.9)
unary("x_cosh", F.cosh)
unary("x_arcsin", F.arcsin, -0.9, 0.9)
unary("x_tan", F.tan)
unary("x_log2", F.log2, 0.1, 2)
unary("x_fix", F.fix, -3, 3)
unary("x_sign_fwd", F.sign)


@case("x_minimum")
def _(rs):
    return F.minimum, [U(rs, E), U(rs, E)]


@case("x_fmod")
def _(rs):
    return F.fmod, [U(rs, E, -3, 3), U(rs, E, 0.5, 1.5)]


@case("x_batch_det")
def _(rs):
    return F.batch_det, [U(rs, (64, 16, 16)) + 4 * np.eye(16, dtype=f32)]


@case("x_batch_inv")
def _(rs):
    return F.batch_inv, [U(rs, (64, 16, 16)) + 4 * np.eye(16, dtype=f32)]


@case("x_prelu")
def _(rs):
    return F.prelu, [U(rs, IMG), U(rs, (64,), 0, 0.5)]


unary("x_rrelu", F.rrelu)


@case("x_batch_renormalization")
def _(rs):
    rm, rv = np.zeros(64, f32), np.ones(64, f32)
    return (
        lambda x, g, b: F.batch_renormalization(x, g, b, 3.0, 5.0, running_mean=rm, running_var=rv)
    ), [U(rs, IMG), U(rs, (64,), 0.5, 1.5), U(rs, (64,))]


unary(
    "x_decorrelated_bn",
    lambda x: F.decorrelated_batch_normalization(x, groups=4),
    shape=(32, 64, 8, 8),
)


def _rois(rs, n=64, size=32, batch=4):
    x0 = rs.uniform(0, 20, n)
    y0 = rs.uniform(0, 20, n)
    rois = np.stack([y0, x0, y0 + rs.uniform(4, 12, n), x0 + rs.uniform(4, 12, n)], 1).astype(f32)
    return rois, rs.randint(0, batch, n).astype(np.int32)


@case("x_roi_max_pooling_2d")
def _(rs):
    rois, ri = _rois(rs)
    return (lambda x: F.roi_max_pooling_2d(x, rois, ri, 7, 1.0)), [U(rs, (4, 64, 32, 32))]


@case("x_roi_average_pooling_2d")
def _(rs):
    rois, ri = _rois(rs)
    return (lambda x: F.roi_average_pooling_2d(x, rois, ri, 7, 1.0)), [U(rs, (4, 64, 32, 32))]


@case("x_roi_average_align_2d")
def _(rs):
    rois, ri = _rois(rs)
    return (lambda x: F.roi_average_align_2d(x, rois, ri, 7, 1.0, 2)), [U(rs, (4, 64, 32, 32))]


@case("x_roi_max_align_2d")
def _(rs):
    rois, ri = _rois(rs)
    return (lambda x: F.roi_max_align_2d(x, rois, ri, 7, 1.0, 2)), [U(rs, (4, 64, 32, 32))]


@case("x_local_convolution_2d")
def _(rs):
    return F.local_convolution_2d, [
        U(rs, (8, 16, 16, 16)),
        U(rs, (16, 14, 14, 16, 3, 3)),
        U(rs, (16, 14, 14)),
    ]


unary("x_shift", lambda x: F.shift(x, 3), shape=IMG)


@case("x_spatial_transformer")
def _(rs):
    th = np.tile(np.array([[1, 0.1, 0], [0.1, 1, 0]], f32), (8, 1, 1)) + U(
        rs, (8, 2, 3), -0.05, 0.05
    )
    return (
        lambda x, t: F.spatial_transformer_sampler(x, F.spatial_transformer_grid(t, (32, 32)))
    ), [U(rs, (8, 3, 32, 32)), th]


@case("x_squared_error")
def _(rs):
    return F.squared_error, [U(rs, E), U(rs, E)]


@case("x_absolute_error")
def _(rs):
    return F.absolute_error, [U(rs, E), U(rs, E)]


@case("x_cross_covariance")
def _(rs):
    return F.cross_covariance, [U(rs, (128, 256)), U(rs, (128, 256))]


unary("x_decov", F.decov, shape=(128, 256))


@case("x_crf1d")
def _(rs):
    T, B, K = 20, 16, 10
    ys = [rs.randint(0, K, B).astype(np.int32) for _ in range(T)]
    return (lambda c, *xs: F.crf1d(c, list(xs), ys)), [U(rs, (K, K))] + [
        U(rs, (B, K)) for _ in range(T)
    ]


@case("x_black_out")
def _(rs):
    t = rs.randint(0, 1000, 64).astype(np.int32)
    samples = rs.randint(0, 1000, (64, 20)).astype(np.int32)
    return (lambda x, W: F.black_out(x, t, W, samples)), [U(rs, (64, 128)), U(rs, (1000, 128))]


@case("x_accuracy", fwd_only=True)
def _(rs):
    t = rs.randint(0, 1000, 128).astype(np.int32)
    return (lambda x: F.accuracy(x, t)), [U(rs, (128, 1000))]


@case("x_classification_summary", fwd_only=True)
def _(rs):
    t = rs.randint(0, 10, 1280).astype(np.int32)
    return (lambda x: F.classification_summary(x, t)), [U(rs, (1280, 10))]


@case("x_r2_score", fwd_only=True)
def _(rs):
    return F.r2_score, [U(rs, (1280, 10)), U(rs, (1280, 10))]


@case("x_zoneout")
def _(rs):
    return F.zoneout, [U(rs, E), U(rs, E)]


@case("x_simplified_dropconnect")
def _(rs):
    return F.simplified_dropconnect, [U(rs, (64, 512)), U(rs, (512, 512)), U(rs, (512,))]


unary("x_gumbel_softmax", lambda x: F.gumbel_softmax(x, 0.5), shape=(128, 100))


@case("x_n_step_bilstm")
def _(rs):
    ws = [[U(rs, (64, 64), -0.1, 0.1) for i in range(8)] for _ in range(2)]
    bs = [[U(rs, (64,), -0.1, 0.1) for i in range(8)] for _ in range(2)]
    xs = [U(rs, (16, 64)) for _ in range(20)]
    hx = U(rs, (2, 16, 64))
    cx = U(rs, (2, 16, 64))
    flat = [hx, cx] + ws[0] + ws[1] + bs[0] + bs[1] + xs

    def f(*v):
        hy, cy, ys = F.n_step_bilstm(
            1,
            0.0,
            v[0],
            v[1],
            [list(v[2:10]), list(v[10:18])],
            [list(v[18:26]), list(v[26:34])],
            list(v[34:]),
        )
        return [hy, cy] + list(ys)

    return f, flat


@case("x_n_step_rnn")
def _(rs):
    ws = [[U(rs, (128, 128), -0.1, 0.1) for i in range(2)]]
    bs = [[U(rs, (128,), -0.1, 0.1) for i in range(2)]]
    xs = [U(rs, (16, 128)) for _ in range(20)]
    flat = [U(rs, (1, 16, 128))] + ws[0] + bs[0] + xs

    def f(*v):
        hy, ys = F.n_step_rnn(1, 0.0, v[0], [list(v[1:3])], [list(v[3:5])], list(v[5:]))
        return [hy] + list(ys)

    return f, flat


@case("x_slstm")
def _(rs):
    return F.slstm, [U(rs, (64, 256)), U(rs, (64, 256)), U(rs, (64, 1024)), U(rs, (64, 1024))]


@case("x_tree_lstm")
def _(rs):
    return F.tree_lstm, [U(rs, (64, 256)), U(rs, (64, 256)), U(rs, (64, 1280))]


unary(
    "x_max_pooling_2d_coverall_false",
    lambda x: F.max_pooling_2d(x, 3, 2, 1, cover_all=False),
    shape=IMG,
)
unary(
    "x_unpooling_nd", lambda x: F.unpooling_nd(x, 2, outsize=(16, 16, 16)), shape=(8, 16, 8, 8, 8)
)
unary(
    "x_average_pooling_nd_pad_ignore",
    lambda x: F.average_pooling_nd(x, 3, 1, 1, pad_value=None),
    shape=IMG,
)


@case("x_conv_resnet_stem")
def _(rs):
    return (lambda x, W: F.convolution_2d(x, W, stride=2, pad=3)), [
        U(rs, (2, 3, 224, 224)),
        U(rs, (64, 3, 7, 7)),
    ]


@case("x_conv_lenet_5x5")
def _(rs):
    return (lambda x, W, b: F.convolution_2d(x, W, b)), [
        U(rs, (64, 1, 28, 28)),
        U(rs, (20, 1, 5, 5)),
        U(rs, (20,)),
    ]


@case("x_conv_large_map")
def _(rs):
    return (lambda x, W, b: F.convolution_2d(x, W, b, pad=1)), [
        U(rs, (8, 32, 96, 96)),
        U(rs, (32, 32, 3, 3)),
        U(rs, (32,)),
    ]


@case("x_matmul_f16")
def _(rs):
    return F.matmul, [U(rs, (64, 128), dtype=np.float16), U(rs, (128, 128), dtype=np.float16)]


@case("x_linear_f16")
def _(rs):
    h = np.float16
    return F.linear, [U(rs, (64, 128), dtype=h), U(rs, (128, 128), dtype=h), U(rs, (128,), dtype=h)]


@case("x_tanh_f16")
def _(rs):
    return F.tanh, [U(rs, E, dtype=np.float16)]


@case("x_max_pool_f16")
def _(rs):
    return (lambda x: F.max_pooling_2d(x, 2)), [U(rs, IMG, dtype=np.float16)]


@case("x_relu_small")
def _(rs):
    return F.relu, [U(rs, (8, 16))]


@case("x_linear_small")
def _(rs):
    return F.linear, [U(rs, (8, 16)), U(rs, (16, 16)), U(rs, (16,))]


@case("x_conv_small")
def _(rs):
    return (lambda x, W, b: F.convolution_2d(x, W, b, pad=1)), [
        U(rs, (1, 3, 8, 8)),
        U(rs, (4, 3, 3, 3)),
        U(rs, (4,)),
    ]


@case("x_bn_small")
def _(rs):
    return F.batch_normalization, [U(rs, (8, 16)), U(rs, (16,)), U(rs, (16,))]


@case("x_sce_small")
def _(rs):
    t = rs.randint(0, 10, 8).astype(np.int32)
    return (lambda x: F.softmax_cross_entropy(x, t)), [U(rs, (8, 10))]


def _link_case(name, make, shape_or_inputs, ints=None):
    @case(name)
    def _(rs):
        np.random.seed(1)
        link = make()
        if ints is not None:
            ids = rs.randint(0, ints[0], ints[1]).astype(np.int32)
            return (lambda: link(ids)), [], link
        return link, [U(rs, s) for s in shape_or_inputs], link


_link_case("x_L.GRU", lambda: L.GRU(256, 256), [(64, 256)])
_link_case(
    "x_L.StatelessLSTM", lambda: L.StatelessLSTM(256, 256), [(64, 256), (64, 256), (64, 256)]
)
_link_case("x_L.Highway", lambda: L.Highway(512), [(64, 512)])
_link_case("x_L.MLPConvolution2D", lambda: L.MLPConvolution2D(64, (64, 64, 64), 3, pad=1), [IMG])
_link_case(
    "x_L.DilatedConvolution2D",
    lambda: L.DilatedConvolution2D(32, 32, 3, pad=2, dilate=2),
    [(32, 32, 32, 32)],
)
_link_case("x_L.GroupNormalization", lambda: L.GroupNormalization(8, 64), [IMG])
_link_case("x_L.LayerNormalization", lambda: L.LayerNormalization(1024), [E])
_link_case("x_L.Maxout", lambda: L.Maxout(512, 256, 4), [(64, 512)])
_link_case("x_L.Bilinear", lambda: L.Bilinear(64, 64, 32), [(64, 64), (64, 64)])
_link_case("x_L.Scale", lambda: L.Scale(axis=1, W_shape=(64,), bias_term=True), [IMG])
_link_case("x_L.ConvolutionND", lambda: L.ConvolutionND(3, 16, 16, 3, pad=1), [(8, 16, 16, 16, 16)])
_link_case("x_L.DeconvolutionND", lambda: L.DeconvolutionND(3, 16, 16, 4, 2, 1), [(8, 16, 8, 8, 8)])
_link_case("x_L.DepthwiseConvolution2D", lambda: L.DepthwiseConvolution2D(64, 1, 3, pad=1), [IMG])
_link_case("x_L.BatchRenormalization", lambda: L.BatchRenormalization(64, 3.0, 5.0), [IMG])
_link_case("x_L.StatefulPeepholeLSTM", lambda: L.StatefulPeepholeLSTM(256, 256), [(64, 256)])
_link_case(
    "x_L.LocalConvolution2D", lambda: L.LocalConvolution2D(16, 16, (16, 16), 3), [(8, 16, 16, 16)]
)
_link_case("x_L.EmbedID_ptb", lambda: L.EmbedID(10000, 650), None, ints=(10000, (20, 35)))


@case("x_L.NStepGRU")
def _(rs):
    np.random.seed(1)
    link = L.NStepGRU(1, 128, 128, 0.0)

    def f(*xs):
        hy, ys = link(None, list(xs))
        return [hy] + list(ys)

    return f, [U(rs, (20, 128)) for _ in range(16)], link


@case("x_L.NStepBiLSTM")
def _(rs):
    np.random.seed(1)
    link = L.NStepBiLSTM(1, 64, 64, 0.0)

    def f(*xs):
        hy, cy, ys = link(None, None, list(xs))
        return [hy, cy] + list(ys)

    return f, [U(rs, (20, 64)) for _ in range(16)], link


@case("x_L.CRF1d")
def _(rs):
    np.random.seed(1)
    link = L.CRF1d(10)
    ys = [rs.randint(0, 10, 16).astype(np.int32) for _ in range(20)]
    return (lambda *xs: link(list(xs), ys)), [U(rs, (16, 10)) for _ in range(20)], link


@case("x_L.BlackOut")
def _(rs):
    np.random.seed(1)
    counts = rs.randint(1, 100, 1000)
    link = L.BlackOut(128, counts, 20)
    t = rs.randint(0, 1000, 64).astype(np.int32)
    return (lambda x: link(x, t)), [U(rs, (64, 128))], link


@case("x_L.NegativeSampling")
def _(rs):
    np.random.seed(1)
    counts = rs.randint(1, 100, 1000)
    link = L.NegativeSampling(128, counts, 5)
    t = rs.randint(0, 1000, 64).astype(np.int32)
    return (lambda x: link(x, t)), [U(rs, (64, 128))], link


@case("x_L.BinaryHierarchicalSoftmax")
def _(rs):
    np.random.seed(1)
    counts = {i: int(c) for i, c in enumerate(rs.randint(1, 100, 1000))}
    tree = L.BinaryHierarchicalSoftmax.create_huffman_tree(counts)
    link = L.BinaryHierarchicalSoftmax(128, tree)
    t = rs.randint(0, 1000, 64).astype(np.int32)
    return (lambda x: link(x, t)), [U(rs, (64, 128))], link


@case("x_L.Inception")
def _(rs):
    np.random.seed(1)
    link = L.Inception(64, 32, 48, 64, 8, 16, 16)
    return link, [U(rs, (16, 64, 16, 16))], link


@case("x_resnet_basic_block")
def _(rs):
    np.random.seed(1)
    c1 = L.Convolution2D(64, 64, 3, 1, 1, nobias=True)
    b1 = L.BatchNormalization(64)
    c2 = L.Convolution2D(64, 64, 3, 1, 1, nobias=True)
    b2 = L.BatchNormalization(64)
    ch = chainer.ChainList(c1, b1, c2, b2)

    def f(x):
        h = F.relu(b1(c1(x)))
        return F.relu(b2(c2(h)) + x)

    return f, [U(rs, (16, 64, 16, 16))], ch


@case("x_dcgan_gen_block")
def _(rs):
    np.random.seed(1)
    d = L.Deconvolution2D(256, 128, 4, 2, 1)
    b = L.BatchNormalization(128)
    ch = chainer.ChainList(d, b)
    return (lambda x: F.relu(b(d(x)))), [U(rs, (32, 256, 8, 8))], ch


@case("x_lstm_lm_step")
def _(rs):
    np.random.seed(1)
    emb = L.EmbedID(10000, 200)
    lstm = L.LSTM(200, 200)
    out = L.Linear(200, 10000)
    ch = chainer.ChainList(emb, lstm, out)
    ids = rs.randint(0, 10000, (35, 20)).astype(np.int32)

    def f():
        lstm.reset_state()
        loss = 0
        for t in range(0, 35, 5):
            h = lstm(F.dropout(emb(ids[t]), 0.5))
            loss += F.softmax_cross_entropy(
                out(F.dropout(h, 0.5)), ids[t + 1] if t + 1 < 35 else ids[0]
            )
        return loss

    return f, [], ch


# ---------------------------------------------------------------- runner


def run_once(fn, arrays, link, fwd_only):
    vs = [chainer.Variable(a) for a in arrays]
    if link is not None:
        link.cleargrads()
    gc.collect()
    t0 = time.process_time()
    y = fn(*vs)
    if not fwd_only:
        if isinstance(y, (list, tuple)):
            _multi_backward(y)
        else:
            y.grad = np.ones_like(y.array)
            y.backward()
    t1 = time.process_time()
    return t1 - t0


def _multi_backward(ys):
    chainer.backward(list(ys), [chainer.Variable(np.ones_like(yi.array)) for yi in ys])


def main():
    """Times every case (or those named by ``--only a,b``): one warm-up, then ``--reps``
    repeats (fewer for cases over half a second), keeping the minimum and the median."""
    args = sys.argv[2:]
    only = None
    reps = 7
    for flag, value in zip(args[::2], args[1::2]):
        if flag == "--only":
            only = set(value.split(","))
        elif flag == "--reps":
            reps = int(value)
        else:
            raise SystemExit(f"unknown argument {flag}\n{__doc__}")
    results = {}
    for name, setup, fwd_only in CASES:
        if only and name not in only:
            continue
        try:
            made = setup(rs_for(name))
            fn, arrays = made[0], made[1]
            link = made[2] if len(made) > 2 else None
            with chainer.using_config("train", True):
                first = run_once(fn, arrays, link, fwd_only)  # warm-up
                count = reps if first < 0.5 else max(3, reps // 2)
                times = sorted(run_once(fn, arrays, link, fwd_only) for _ in range(count))
            results[name] = {"min": times[0] * 1e3, "med": times[len(times) // 2] * 1e3}
        except Exception as error:  # a case one library cannot run is a finding, not a stop
            results[name] = {"error": f"{type(error).__name__}: {str(error)[:300]}"}
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
