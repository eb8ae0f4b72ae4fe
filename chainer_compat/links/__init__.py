"""``chainer.links``: parameterized layers (``Link``s) built on ``chainer.functions``.

Layer 8: imports links, functions, initializers and the Link base only.
"""

from chainer_compat.links.activation.maxout import Maxout
from chainer_compat.links.activation.prelu import PReLU
from chainer_compat.links.activation.simplified_dropconnect import SimplifiedDropconnect
from chainer_compat.links.activation.swish import Swish
from chainer_compat.links.connection.bias import Bias
from chainer_compat.links.connection.bilinear import Bilinear
from chainer_compat.links.connection.convolution_2d import Convolution2D
from chainer_compat.links.connection.convolution_nd import (
    Convolution1D,
    Convolution3D,
    ConvolutionND,
)
from chainer_compat.links.connection.deconvolution_2d import Deconvolution2D
from chainer_compat.links.connection.deconvolution_nd import (
    Deconvolution1D,
    Deconvolution3D,
    DeconvolutionND,
)
from chainer_compat.links.connection.deformable_convolution_2d import DeformableConvolution2D
from chainer_compat.links.connection.depthwise_convolution_2d import DepthwiseConvolution2D
from chainer_compat.links.connection.dilated_convolution_2d import DilatedConvolution2D
from chainer_compat.links.connection.embed_id import EmbedID
from chainer_compat.links.connection.highway import Highway
from chainer_compat.links.connection.inception import Inception
from chainer_compat.links.connection.inceptionbn import InceptionBN
from chainer_compat.links.connection.linear import Linear
from chainer_compat.links.connection.local_convolution_2d import LocalConvolution2D
from chainer_compat.links.connection.mlp_convolution_2d import MLPConvolution2D
from chainer_compat.links.connection.parameter import Parameter
from chainer_compat.links.connection.scale import Scale
from chainer_compat.links.loss.black_out import BlackOut
from chainer_compat.links.loss.crf1d import CRF1d
from chainer_compat.links.loss.hierarchical_softmax import BinaryHierarchicalSoftmax
from chainer_compat.links.loss.negative_sampling import NegativeSampling
from chainer_compat.links.model.classifier import Classifier
from chainer_compat.links.model.vision.googlenet import GoogLeNet
from chainer_compat.links.model.vision.resnet import (
    ResNet50Layers,
    ResNet101Layers,
    ResNet152Layers,
)
from chainer_compat.links.model.vision.vgg import VGG16Layers, VGG19Layers
from chainer_compat.links.normalization.batch_normalization import BatchNormalization
from chainer_compat.links.normalization.batch_renormalization import BatchRenormalization
from chainer_compat.links.normalization.decorrelated_batch_normalization import (
    DecorrelatedBatchNormalization,
)
from chainer_compat.links.normalization.group_normalization import GroupNormalization
from chainer_compat.links.normalization.layer_normalization import LayerNormalization
from chainer_compat.links.rnn.gru import GRU, StatefulGRU, StatelessGRU
from chainer_compat.links.rnn.lstm import LSTM, StatelessLSTM
from chainer_compat.links.rnn.mgu import StatefulMGU, StatelessMGU
from chainer_compat.links.rnn.n_step_gru import NStepBiGRU, NStepGRU
from chainer_compat.links.rnn.n_step_lstm import NStepBiLSTM, NStepLSTM
from chainer_compat.links.rnn.n_step_rnn import (
    NStepBiRNNReLU,
    NStepBiRNNTanh,
    NStepRNNReLU,
    NStepRNNTanh,
)
from chainer_compat.links.rnn.peephole import StatefulPeepholeLSTM
from chainer_compat.links.rnn.tree_lstm import ChildSumTreeLSTM, NaryTreeLSTM
from chainer_compat.links.rnn.zoneoutlstm import StatefulZoneoutLSTM

__all__ = [
    "BatchNormalization", "BatchRenormalization", "Bias", "Bilinear", "BinaryHierarchicalSoftmax",
    "BlackOut", "CRF1d", "ChildSumTreeLSTM", "Classifier", "Convolution1D", "Convolution2D",
    "Convolution3D", "ConvolutionND", "Deconvolution1D", "Deconvolution2D", "Deconvolution3D",
    "DeconvolutionND", "DecorrelatedBatchNormalization", "DeformableConvolution2D",
    "DepthwiseConvolution2D", "DilatedConvolution2D", "EmbedID", "GRU", "GoogLeNet",
    "GroupNormalization", "Highway", "Inception", "InceptionBN", "LSTM", "LayerNormalization",
    "Linear", "LocalConvolution2D", "MLPConvolution2D", "Maxout", "NStepBiGRU", "NStepBiLSTM",
    "NStepBiRNNReLU", "NStepBiRNNTanh", "NStepGRU", "NStepLSTM", "NStepRNNReLU", "NStepRNNTanh",
    "NaryTreeLSTM", "NegativeSampling", "PReLU", "Parameter", "ResNet101Layers", "ResNet152Layers",
    "ResNet50Layers", "Scale", "SimplifiedDropconnect", "StatefulGRU", "StatefulMGU",
    "StatefulPeepholeLSTM", "StatefulZoneoutLSTM", "StatelessGRU", "StatelessLSTM", "StatelessMGU",
    "Swish", "VGG16Layers", "VGG19Layers",
]
