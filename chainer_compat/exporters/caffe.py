"""``export``: traces ``model(*args)`` and writes the graph as a Caffe prototxt and caffemodel.

Layer 8: imports backend, configuration, function_hook, variable and links.caffe's schema;
protobuf is imported only when ``export`` runs.
"""

from __future__ import annotations

import collections
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from chainer_compat import backend, configuration, function_hook, variable
from chainer_compat.links.caffe import _proto

__all__ = ["export"]

_PROTOTXT = "chainer_model.prototxt"
_CAFFEMODEL = "chainer_model.caffemodel"


def export(model: Callable[..., Any], args: Sequence[variable.Variable],
           directory: str | None = None, export_params: bool = True,
           graph_name: str = "Graph") -> None:
    """Exports the graph of ``model(*args)`` in Caffe's format (experimental in Chainer).

    The model runs once in test mode (``train=False``) with backprop forced on, and every
    function between its output(s) and the input becomes a Caffe layer named
    ``<label>-<rank>-<n>``; the input blob is named ``data``. Supported functions:
    ``linear``, ``convolution_2d``, ``deconvolution_2d``, ``max_pooling_2d``,
    ``average_pooling_2d``, ``batch_normalization`` (test mode: a BatchNorm and a Scale layer),
    ``local_response_normalization``, ``relu``, ``leaky_relu``, ``concat``, ``softmax``,
    ``sigmoid``, ``reshape`` and ``+``.

    Args:
        model: The model (usually a Chain) to call with ``*args``.
        args: A list or tuple of exactly one Variable, the network input.
        directory: Where to write ``chainer_model.prototxt`` (the net definition) and
            ``chainer_model.caffemodel`` (definition and parameters); None writes nothing.
        export_params: If False, only the prototxt is written.
        graph_name: The ``name`` of the exported net.

    Raises:
        ImportError: If protobuf is not installed (``pip install chainer_compat[caffe]``).
        TypeError: If ``args`` is not a list or tuple of Variables, or the model does not
            return a Variable or a list or tuple of them.
        NotImplementedError: If ``args`` does not hold exactly one Variable, or the graph has a
            function that cannot be written as a Caffe layer (message ``Cannot convert, ...``).

    Compat:
        Chainer raises a bare Exception for an unsupported function and AssertionError for
        wrong argument types. Non-square kernels, dilation, grouped deconvolutions and softmax
        along another axis are written as Caffe reads them (Chainer swapped or dropped them),
        and batch normalization without gamma or beta exports (Chainer fails).
    """
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"args must be a list or tuple of Variables, got {type(args).__name__}")
    if len(args) != 1:
        raise NotImplementedError(
            f"args must hold exactly one Variable (the net's data blob), got {len(args)}")
    for arg in args:
        if not isinstance(arg, variable.Variable):
            raise TypeError(f"args must hold Variables, got {type(arg).__name__}")
    caffe_pb = _proto.load()

    recorder = _InputRecorder()
    with configuration.force_backprop_mode(), configuration.using_config("train", False):
        with recorder:
            output = model(*args)
    outputs = [output] if isinstance(output, variable.Variable) else output
    if not isinstance(outputs, (tuple, list)) or not all(
            isinstance(out, variable.Variable) for out in outputs):
        raise TypeError(
            f"the model must return a Variable or a list or tuple of Variables, got "
            f"{type(output).__name__}")

    writer = _LayerWriter(caffe_pb, recorder)
    layers = [layer for func in _functions_in_order(outputs) for layer in writer.layers(func)]
    if directory is None:
        return

    definition = caffe_pb.NetParameter(name=graph_name)
    data_layer = definition.layer.add(name="data", type="Input", top=["data"])
    data_layer.input_param.shape.add().dim.extend(int(size) for size in args[0].shape)
    for layer in layers:
        described = definition.layer.add()
        described.CopyFrom(layer)
        # The prototxt holds the structure only; the weights and phase live in the caffemodel.
        del described.blobs[:]
        described.ClearField("phase")
    with open(os.path.join(directory, _PROTOTXT), "w") as prototxt:
        prototxt.write(caffe_pb.text_format.MessageToString(definition))

    if export_params:
        net = caffe_pb.NetParameter(name=graph_name)
        net.layer.extend(layers)
        with open(os.path.join(directory, _CAFFEMODEL), "wb") as caffemodel:
            caffemodel.write(net.SerializeToString())


class _InputRecorder(function_hook.FunctionHook):
    """Keeps the input arrays of every function the traced call runs.

    The graph retains only what backward needs, and temporaries such as the zero ``beta`` of
    a BatchNormalization without ``use_beta`` are gone once the call returns.
    """

    name = "_CaffeExportInputRecorder"

    def __init__(self) -> None:
        # id(function) -> (function, inputs); the function is held so its id stays unique.
        self.inputs: dict[int, tuple[Any, tuple[Any, ...]]] = {}

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self.inputs[id(function)] = (function, tuple(in_data))


def _functions_in_order(outputs: Sequence[variable.Variable]) -> list[Any]:
    """Every function the outputs depend on, inputs before users.

    Sorting by rank is a topological order; among equal ranks, the order of discovery from
    the outputs (inputs left to right) keeps the naming deterministic.
    """
    found: dict[int, tuple[int, int, Any]] = {}
    pending = collections.deque(out.creator for out in outputs if out.creator is not None)
    while pending:
        func = pending.popleft()
        if id(func) in found:
            continue
        found[id(func)] = (func.rank, len(found), func)
        pending.extend(node.creator for node in func.inputs if node.creator is not None)
    return [func for _, _, func in sorted(found.values(), key=lambda entry: entry[:2])]


class _LayerWriter:
    """Turns each function of the graph into its Caffe layer message(s)."""

    def __init__(self, caffe_pb: Any, recorder: _InputRecorder) -> None:
        self.caffe_pb = caffe_pb
        self.recorder = recorder
        # "<label>-<rank>" -> function id -> its 1-based number among functions of that key.
        self.numbers: dict[str, dict[int, int]] = collections.defaultdict(dict)
        self.writers: dict[str, Callable[[Any, Any], list[Any]]] = {
            "LinearFunction": self._linear,
            "Convolution2DFunction": self._convolution,
            "Deconvolution2DFunction": self._convolution,
            "AveragePooling2D": self._pooling,
            "MaxPoolingND": self._pooling,
            "LocalResponseNormalization": self._lrn,
            "FixedBatchNormalization": self._batch_normalization,
            "ReLU": self._plain("ReLU"),
            "LeakyReLU": self._leaky_relu,
            "Concat": self._concat,
            "Softmax": self._softmax,
            "Sigmoid": self._plain("Sigmoid"),
            "Reshape": self._reshape,
            "_ + _": self._plain("Eltwise"),
        }

    def layers(self, func: Any) -> list[Any]:
        """The layer messages of ``func``, the last of which produces its output blob."""
        name = self.layer_name(func)
        layer = self.caffe_pb.LayerParameter(
            name=name, top=[name], phase=self.caffe_pb.TEST,
            bottom=[self.blob_name(node) for node in func.inputs])
        writer = self.writers.get(func.label)
        if writer is None or (func.label == "MaxPoolingND" and func.ndim != 2):
            # compat: Chainer's message, which names the layer, its label and its inputs.
            raise NotImplementedError(
                f"Cannot convert, name={name}, rank={func.rank}, label={func.label}, "
                f"inputs={list(layer.bottom)}: the Caffe exporter supports only the functions "
                "listed in chainer.exporters.caffe.export's documentation")
        return writer(func, layer)

    def layer_name(self, func: Any) -> str:
        key = f"{func.label}-{func.rank}"
        numbers = self.numbers[key]
        number = numbers.setdefault(id(func), len(numbers) + 1)
        return f"{key}-{number}"

    def blob_name(self, node: Any) -> str:
        # An input without a creator is the net's input blob (export takes exactly one).
        return "data" if node.creator is None else self.layer_name(node.creator)

    def input_array(self, func: Any, index: int) -> numpy.ndarray:
        """The ``index``-th input array of ``func``, on the CPU."""
        recorded = self.recorder.inputs.get(id(func))
        array = None if recorded is None else recorded[1][index]
        if array is None:
            node = func.inputs[index]
            array = node.data
            if array is None:
                owner = node.get_variable_or_none()
                if owner is None:
                    raise RuntimeError(
                        f"input {index} of {func.label} must still be available to export it, "
                        "got a released variable; keep the array alive until export returns")
                array = owner.array
        return numpy.asarray(backend.CpuDevice().send(array))

    def add_blob(self, layer: Any, array: numpy.ndarray) -> None:
        blob = layer.blobs.add()
        blob.shape.dim.extend(int(size) for size in array.shape)
        blob.data.extend(array.astype(numpy.float32, copy=False).ravel().tolist())

    # One method per function label; each fills ``layer`` and returns the layer list.

    def _plain(self, caffe_type: str) -> Callable[[Any, Any], list[Any]]:
        def write(func: Any, layer: Any) -> list[Any]:
            layer.type = caffe_type
            return [layer]
        return write

    def _linear(self, func: Any, layer: Any) -> list[Any]:
        weight = self.input_array(func, 1)
        has_bias = len(func.inputs) == 3
        layer.type = "InnerProduct"
        del layer.bottom[1:]
        layer.inner_product_param.num_output = weight.shape[0]
        layer.inner_product_param.bias_term = has_bias
        self.add_blob(layer, weight)
        if has_bias:
            self.add_blob(layer, self.input_array(func, 2))
        return [layer]

    def _convolution(self, func: Any, layer: Any) -> list[Any]:
        weight = self.input_array(func, 1)
        has_bias = len(func.inputs) == 3
        groups = int(getattr(func, "groups", 1))
        param = layer.convolution_param
        if func.label == "Convolution2DFunction":
            layer.type = "Convolution"
            param.num_output = weight.shape[0]
        else:
            # A deconvolution weight is (in, out / groups, kh, kw), the layout Caffe uses.
            layer.type = "Deconvolution"
            param.num_output = weight.shape[1] * groups
        del layer.bottom[1:]
        param.bias_term = has_bias
        param.pad_h, param.pad_w = func.ph, func.pw
        param.stride_h, param.stride_w = func.sy, func.sx
        param.kernel_h, param.kernel_w = weight.shape[2:]
        param.group = groups
        dilation = (int(getattr(func, "dy", 1)), int(getattr(func, "dx", 1)))
        if dilation != (1, 1):
            param.dilation.extend(dilation)
        self.add_blob(layer, weight)
        if has_bias:
            self.add_blob(layer, self.input_array(func, 2))
        return [layer]

    def _pooling(self, func: Any, layer: Any) -> list[Any]:
        ksize, stride, pad = _pooling_window(func)
        param = layer.pooling_param
        layer.type = "Pooling"
        param.pool = param.MAX if func.label == "MaxPoolingND" else param.AVE
        param.pad_h, param.pad_w = pad
        param.stride_h, param.stride_w = stride
        param.kernel_h, param.kernel_w = ksize
        return [layer]

    def _lrn(self, func: Any, layer: Any) -> list[Any]:
        param = layer.lrn_param
        layer.type = "LRN"
        param.norm_region = param.ACROSS_CHANNELS
        param.local_size = func.n
        param.k = func.k
        # Caffe divides alpha by the window size; Chainer's function does not.
        param.alpha = func.alpha * func.n
        param.beta = func.beta
        return [layer]

    def _batch_normalization(self, func: Any, layer: Any) -> list[Any]:
        # Chainer's test-mode batch normalization is Caffe's BatchNorm (normalize with the
        # stored statistics) followed by a Scale layer (gamma and beta).
        gamma, beta, mean, var = (self.input_array(func, index) for index in range(1, 5))
        scale_layer = self.caffe_pb.LayerParameter()
        scale_layer.CopyFrom(layer)
        norm_name = layer.name + "_bn"
        layer.type = "BatchNorm"
        layer.name = norm_name
        layer.top[:] = [norm_name]
        del layer.bottom[1:]
        layer.batch_norm_param.use_global_stats = True
        layer.batch_norm_param.eps = func.eps
        self.add_blob(layer, mean.ravel())
        self.add_blob(layer, var.ravel())
        # The normalizer Caffe divides the stored statistics by.
        self.add_blob(layer, numpy.ones((1,), dtype=numpy.float32))

        scale_layer.type = "Scale"
        scale_layer.bottom[:] = [norm_name]
        scale_layer.scale_param.axis = 1
        scale_layer.scale_param.bias_term = True
        self.add_blob(scale_layer, gamma.ravel())
        self.add_blob(scale_layer, beta.ravel())
        return [layer, scale_layer]

    def _leaky_relu(self, func: Any, layer: Any) -> list[Any]:
        layer.type = "ReLU"
        layer.relu_param.negative_slope = func.slope
        return [layer]

    def _concat(self, func: Any, layer: Any) -> list[Any]:
        layer.type = "Concat"
        layer.concat_param.axis = func.axis
        return [layer]

    def _softmax(self, func: Any, layer: Any) -> list[Any]:
        layer.type = "Softmax"
        if func.axis != 1:
            layer.softmax_param.axis = func.axis
        return [layer]

    def _reshape(self, func: Any, layer: Any) -> list[Any]:
        # A reshape of a reshape reads the first non-reshape blob; the result is the same.
        source = func.inputs[0]
        while source.creator is not None and source.creator.label == "Reshape":
            source = source.creator.inputs[0]
        layer.type = "Reshape"
        layer.bottom[:] = [self.blob_name(source)]
        layer.reshape_param.shape.dim.extend(int(size) for size in func.shape)
        return [layer]


def _pooling_window(func: Any) -> tuple[tuple[int, int], ...]:
    """``(ksize, stride, pad)`` pairs of a 2-d pooling node."""
    window = getattr(func, "window", None)
    if window is not None:
        arguments = (window.ksize, window.stride, window.pad)
    elif func.label == "MaxPoolingND":
        arguments = (func.ksize, func.stride, func.pad)
    else:
        arguments = ((func.kh, func.kw), (func.sy, func.sx), (func.ph, func.pw))
    return tuple((int(pair[0]), int(pair[1])) for pair in arguments)
