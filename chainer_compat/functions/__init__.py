"""``chainer_compat.functions`` (``F``): the differentiable functions, at Chainer's module paths.

Each function lives in the module Chainer has it in (``functions/<group>/<module>.py``), so legacy
code importing classes from there finds them; this module re-exports the public names, as
Chainer's ``chainer.functions`` does. ``chainer_compat._surface`` lists Chainer's names that are
not implemented yet.
"""

from chainer_compat.functions.activation.clipped_relu import clipped_relu, relu6, ClippedReLU
from chainer_compat.functions.activation.crelu import crelu, CReLU
from chainer_compat.functions.activation.elu import elu, ELU
from chainer_compat.functions.activation.hard_sigmoid import hard_sigmoid, HardSigmoid
from chainer_compat.functions.activation.leaky_relu import leaky_relu, LeakyReLU
from chainer_compat.functions.activation.log_softmax import log_softmax, LogSoftmax
from chainer_compat.functions.activation.maxout import maxout
from chainer_compat.functions.activation.prelu import prelu, PReLUFunction
from chainer_compat.functions.activation.relu import relu, ReLU
from chainer_compat.functions.activation.selu import selu
from chainer_compat.functions.activation.sigmoid import sigmoid, Sigmoid
from chainer_compat.functions.activation.softmax import softmax, Softmax
from chainer_compat.functions.activation.softplus import softplus, Softplus
from chainer_compat.functions.activation.swish import swish, Swish
from chainer_compat.functions.activation.tanh import tanh, Tanh
from chainer_compat.functions.array.broadcast import (
    broadcast, broadcast_to, Broadcast, BroadcastTo,
)
from chainer_compat.functions.array.cast import cast, Cast
from chainer_compat.functions.array.concat import concat, Concat
from chainer_compat.functions.array.copy import copy, Copy
from chainer_compat.functions.array.diagonal import diagonal, Diagonal
from chainer_compat.functions.array.dstack import dstack, Dstack
from chainer_compat.functions.array.expand_dims import expand_dims, ExpandDims
from chainer_compat.functions.array.flatten import flatten, Flatten
from chainer_compat.functions.array.flip import flip, Flip
from chainer_compat.functions.array.fliplr import fliplr, FlipLR
from chainer_compat.functions.array.flipud import flipud, FlipUD
from chainer_compat.functions.array.get_item import get_item, GetItem
from chainer_compat.functions.array.hstack import hstack, Hstack
from chainer_compat.functions.array.moveaxis import moveaxis, Moveaxis
from chainer_compat.functions.array.pad import pad, Pad
from chainer_compat.functions.array.permutate import permutate, Permutate
from chainer_compat.functions.array.repeat import repeat, Repeat
from chainer_compat.functions.array.reshape import reshape, Reshape
from chainer_compat.functions.array.rollaxis import rollaxis, Rollaxis
from chainer_compat.functions.array.scatter_add import scatter_add, ScatterAdd
from chainer_compat.functions.array.select_item import select_item, SelectItem
from chainer_compat.functions.array.separate import separate, Separate
from chainer_compat.functions.array.split_axis import split_axis, SplitAxis
from chainer_compat.functions.array.squeeze import squeeze, Squeeze
from chainer_compat.functions.array.stack import stack, Stack
from chainer_compat.functions.array.swapaxes import swapaxes, Swapaxes
from chainer_compat.functions.array.tile import tile, Tile
from chainer_compat.functions.array.transpose import transpose, Transpose
from chainer_compat.functions.array.vstack import vstack, Vstack
from chainer_compat.functions.array.where import where, Where
from chainer_compat.functions.connection.bilinear import bilinear, BilinearFunction
from chainer_compat.functions.connection.embed_id import embed_id, EmbedIDFunction
from chainer_compat.functions.connection.linear import linear, LinearFunction
from chainer_compat.functions.evaluation.accuracy import accuracy, Accuracy
from chainer_compat.functions.evaluation.binary_accuracy import binary_accuracy, BinaryAccuracy
from chainer_compat.functions.evaluation.r2_score import r2_score, R2_score
from chainer_compat.functions.loss.absolute_error import absolute_error, AbsoluteError
from chainer_compat.functions.loss.contrastive import contrastive, Contrastive
from chainer_compat.functions.loss.hinge import hinge, Hinge
from chainer_compat.functions.loss.huber_loss import huber_loss, HuberLoss
from chainer_compat.functions.loss.mean_absolute_error import (
    mean_absolute_error, MeanAbsoluteError,
)
from chainer_compat.functions.loss.mean_squared_error import mean_squared_error, MeanSquaredError
from chainer_compat.functions.loss.sigmoid_cross_entropy import (
    sigmoid_cross_entropy, SigmoidCrossEntropy,
)
from chainer_compat.functions.loss.softmax_cross_entropy import (
    softmax_cross_entropy, SoftmaxCrossEntropy,
)
from chainer_compat.functions.loss.squared_error import squared_error, SquaredError
from chainer_compat.functions.loss.triplet import triplet, Triplet
from chainer_compat.functions.loss.vae import bernoulli_nll, gaussian_kl_divergence, gaussian_nll
from chainer_compat.functions.math.average import average, Mean

mean = average  # compat: Chainer's F.mean is average

from chainer_compat.functions.math.basic_math import absolute, add
from chainer_compat.functions.math.bias import bias
from chainer_compat.functions.math.ceil import ceil
from chainer_compat.functions.math.clip import clip, Clip
from chainer_compat.functions.math.cumsum import cumsum, Cumsum
from chainer_compat.functions.math.exponential import exp, log, log10, log2, Exp, Log, Log10, Log2
from chainer_compat.functions.math.exponential_m1 import expm1, Expm1
from chainer_compat.functions.math.floor import floor
from chainer_compat.functions.math.fmod import fmod, Fmod
from chainer_compat.functions.math.hyperbolic import cosh, sinh, Cosh, Sinh
from chainer_compat.functions.math.identity import identity, Identity
from chainer_compat.functions.math.linear_interpolate import linear_interpolate, LinearInterpolate
from chainer_compat.functions.math.logarithm_1p import log1p, Log1p
from chainer_compat.functions.math.logsumexp import logsumexp, LogSumExp
from chainer_compat.functions.math.matmul import batch_matmul, matmul, BatchMatMul, MatMul
from chainer_compat.functions.math.maximum import maximum, Maximum
from chainer_compat.functions.math.minimum import minimum, Minimum
from chainer_compat.functions.math.minmax import (
    argmax, argmin, max, min, ArgMax, ArgMin, IndexSelectorBase, Max, Min, SelectorBase,
)
from chainer_compat.functions.math.prod import prod, Prod
from chainer_compat.functions.math.scale import scale
from chainer_compat.functions.math.sign import sign
from chainer_compat.functions.math.sqrt import rsqrt, sqrt, RsqrtGPU, Sqrt
from chainer_compat.functions.math.square import square, Square
from chainer_compat.functions.math.sum import sum, sum_to, Sum, SumTo
from chainer_compat.functions.math.tensordot import tensordot, TensorDot
from chainer_compat.functions.math.trigonometric import (
    arccos, arcsin, arctan, arctan2, cos, sin, tan, Arccos, Arcsin, Arctan, Arctan2, Cos, Sin,
    Tan,
)
from chainer_compat.functions.noise.dropout import dropout, Dropout
from chainer_compat.functions.noise.gaussian import gaussian, Gaussian
from chainer_compat.functions.noise.gumbel_softmax import gumbel_softmax
from chainer_compat.functions.normalization.l2_normalization import normalize, NormalizeL2
from chainer_compat.functions.normalization.layer_normalization import (
    layer_normalization, LayerNormalization,
)
from chainer_compat.functions.normalization.local_response_normalization import (
    local_response_normalization, LocalResponseNormalization,
)

__all__ = [
    "AbsoluteError", "Accuracy", "Arccos", "Arcsin", "Arctan", "Arctan2", "ArgMax", "ArgMin",
    "BatchMatMul", "BilinearFunction", "BinaryAccuracy", "Broadcast", "BroadcastTo", "CReLU",
    "Cast", "Clip", "ClippedReLU", "Concat", "Contrastive", "Copy", "Cos", "Cosh", "Cumsum",
    "Diagonal", "Dropout", "Dstack", "ELU", "EmbedIDFunction", "Exp", "ExpandDims", "Expm1",
    "Flatten", "Flip", "FlipLR", "FlipUD", "Fmod", "Gaussian", "GetItem", "HardSigmoid",
    "Hinge", "Hstack", "HuberLoss", "Identity", "IndexSelectorBase", "LayerNormalization",
    "LeakyReLU", "LinearFunction", "LinearInterpolate", "LocalResponseNormalization", "Log",
    "Log10", "Log1p", "Log2", "LogSoftmax", "LogSumExp", "MatMul", "Max", "Maximum", "Mean",
    "MeanAbsoluteError", "MeanSquaredError", "Min", "Minimum", "Moveaxis", "NormalizeL2",
    "PReLUFunction", "Pad", "Permutate", "Prod", "R2_score", "ReLU", "Repeat", "Reshape",
    "Rollaxis", "RsqrtGPU", "ScatterAdd", "SelectItem", "SelectorBase", "Separate", "Sigmoid",
    "SigmoidCrossEntropy", "Sin", "Sinh", "Softmax", "SoftmaxCrossEntropy", "Softplus",
    "SplitAxis", "Sqrt", "Square", "SquaredError", "Squeeze", "Stack", "Sum", "SumTo",
    "Swapaxes", "Swish", "Tan", "Tanh", "TensorDot", "Tile", "Transpose", "Triplet", "Vstack",
    "Where", "absolute", "absolute_error", "accuracy", "add", "arccos", "arcsin", "arctan",
    "arctan2", "argmax", "argmin", "average", "batch_matmul", "bernoulli_nll", "bias",
    "bilinear", "binary_accuracy", "broadcast", "broadcast_to", "cast", "ceil", "clip",
    "clipped_relu", "concat", "contrastive", "copy", "cos", "cosh", "crelu", "cumsum",
    "diagonal", "dropout", "dstack", "elu", "embed_id", "exp", "expand_dims", "expm1",
    "flatten", "flip", "fliplr", "flipud", "floor", "fmod", "gaussian",
    "gaussian_kl_divergence", "gaussian_nll", "get_item", "gumbel_softmax", "hard_sigmoid",
    "hinge", "hstack", "huber_loss", "identity", "layer_normalization", "leaky_relu", "linear",
    "linear_interpolate", "local_response_normalization", "log", "log10", "log1p", "log2",
    "log_softmax", "logsumexp", "matmul", "max", "maximum", "maxout", "mean", "mean_absolute_error",
    "mean_squared_error", "min", "minimum", "moveaxis", "normalize", "pad", "permutate",
    "prelu", "prod", "r2_score", "relu", "relu6", "repeat", "reshape", "rollaxis", "rsqrt",
    "scale", "scatter_add", "select_item", "selu", "separate", "sigmoid",
    "sigmoid_cross_entropy", "sign", "sin", "sinh", "softmax", "softmax_cross_entropy",
    "softplus", "split_axis", "sqrt", "square", "squared_error", "squeeze", "stack", "sum",
    "sum_to", "swapaxes", "swish", "tan", "tanh", "tensordot", "tile", "transpose", "triplet",
    "vstack", "where",
]
