"""``InceptionBN``: the inception module with batch normalization (Inception v2), which may
also reduce the spatial size.

Layer 8: imports configuration, functions, link, links.connection.convolution_2d and
links.normalization.batch_normalization.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import link, variable
from chainer_compat.configuration import get_dtype
from chainer_compat.functions.activation.relu import relu
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.pooling.average_pooling_2d import average_pooling_2d
from chainer_compat.functions.pooling.max_pooling_2d import max_pooling_2d
from chainer_compat.links.connection.convolution_2d import Convolution2D
from chainer_compat.links.normalization.batch_normalization import BatchNormalization
from chainer_compat.utils._assertions import AssertValueError

__all__ = ["InceptionBN"]


class InceptionBNError(AssertValueError):
    """``InceptionBN`` got a 1x1 path with a stride or without a pooling projection.

    Compat: Chainer checks these with bare ``assert`` statements; deriving from
    ``AssertionError`` too keeps code that caught it working.
    """


class InceptionBN(link.Chain):
    """The inception module with batch normalization after every convolution.

    Paths, each convolution followed by its BatchNormalization (``<name>n``) and ReLU:

    * when ``out1 > 0``: ``conv1`` (1x1);
    * ``proj3`` (1x1), ``conv3`` (3x3, stride ``stride``);
    * ``proj33`` (1x1), ``conv33a`` (3x3), ``conv33b`` (3x3, stride ``stride``);
    * 3x3 max or average pooling (stride ``stride``, pad 1), then when ``proj_pool`` is given
      ``poolp`` (1x1).

    The convolutions have no bias. The output concatenates the paths along channels.

    Args:
        in_channels: Number of input channels, or None to infer it on the first call.
        out1: Output channels of the 1x1 path; 0 leaves the path out.
        proj3: Channels of the projection before the 3x3 convolution.
        out3: Output channels of the 3x3 path.
        proj33: Channels of the projection before the two 3x3 convolutions.
        out33: Output channels of the double-3x3 path.
        pooltype: ``'max'`` or ``'avg'``.
        proj_pool: Output channels of the pooling path's projection; None for no projection.
        stride: Stride of the last convolution of each path and of the pooling.
        conv_init: Initializer of every filter; None for ``LeCunNormal()``.
        dtype: Dtype of the batch-normalization parameters; None for the configured default.

    Raises:
        NotImplementedError: If ``pooltype`` is neither ``'max'`` nor ``'avg'`` (as Chainer).
        ValueError: If ``out1 > 0`` with ``stride != 1`` or without ``proj_pool`` (also an
            ``AssertionError``, as Chainer's).

    See: `Batch Normalization: Accelerating Deep Network Training by Reducing Internal
    Covariate Shift <https://arxiv.org/abs/1502.03167>`_.
    """

    proj3: Convolution2D
    conv3: Convolution2D
    proj33: Convolution2D
    conv33a: Convolution2D
    conv33b: Convolution2D
    proj3n: BatchNormalization
    conv3n: BatchNormalization
    proj33n: BatchNormalization
    conv33an: BatchNormalization
    conv33bn: BatchNormalization

    def __init__(self, in_channels: int | None, out1: int, proj3: int, out3: int,
                 proj33: int, out33: int, pooltype: str, proj_pool: int | None = None,
                 stride: int = 1, conv_init: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.out1 = out1
        self.proj_pool = proj_pool
        self.stride = stride
        self.pooltype = pooltype
        if pooltype not in ("max", "avg"):
            # compat: Chainer raises NotImplementedError for another pooling type.
            raise NotImplementedError(
                f"pooltype must be 'max' or 'avg', got {pooltype!r}")
        if out1 > 0 and stride != 1:
            raise InceptionBNError(
                f"stride must be 1 when out1 > 0, got stride={stride}; set out1=0 to reduce "
                "the spatial size")
        if out1 > 0 and proj_pool is None:
            raise InceptionBNError(
                "proj_pool must be given when out1 > 0, got None")
        dtype = get_dtype(dtype)
        with self.init_scope():
            self.proj3 = Convolution2D(in_channels, proj3, 1, nobias=True, initialW=conv_init)
            self.conv3 = Convolution2D(proj3, out3, 3, pad=1, stride=stride, nobias=True,
                                       initialW=conv_init)
            self.proj33 = Convolution2D(in_channels, proj33, 1, nobias=True,
                                        initialW=conv_init)
            self.conv33a = Convolution2D(proj33, out33, 3, pad=1, nobias=True,
                                         initialW=conv_init)
            self.conv33b = Convolution2D(out33, out33, 3, pad=1, stride=stride, nobias=True,
                                         initialW=conv_init)
            self.proj3n = BatchNormalization(proj3, dtype=dtype)
            self.conv3n = BatchNormalization(out3, dtype=dtype)
            self.proj33n = BatchNormalization(proj33, dtype=dtype)
            self.conv33an = BatchNormalization(out33, dtype=dtype)
            self.conv33bn = BatchNormalization(out33, dtype=dtype)
            if out1 > 0:
                self.conv1 = Convolution2D(in_channels, out1, 1, stride=stride, nobias=True,
                                           initialW=conv_init)
                self.conv1n = BatchNormalization(out1, dtype=dtype)
            if proj_pool is not None:
                self.poolp = Convolution2D(in_channels, proj_pool, 1, nobias=True,
                                           initialW=conv_init)
                self.poolpn = BatchNormalization(proj_pool, dtype=dtype)

    def forward(self, x: Any) -> variable.Variable:
        """Applies the paths and concatenates them along channels.

        Args:
            x: Input images ``(B, in_channels, H, W)``.

        Returns:
            The concatenated outputs of the paths.
        """
        paths = []
        if self.out1 > 0:
            paths.append(relu(self.conv1n(self.conv1(x))))
        h3 = relu(self.proj3n(self.proj3(x)))
        paths.append(relu(self.conv3n(self.conv3(h3))))
        h33 = relu(self.proj33n(self.proj33(x)))
        h33 = relu(self.conv33an(self.conv33a(h33)))
        paths.append(relu(self.conv33bn(self.conv33b(h33))))
        if self.pooltype == "max":
            pool = max_pooling_2d(x, 3, stride=self.stride, pad=1, cover_all=False)
        else:
            pool = average_pooling_2d(x, 3, stride=self.stride, pad=1)
        if self.proj_pool is not None:
            pool = relu(self.poolpn(self.poolp(pool)))
        paths.append(pool)
        return concat(paths, axis=1)
