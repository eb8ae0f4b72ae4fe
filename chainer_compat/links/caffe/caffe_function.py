"""``CaffeFunction``: reads a binary ``.caffemodel`` and runs the Caffe net it describes.

Layer 8: imports configuration, functions, link, links, utils and variable; protobuf only when
a model is read (see NOTE [caffe schema] in ``_proto``).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy

from chainer_compat import configuration, functions, link, variable
from chainer_compat.links.caffe import _proto
from chainer_compat.links.connection.convolution_2d import Convolution2D
from chainer_compat.links.connection.deconvolution_2d import Deconvolution2D
from chainer_compat.links.connection.linear import Linear
from chainer_compat.links.connection.scale import Scale
from chainer_compat.links.normalization.batch_normalization import BatchNormalization
from chainer_compat.utils import argument

__all__ = ["CaffeFunction"]

# Layer type (the string of the current format) -> (V1 enum name or None, setup method name).
_SETUPS: dict[str, tuple[str | None, str]] = {
    "BatchNorm": (None, "_setup_batchnorm"),
    "Concat": ("CONCAT", "_setup_concat"),
    "Convolution": ("CONVOLUTION", "_setup_convolution"),
    "Data": ("DATA", "_setup_data"),
    "Deconvolution": ("DECONVOLUTION", "_setup_deconvolution"),
    "Dropout": ("DROPOUT", "_setup_dropout"),
    "Eltwise": ("ELTWISE", "_setup_eltwise"),
    "InnerProduct": ("INNER_PRODUCT", "_setup_inner_product"),
    "LRN": ("LRN", "_setup_lrn"),
    "Pooling": ("POOLING", "_setup_pooling"),
    "ReLU": ("RELU", "_setup_relu"),
    "Reshape": (None, "_setup_reshape"),
    "Scale": (None, "_setup_scale"),
    "Sigmoid": ("SIGMOID", "_setup_sigmoid"),
    "Slice": ("SLICE", "_setup_slice"),
    "Softmax": ("SOFTMAX", "_setup_softmax"),
    "SoftmaxWithLoss": ("SOFTMAX_LOSS", "_setup_softmax_with_loss"),
    "Split": ("SPLIT", "_setup_split"),
}

# The Engine values of Caffe's layer parameters; DEFAULT (0) leaves the configuration alone.
_ENGINE_CUDNN = {1: "never", 2: "always"}


class CaffeFunction(link.Chain):
    """A Chain that runs a Caffe network read from its binary protocol-buffer model file.

    Each supported layer becomes a child link (layers with parameters, named after the Caffe
    layer) or a function; calling the chain interprets the layers in file order on the given
    blobs, so the result is an ordinary graph that backpropagates. Layer types it cannot
    emulate are skipped with a warning, and Data layers silently (the caller gives the blobs);
    a layer whose bottom blobs are not all available when called is skipped, and a layer
    without top blobs computes nothing anyone can read.

    Reading needs the ``protobuf`` package (``pip install chainer_compat[caffe]``).

    Args:
        model_path: Path of the ``.caffemodel`` file (the binary NetParameter, either the
            current ``layer`` format or the older V1 ``layers`` format).

    Attributes:
        forwards: Layer name -> the callable that computes the layer's top blobs.
        layers: ``(layer name, bottom blob names, top blob names)`` in execution order.
        split_map: Top blob name of each Split layer -> the blob it copies.
        variables: After a call, every blob name -> its Variable.

    Raises:
        ImportError: If protobuf is not installed.
        RuntimeError: For a layer configuration Chainer cannot emulate (within-channel LRN,
            stochastic pooling, InnerProduct or Softmax along an axis other than 1).

    Compat:
        Dilated convolutions keep their dilation (Chainer ignored it); Softmax and Sigmoid
        layers asking for the CAFFE or CUDNN engine set ``use_cudnn`` to ``'never'`` or
        ``'always'`` (Chainer set False or True, which its GPU code rejects); a Reshape dim of 0
        copies the input's dim as in Caffe; a BatchNorm scale factor of 0 reads as Caffe does.
    """

    def __init__(self, model_path: str) -> None:
        super().__init__()
        caffe_pb = _proto.load()
        net = caffe_pb.NetParameter()
        with open(model_path, "rb") as model_file:
            net.MergeFromString(model_file.read())

        self.forwards: dict[str, Callable[..., Any]] = {}
        self.split_map: dict[str, str] = {}
        self.layers: list[tuple[str, list[str], list[str]]] = []

        if net.layer:
            for layer in net.layer:
                setup = _SETUPS.get(layer.type)
                if setup is None:
                    # compat: Chainer's wording, which users filter warnings on.
                    warnings.warn(
                        f'Skip the layer "{layer.name}", since CaffeFunction does not support '
                        f"{layer.type} layer", stacklevel=2)
                    continue
                getattr(self, setup[1])(layer)
        else:
            v1_setups = {getattr(caffe_pb.V1LayerParameter, old_name): method
                         for old_name, method in _SETUPS.values() if old_name is not None}
            for layer in net.layers:
                method = v1_setups.get(layer.type)
                if method is None:
                    warnings.warn(
                        f'Skip the layer "{layer.name}", since CaffeFunction does not '
                        "support it", stacklevel=2)
                    continue
                getattr(self, method)(layer)

    def forward(self, inputs: Mapping[str, Any], outputs: Iterable[str],
                disable: Iterable[str] = (), **kwargs: Any) -> tuple[Any, ...]:
        """Runs the layers whose bottom blobs are known and returns the requested blobs.

        Args:
            inputs: Blob name -> Variable (or array) to start from, e.g. ``{'data': x}``.
            outputs: Names of the blobs to return.
            disable: Names of layers to skip.

        Returns:
            The Variables of ``outputs``, in order.

        Raises:
            ValueError: If ``train`` is passed (use ``chainer.using_config('train', ...)``).
            TypeError: For any other keyword argument.
            KeyError: If a requested output blob was never computed.
        """
        if kwargs:
            argument.check_unexpected_kwargs(
                kwargs, train="train argument is not supported anymore. "
                "Use chainer.using_config")
            argument.assert_kwargs_empty(kwargs)

        variables = dict(inputs)
        disabled = set(disable)
        for name, bottom, top in self.layers:
            if name in disabled or name not in self.forwards:
                continue
            if any(blob not in variables for blob in bottom):
                continue
            results = self.forwards[name](*(variables[blob] for blob in bottom))
            if not isinstance(results, (tuple, list)):
                results = (results,)
            for blob, result in zip(top, results):
                variables[blob] = result
        self.variables = variables
        return tuple(variables[blob] for blob in outputs)

    # Layer setups: each registers the layer's callable (and child link) and its blobs.

    def _add_layer(self, layer: Any, forward: Callable[..., Any]) -> None:
        self.forwards[layer.name] = forward
        bottom = [self.split_map.get(blob, blob) for blob in layer.bottom]
        self.layers.append((layer.name, bottom, list(layer.top)))

    def _add_child(self, layer: Any, child: link.Link) -> None:
        with self.init_scope():
            setattr(self, layer.name, child)
        # Looked up by name on each call, so a child replaced later (or a deep copy's) runs.
        self._add_layer(layer, functools.partial(_call_child, self, layer.name))

    def _setup_batchnorm(self, layer: Any) -> None:
        param = layer.batch_norm_param
        blobs = layer.blobs
        mean, var = _blob_array(blobs[0]), _blob_array(blobs[1])
        child = BatchNormalization(
            int(mean.size), decay=param.moving_average_fraction, eps=param.eps,
            use_gamma=False, use_beta=False)
        if len(blobs) >= 3:
            # Caffe stores running sums with their normalizer in a third blob; a zero
            # normalizer means no statistics were gathered, which Caffe reads as zeros.
            factor = float(_blob_array(blobs[2])[0])
            scale = 0.0 if factor == 0 else 1.0 / factor
            mean, var = mean * scale, var * scale
        child.avg_mean[...] = mean.reshape(child.avg_mean.shape)
        child.avg_var[...] = var.reshape(child.avg_var.shape)
        with self.init_scope():
            setattr(self, layer.name, child)
        call = functools.partial(_call_child, self, layer.name, finetune=False)
        if param.use_global_stats:
            call = functools.partial(_with_config, "train", False, call)
        self._add_layer(layer, call)

    def _setup_concat(self, layer: Any) -> None:
        param = layer.concat_param
        axis = param.axis
        # compat: the deprecated concat_dim wins only while axis keeps its default.
        if axis == 1 and param.concat_dim != 1:
            axis = param.concat_dim
        self._add_layer(layer, functools.partial(_concat, axis=axis))

    def _setup_convolution(self, layer: Any) -> None:
        self._add_convolution(layer, Convolution2D, transposed=False)

    def _add_convolution(self, layer: Any, link_class: Any, transposed: bool) -> None:
        """A Convolution or Deconvolution layer as a ``link_class`` child.

        Caffe's weight blob is (out, in / groups, kh, kw) for a convolution and
        (in, out / groups, kh, kw) for a deconvolution; groups become one block-diagonal weight.
        """
        param = layer.convolution_param
        weight_blob = layer.blobs[0]
        groups = param.group
        leading = _blob_num(weight_blob)
        grouped = _blob_channels(weight_blob) * groups
        kernel = _kernel_size(param)
        weight = _grouped_weight(weight_blob, (leading, grouped) + _pair(kernel), groups)
        in_channels, out_channels = (leading, grouped) if transposed else (grouped, leading)
        bias = _blob_array(layer.blobs[1]) if param.bias_term else None
        self._add_child(layer, link_class(
            in_channels, out_channels, kernel, _stride(param), _pad(param),
            nobias=not param.bias_term, initialW=weight, initial_bias=bias,
            dilate=_dilation(param)))

    def _setup_data(self, layer: Any) -> None:
        # Data layers read Caffe's datasets; the caller provides the blobs instead.
        pass

    def _setup_deconvolution(self, layer: Any) -> None:
        self._add_convolution(layer, Deconvolution2D, transposed=True)

    def _setup_dropout(self, layer: Any) -> None:
        self._add_layer(layer, functools.partial(
            functions.dropout, ratio=layer.dropout_param.dropout_ratio))

    def _setup_eltwise(self, layer: Any) -> None:
        param = layer.eltwise_param
        self._add_layer(layer, functools.partial(
            _eltwise, param.operation, tuple(param.coeff) or None))

    def _setup_inner_product(self, layer: Any) -> None:
        param = layer.inner_product_param
        if param.axis != 1:
            raise RuntimeError("Non-default axis in InnerProduct is not supported")
        weight_blob = layer.blobs[0]
        in_size, out_size = _blob_width(weight_blob), _blob_height(weight_blob)
        weight = _blob_array(weight_blob).reshape(out_size, in_size)
        bias = _blob_array(layer.blobs[1]) if param.bias_term else None
        self._add_child(layer, Linear(
            in_size, out_size, nobias=not param.bias_term, initialW=weight,
            initial_bias=bias))

    def _setup_lrn(self, layer: Any) -> None:
        param = layer.lrn_param
        if param.norm_region != param.ACROSS_CHANNELS:
            raise RuntimeError("Within-channel LRN is not supported")
        # Caffe divides alpha by the window size; Chainer's function does not.
        self._add_layer(layer, functools.partial(
            functions.local_response_normalization, n=param.local_size, k=param.k,
            alpha=param.alpha / param.local_size, beta=param.beta))

    def _setup_pooling(self, layer: Any) -> None:
        param = layer.pooling_param
        if param.pool == param.MAX:
            pool: Callable[..., Any] = functions.max_pooling_2d
        elif param.pool == param.AVE:
            pool = functions.average_pooling_2d
        else:
            raise RuntimeError("Stochastic pooling is not supported")
        kernel = _kernel_size(param)
        self._add_layer(layer, functools.partial(
            _pooling, pool, kernel if (kernel or not param.global_pooling) else None,
            stride=_stride(param), pad=_pad(param)))

    def _setup_relu(self, layer: Any) -> None:
        slope = layer.relu_param.negative_slope
        if slope != 0:
            self._add_layer(layer, functools.partial(functions.leaky_relu, slope=slope))
        else:
            self._add_layer(layer, functions.relu)

    def _setup_reshape(self, layer: Any) -> None:
        dims = tuple(int(dim) for dim in layer.reshape_param.shape.dim)
        self._add_layer(layer, functools.partial(_reshape, dims))

    def _setup_scale(self, layer: Any) -> None:
        # Negative axes, num_axes and the fillers are not read, as in Chainer.
        param = layer.scale_param
        blobs = layer.blobs
        if len(layer.bottom) == 1:
            # The scale is a learned parameter, stored in the first blob.
            weight = _blob_array(blobs[0])
            child = Scale(param.axis, weight.shape, param.bias_term)
            child.W.array[...] = weight
            if param.bias_term:
                child.bias.b.array[...] = _blob_array(blobs[1])
        else:
            # The scale is the second bottom blob; only the bias is stored.
            bias = _blob_array(blobs[0]) if param.bias_term else None
            child = Scale(param.axis, bias_term=param.bias_term,
                          bias_shape=None if bias is None else bias.shape)
            if bias is not None:
                child.bias.b.array[...] = bias
        self._add_child(layer, child)

    def _setup_sigmoid(self, layer: Any) -> None:
        self._add_layer(layer, _with_engine(layer.sigmoid_param.engine, functions.sigmoid))

    def _setup_slice(self, layer: Any) -> None:
        param = layer.slice_param
        if param.HasField("axis"):
            axis = param.axis
        elif param.HasField("slice_dim"):
            axis = param.slice_dim
        else:
            axis = 1
        sections: Any = list(param.slice_point) or len(layer.top)
        self._add_layer(layer, functools.partial(
            functions.split_axis, indices_or_sections=sections, axis=axis))

    def _setup_softmax(self, layer: Any) -> None:
        if layer.softmax_param.axis != 1:
            raise RuntimeError("Softmax along non-channel axis is not supported")
        self._add_layer(layer, _with_engine(layer.softmax_param.engine, functions.softmax))

    def _setup_softmax_with_loss(self, layer: Any) -> None:
        if layer.softmax_param.axis != 1:
            raise RuntimeError("Softmax along non-channel axis is not supported")
        self._add_layer(layer, functions.softmax_cross_entropy)

    def _setup_split(self, layer: Any) -> None:
        # A Split copies one blob to several names; later layers read the source directly.
        source = self.split_map.get(layer.bottom[0], layer.bottom[0])
        for top in layer.top:
            self.split_map[top] = source


# The callables the layers run: module-level, so a CaffeFunction stays picklable.

def _call_child(chain: link.Chain, name: str, *inputs: Any, **kwargs: Any) -> Any:
    return chain[name](*inputs, **kwargs)


def _with_config(name: str, value: Any, call: Callable[..., Any], *inputs: Any) -> Any:
    with configuration.using_config(name, value):
        return call(*inputs)


def _with_engine(engine: int, call: Callable[..., Any]) -> Callable[..., Any]:
    if engine in _ENGINE_CUDNN:
        return functools.partial(_with_config, "use_cudnn", _ENGINE_CUDNN[engine], call)
    return call


def _concat(*inputs: Any, axis: int) -> Any:
    return functions.concat(inputs, axis=axis)


def _pooling(pool: Callable[..., Any], kernel: Any, x: Any, stride: Any, pad: Any) -> Any:
    # A global pooling without a kernel size covers the whole feature map of this input.
    return pool(x, x.shape[2:] if kernel is None else kernel, stride=stride, pad=pad)


def _reshape(dims: tuple[int, ...], x: Any) -> Any:
    # A zero copies the input's dim at the same position, as Caffe's Reshape layer does.
    shape = tuple(x.shape[axis] if dim == 0 else dim for axis, dim in enumerate(dims))
    return functions.reshape(x, shape)


def _eltwise(operation: int, coefficients: tuple[float, ...] | None, *arrays: Any) -> Any:
    # Arrays given as inputs become Variables, so the operators build graph nodes.
    inputs = tuple(variable.as_variable(array) for array in arrays)
    if operation == 0:  # PROD
        return (functools.reduce(lambda x, y: x * y, inputs),)
    if operation == 1:  # SUM
        if coefficients is not None:
            if len(coefficients) != len(inputs):
                raise ValueError(
                    f"Eltwise SUM must have one coeff per bottom blob, got {len(coefficients)} "
                    f"coeffs for {len(inputs)} blobs")
            inputs = tuple(x * coefficient for x, coefficient in zip(inputs, coefficients))
        return (functools.reduce(lambda x, y: x + y, inputs),)
    if operation == 2:  # MAX
        return (functools.reduce(functions.maximum, inputs),)
    # compat: Chainer's wording.
    raise ValueError("Invalid EltwiseParameter.EltwiseOp value.")


# Reading the fields of blobs and layer parameters.

def _blob_array(blob: Any) -> numpy.ndarray:
    """The blob's values as float32, shaped by its shape (or its legacy 4-d fields)."""
    values = blob.data if len(blob.data) else blob.double_data
    array = numpy.asarray(values, dtype=numpy.float32)
    if blob.HasField("shape"):
        return array.reshape(tuple(int(dim) for dim in blob.shape.dim))
    return array


def _blob_num(blob: Any) -> int:
    return int(blob.num) if blob.num > 0 else int(blob.shape.dim[0])


def _blob_channels(blob: Any) -> int:
    return int(blob.channels) if blob.channels > 0 else int(blob.shape.dim[1])


def _matrix_dim(blob: Any, legacy: int, axis: int) -> int:
    if legacy > 0:
        return legacy
    dims = blob.shape.dim
    if len(dims) == 2:
        return int(dims[axis])
    if len(dims) == 4:
        return int(dims[axis + 2])
    # compat: Chainer's exception type and wording.
    raise RuntimeError(f"{len(dims)}-dimensional array is not supported")


def _blob_height(blob: Any) -> int:
    return _matrix_dim(blob, int(blob.height), 0)


def _blob_width(blob: Any) -> int:
    return _matrix_dim(blob, int(blob.width), 1)


def _grouped_weight(blob: Any, shape: tuple[int, ...], groups: int) -> numpy.ndarray:
    """The dense weight of a (possibly grouped) convolution blob.

    compat: as in Chainer, a grouped layer becomes one dense convolution whose weight is zero
    outside the diagonal blocks, so its parameter shapes are Chainer's.
    """
    data = _blob_array(blob).ravel()
    outer, inner = shape[0] // groups, shape[1] // groups
    block_shape = (groups, outer, inner) + shape[2:]
    if data.size != int(numpy.prod(block_shape)):
        raise ValueError(
            f"the weight blob must hold {int(numpy.prod(block_shape))} values for shape "
            f"{shape} in {groups} group(s), got {data.size}")
    if groups == 1:
        return data.reshape(shape)
    blocks = data.reshape(block_shape)
    weight = numpy.zeros(shape, dtype=numpy.float32)
    for group in range(groups):
        weight[group * outer:(group + 1) * outer, group * inner:(group + 1) * inner] = \
            blocks[group]
    return weight


def _pair(size: Any) -> tuple[int, int]:
    return (size, size) if isinstance(size, int) else (int(size[0]), int(size[1]))


def _one_or_all(values: Any, default: int) -> Any:
    # Repeated fields of ConvolutionParameter: none, one value for every axis, or one per axis.
    if len(values) == 0:
        return default
    if len(values) == 1:
        return int(values[0])
    return tuple(int(value) for value in values)


def _kernel_size(param: Any) -> Any:
    if param.kernel_h > 0:
        return int(param.kernel_h), int(param.kernel_w)
    if isinstance(param.kernel_size, int):  # PoolingParameter: a single value
        return param.kernel_size
    return _one_or_all(param.kernel_size, 0)


def _stride(param: Any) -> Any:
    if param.stride_h > 0:
        return int(param.stride_h), int(param.stride_w)
    if isinstance(param.stride, int):
        return param.stride
    return _one_or_all(param.stride, 1)


def _pad(param: Any) -> Any:
    if param.pad_h > 0 or param.pad_w > 0:
        return int(param.pad_h), int(param.pad_w)
    if isinstance(param.pad, int):
        return param.pad
    return _one_or_all(param.pad, 0)


def _dilation(param: Any) -> Any:
    return _one_or_all(param.dilation, 1)
