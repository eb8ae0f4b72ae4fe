"""``chainer_compat.functions`` (``F``): the differentiable functions, at Chainer's module paths.

Each function lives in the module Chainer has it in (``functions/<group>/<module>.py``), so legacy
code importing classes from there finds them; this module re-exports the public names, as
Chainer's ``chainer.functions`` does. ``chainer_compat._surface`` lists Chainer's names that are
not implemented yet.
"""

from chainer_compat.functions.activation.clipped_relu import ClippedReLU, clipped_relu, relu6
from chainer_compat.functions.activation.crelu import CReLU, crelu
from chainer_compat.functions.activation.elu import ELU, elu
from chainer_compat.functions.activation.hard_sigmoid import HardSigmoid, hard_sigmoid
from chainer_compat.functions.activation.leaky_relu import LeakyReLU, leaky_relu
from chainer_compat.functions.activation.log_softmax import LogSoftmax, log_softmax
from chainer_compat.functions.activation.maxout import maxout
from chainer_compat.functions.activation.prelu import PReLUFunction, prelu
from chainer_compat.functions.activation.relu import ReLU, relu
from chainer_compat.functions.activation.rrelu import rrelu
from chainer_compat.functions.activation.selu import selu
from chainer_compat.functions.activation.sigmoid import Sigmoid, sigmoid
from chainer_compat.functions.activation.softmax import Softmax, softmax
from chainer_compat.functions.activation.softplus import Softplus, softplus
from chainer_compat.functions.activation.swish import Swish, swish
from chainer_compat.functions.activation.tanh import Tanh, tanh
from chainer_compat.functions.array.as_strided import as_strided
from chainer_compat.functions.array.broadcast import (
    Broadcast,
    BroadcastTo,
    broadcast,
    broadcast_to,
)
from chainer_compat.functions.array.cast import Cast, cast
from chainer_compat.functions.array.concat import Concat, concat
from chainer_compat.functions.array.copy import Copy, copy
from chainer_compat.functions.array.depth2space import depth2space
from chainer_compat.functions.array.diagonal import Diagonal, diagonal
from chainer_compat.functions.array.dstack import Dstack, dstack
from chainer_compat.functions.array.expand_dims import ExpandDims, expand_dims
from chainer_compat.functions.array.flatten import Flatten, flatten
from chainer_compat.functions.array.flip import Flip, flip
from chainer_compat.functions.array.fliplr import FlipLR, fliplr
from chainer_compat.functions.array.flipud import FlipUD, flipud
from chainer_compat.functions.array.get_item import GetItem, get_item
from chainer_compat.functions.array.hstack import Hstack, hstack
from chainer_compat.functions.array.im2col import im2col
from chainer_compat.functions.array.moveaxis import Moveaxis, moveaxis
from chainer_compat.functions.array.pad import Pad, pad
from chainer_compat.functions.array.pad_sequence import pad_sequence
from chainer_compat.functions.array.permutate import Permutate, permutate
from chainer_compat.functions.array.repeat import Repeat, repeat
from chainer_compat.functions.array.reshape import Reshape, reshape
from chainer_compat.functions.array.resize_images import resize_images
from chainer_compat.functions.array.rollaxis import Rollaxis, rollaxis
from chainer_compat.functions.array.scatter_add import ScatterAdd, scatter_add
from chainer_compat.functions.array.select_item import SelectItem, select_item
from chainer_compat.functions.array.separate import Separate, separate
from chainer_compat.functions.array.space2depth import space2depth
from chainer_compat.functions.array.spatial_transformer_grid import spatial_transformer_grid
from chainer_compat.functions.array.spatial_transformer_sampler import spatial_transformer_sampler
from chainer_compat.functions.array.split_axis import SplitAxis, split_axis
from chainer_compat.functions.array.squeeze import Squeeze, squeeze
from chainer_compat.functions.array.stack import Stack, stack
from chainer_compat.functions.array.swapaxes import Swapaxes, swapaxes
from chainer_compat.functions.array.tile import Tile, tile
from chainer_compat.functions.array.transpose import Transpose, transpose
from chainer_compat.functions.array.transpose_sequence import transpose_sequence
from chainer_compat.functions.array.vstack import Vstack, vstack
from chainer_compat.functions.array.where import Where, where
from chainer_compat.functions.connection.bilinear import BilinearFunction, bilinear
from chainer_compat.functions.connection.convolution_2d import convolution_2d
from chainer_compat.functions.connection.convolution_nd import (
    convolution_1d,
    convolution_3d,
    convolution_nd,
)
from chainer_compat.functions.connection.deconvolution_2d import deconvolution_2d
from chainer_compat.functions.connection.deconvolution_nd import (
    deconvolution_1d,
    deconvolution_3d,
    deconvolution_nd,
)
from chainer_compat.functions.connection.deformable_convolution_2d_sampler import (
    deformable_convolution_2d_sampler,
)
from chainer_compat.functions.connection.depthwise_convolution_2d import depthwise_convolution_2d
from chainer_compat.functions.connection.dilated_convolution_2d import dilated_convolution_2d
from chainer_compat.functions.connection.embed_id import EmbedIDFunction, embed_id
from chainer_compat.functions.connection.linear import LinearFunction, linear
from chainer_compat.functions.connection.local_convolution_2d import local_convolution_2d
from chainer_compat.functions.connection.shift import shift
from chainer_compat.functions.evaluation.accuracy import Accuracy, accuracy
from chainer_compat.functions.evaluation.binary_accuracy import BinaryAccuracy, binary_accuracy
from chainer_compat.functions.evaluation.classification_summary import (
    classification_summary,
    f1_score,
    precision,
    recall,
)
from chainer_compat.functions.evaluation.r2_score import R2_score, r2_score
from chainer_compat.functions.loss.absolute_error import AbsoluteError, absolute_error
from chainer_compat.functions.loss.black_out import black_out
from chainer_compat.functions.loss.contrastive import Contrastive, contrastive
from chainer_compat.functions.loss.crf1d import argmax_crf1d, crf1d
from chainer_compat.functions.loss.cross_covariance import cross_covariance
from chainer_compat.functions.loss.ctc import connectionist_temporal_classification
from chainer_compat.functions.loss.decov import decov
from chainer_compat.functions.loss.discriminative_loss import (
    discriminative_margin_based_clustering_loss,
)
from chainer_compat.functions.loss.hinge import Hinge, hinge
from chainer_compat.functions.loss.huber_loss import HuberLoss, huber_loss
from chainer_compat.functions.loss.mean_absolute_error import (
    MeanAbsoluteError,
    mean_absolute_error,
)
from chainer_compat.functions.loss.mean_squared_error import MeanSquaredError, mean_squared_error
from chainer_compat.functions.loss.negative_sampling import negative_sampling
from chainer_compat.functions.loss.sigmoid_cross_entropy import (
    SigmoidCrossEntropy,
    sigmoid_cross_entropy,
)
from chainer_compat.functions.loss.softmax_cross_entropy import (
    SoftmaxCrossEntropy,
    softmax_cross_entropy,
)
from chainer_compat.functions.loss.squared_error import (
    SquaredError,
    squared_difference,
    squared_error,
)
from chainer_compat.functions.loss.triplet import Triplet, triplet
from chainer_compat.functions.loss.vae import bernoulli_nll, gaussian_kl_divergence, gaussian_nll
from chainer_compat.functions.math.arctanh import arctanh
from chainer_compat.functions.math.average import Mean, average
from chainer_compat.functions.math.basic_math import absolute, add
from chainer_compat.functions.math.batch_l2_norm_squared import batch_l2_norm_squared
from chainer_compat.functions.math.bias import bias
from chainer_compat.functions.math.ceil import ceil
from chainer_compat.functions.math.cholesky import cholesky
from chainer_compat.functions.math.clip import Clip, clip
from chainer_compat.functions.math.cumprod import cumprod
from chainer_compat.functions.math.cumsum import Cumsum, cumsum
from chainer_compat.functions.math.det import batch_det, det
from chainer_compat.functions.math.digamma import digamma
from chainer_compat.functions.math.einsum import einsum
from chainer_compat.functions.math.erf import erf
from chainer_compat.functions.math.erfc import erfc
from chainer_compat.functions.math.erfcinv import erfcinv
from chainer_compat.functions.math.erfcx import erfcx
from chainer_compat.functions.math.erfinv import erfinv
from chainer_compat.functions.math.exponential import Exp, Log, Log2, Log10, exp, log, log2, log10
from chainer_compat.functions.math.exponential_m1 import Expm1, expm1
from chainer_compat.functions.math.fft import fft, ifft
from chainer_compat.functions.math.fix import fix
from chainer_compat.functions.math.floor import floor
from chainer_compat.functions.math.fmod import Fmod, fmod
from chainer_compat.functions.math.hyperbolic import Cosh, Sinh, cosh, sinh
from chainer_compat.functions.math.identity import Identity, identity
from chainer_compat.functions.math.inv import batch_inv, inv
from chainer_compat.functions.math.lgamma import lgamma
from chainer_compat.functions.math.linear_interpolate import LinearInterpolate, linear_interpolate
from chainer_compat.functions.math.log_ndtr import log_ndtr
from chainer_compat.functions.math.logarithm_1p import Log1p, log1p
from chainer_compat.functions.math.logsumexp import LogSumExp, logsumexp
from chainer_compat.functions.math.matmul import BatchMatMul, MatMul, batch_matmul, matmul
from chainer_compat.functions.math.maximum import Maximum, maximum
from chainer_compat.functions.math.minimum import Minimum, minimum
from chainer_compat.functions.math.minmax import (
    ArgMax,
    ArgMin,
    IndexSelectorBase,
    Max,
    Min,
    SelectorBase,
    argmax,
    argmin,
    max,
    min,
)
from chainer_compat.functions.math.ndtr import ndtr
from chainer_compat.functions.math.ndtri import ndtri
from chainer_compat.functions.math.polygamma import polygamma
from chainer_compat.functions.math.prod import Prod, prod
from chainer_compat.functions.math.scale import scale
from chainer_compat.functions.math.sign import sign
from chainer_compat.functions.math.sparse_matmul import sparse_matmul
from chainer_compat.functions.math.sqrt import RsqrtGPU, Sqrt, rsqrt, sqrt
from chainer_compat.functions.math.square import Square, square
from chainer_compat.functions.math.sum import Sum, SumTo, sum, sum_to
from chainer_compat.functions.math.tensordot import TensorDot, tensordot
from chainer_compat.functions.math.trigonometric import (
    Arccos,
    Arcsin,
    Arctan,
    Arctan2,
    Cos,
    Sin,
    Tan,
    arccos,
    arcsin,
    arctan,
    arctan2,
    cos,
    sin,
    tan,
)
from chainer_compat.functions.math.zeta import zeta
from chainer_compat.functions.noise.dropout import Dropout, dropout
from chainer_compat.functions.noise.gaussian import Gaussian, gaussian
from chainer_compat.functions.noise.gumbel_softmax import gumbel_softmax
from chainer_compat.functions.noise.simplified_dropconnect import simplified_dropconnect
from chainer_compat.functions.noise.zoneout import zoneout
from chainer_compat.functions.normalization.batch_normalization import (
    batch_normalization,
    fixed_batch_normalization,
)
from chainer_compat.functions.normalization.batch_renormalization import (
    batch_renormalization,
    fixed_batch_renormalization,
)
from chainer_compat.functions.normalization.decorrelated_batch_normalization import (
    decorrelated_batch_normalization,
    fixed_decorrelated_batch_normalization,
)
from chainer_compat.functions.normalization.group_normalization import group_normalization
from chainer_compat.functions.normalization.l2_normalization import NormalizeL2, normalize
from chainer_compat.functions.normalization.layer_normalization import (
    LayerNormalization,
    layer_normalization,
)
from chainer_compat.functions.normalization.local_response_normalization import (
    LocalResponseNormalization,
    local_response_normalization,
)
from chainer_compat.functions.pooling.average_pooling_2d import average_pooling_2d
from chainer_compat.functions.pooling.average_pooling_nd import (
    average_pooling_1d,
    average_pooling_3d,
    average_pooling_nd,
)
from chainer_compat.functions.pooling.max_pooling_2d import max_pooling_2d
from chainer_compat.functions.pooling.max_pooling_nd import (
    max_pooling_1d,
    max_pooling_3d,
    max_pooling_nd,
)
from chainer_compat.functions.pooling.roi_average_align_2d import roi_average_align_2d
from chainer_compat.functions.pooling.roi_average_pooling_2d import roi_average_pooling_2d
from chainer_compat.functions.pooling.roi_max_align_2d import roi_max_align_2d
from chainer_compat.functions.pooling.roi_max_pooling_2d import roi_max_pooling_2d
from chainer_compat.functions.pooling.roi_pooling_2d import roi_pooling_2d
from chainer_compat.functions.pooling.spatial_pyramid_pooling_2d import spatial_pyramid_pooling_2d
from chainer_compat.functions.pooling.unpooling_2d import unpooling_2d
from chainer_compat.functions.pooling.unpooling_nd import unpooling_1d, unpooling_3d, unpooling_nd
from chainer_compat.functions.pooling.upsampling_2d import upsampling_2d
from chainer_compat.functions.rnn.lstm import lstm
from chainer_compat.functions.rnn.n_step_gru import n_step_bigru, n_step_gru
from chainer_compat.functions.rnn.n_step_lstm import n_step_bilstm, n_step_lstm
from chainer_compat.functions.rnn.n_step_rnn import n_step_birnn, n_step_rnn
from chainer_compat.functions.rnn.slstm import slstm
from chainer_compat.functions.rnn.tree_lstm import tree_lstm
from chainer_compat.functions.util.forget import forget

mean = average  # compat: Chainer's F.mean is average

__all__ = [
    "AbsoluteError", "Accuracy", "Arccos", "Arcsin", "Arctan", "Arctan2", "ArgMax", "ArgMin",
    "BatchMatMul", "BilinearFunction", "BinaryAccuracy", "Broadcast", "BroadcastTo", "CReLU",
    "Cast", "Clip", "ClippedReLU", "Concat", "Contrastive", "Copy", "Cos", "Cosh", "Cumsum",
    "Diagonal", "Dropout", "Dstack", "ELU", "EmbedIDFunction", "Exp", "ExpandDims", "Expm1",
    "Flatten", "Flip", "FlipLR", "FlipUD", "Fmod", "Gaussian", "GetItem", "HardSigmoid", "Hinge",
    "Hstack", "HuberLoss", "Identity", "IndexSelectorBase", "LayerNormalization", "LeakyReLU",
    "LinearFunction", "LinearInterpolate", "LocalResponseNormalization", "Log", "Log10", "Log1p",
    "Log2", "LogSoftmax", "LogSumExp", "MatMul", "Max", "Maximum", "Mean", "MeanAbsoluteError",
    "MeanSquaredError", "Min", "Minimum", "Moveaxis", "NormalizeL2", "PReLUFunction", "Pad",
    "Permutate", "Prod", "R2_score", "ReLU", "Repeat", "Reshape", "Rollaxis", "RsqrtGPU",
    "ScatterAdd", "SelectItem", "SelectorBase", "Separate", "Sigmoid", "SigmoidCrossEntropy",
    "Sin", "Sinh", "Softmax", "SoftmaxCrossEntropy", "Softplus", "SplitAxis", "Sqrt", "Square",
    "SquaredError", "Squeeze", "Stack", "Sum", "SumTo", "Swapaxes", "Swish", "Tan", "Tanh",
    "TensorDot", "Tile", "Transpose", "Triplet", "Vstack", "Where",
    "absolute", "absolute_error", "accuracy", "add", "arccos", "arcsin", "arctan", "arctan2",
    "arctanh", "argmax", "argmax_crf1d", "argmin", "as_strided", "average", "average_pooling_1d",
    "average_pooling_2d", "average_pooling_3d", "average_pooling_nd", "batch_det", "batch_inv",
    "batch_l2_norm_squared", "batch_matmul", "batch_normalization", "batch_renormalization",
    "bernoulli_nll", "bias", "bilinear", "binary_accuracy", "black_out", "broadcast",
    "broadcast_to", "cast", "ceil", "cholesky", "classification_summary", "clip", "clipped_relu",
    "concat",
    "connectionist_temporal_classification", "contrastive", "convolution_1d", "convolution_2d",
    "convolution_3d", "convolution_nd", "copy", "cos", "cosh", "crelu", "crf1d",
    "cross_covariance", "cumprod", "cumsum", "deconvolution_1d", "deconvolution_2d",
    "deconvolution_3d", "deconvolution_nd", "decorrelated_batch_normalization", "decov",
    "deformable_convolution_2d_sampler", "depth2space", "depthwise_convolution_2d", "det",
    "diagonal", "digamma", "dilated_convolution_2d", "discriminative_margin_based_clustering_loss",
    "dropout", "dstack", "einsum", "elu", "embed_id", "erf", "erfc", "erfcinv", "erfcx", "erfinv",
    "exp", "expand_dims", "expm1", "f1_score", "fft", "fix", "fixed_batch_normalization",
    "fixed_batch_renormalization", "fixed_decorrelated_batch_normalization", "flatten", "flip",
    "fliplr", "flipud", "floor", "fmod", "forget", "gaussian", "gaussian_kl_divergence",
    "gaussian_nll", "get_item", "group_normalization", "gumbel_softmax", "hard_sigmoid", "hinge",
    "hstack", "huber_loss", "identity", "ifft", "im2col", "inv", "layer_normalization",
    "leaky_relu", "lgamma", "linear", "linear_interpolate", "local_convolution_2d",
    "local_response_normalization", "log", "log10", "log1p", "log2", "log_ndtr", "log_softmax",
    "logsumexp", "lstm", "matmul", "max", "max_pooling_1d", "max_pooling_2d", "max_pooling_3d",
    "max_pooling_nd", "maximum", "maxout", "mean", "mean_absolute_error", "mean_squared_error",
    "min", "minimum", "moveaxis", "n_step_bigru", "n_step_bilstm", "n_step_birnn", "n_step_gru",
    "n_step_lstm", "n_step_rnn", "ndtr", "ndtri", "negative_sampling", "normalize", "pad",
    "pad_sequence", "permutate", "polygamma", "precision", "prelu", "prod", "r2_score", "recall",
    "relu", "relu6", "repeat", "reshape", "resize_images", "roi_average_align_2d",
    "roi_average_pooling_2d", "roi_max_align_2d", "roi_max_pooling_2d", "roi_pooling_2d",
    "rollaxis", "rrelu", "rsqrt", "scale", "scatter_add", "select_item", "selu", "separate",
    "shift", "sigmoid", "sigmoid_cross_entropy", "sign", "simplified_dropconnect", "sin", "sinh",
    "slstm", "softmax", "softmax_cross_entropy", "softplus", "space2depth", "sparse_matmul",
    "spatial_pyramid_pooling_2d", "spatial_transformer_grid", "spatial_transformer_sampler",
    "split_axis", "sqrt", "square", "squared_difference", "squared_error", "squeeze", "stack",
    "sum", "sum_to", "swapaxes", "swish", "tan", "tanh", "tensordot", "tile", "transpose",
    "transpose_sequence", "tree_lstm", "triplet", "unpooling_1d", "unpooling_2d", "unpooling_3d",
    "unpooling_nd", "upsampling_2d", "vstack", "where", "zeta", "zoneout",
]
