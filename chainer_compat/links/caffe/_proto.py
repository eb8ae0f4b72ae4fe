"""The Caffe message classes the reader and the exporter use, built at run time with protobuf.

Layer 8: imports nothing from chainer_compat; ``google.protobuf`` is imported on first use only.
"""

from __future__ import annotations

import functools
import importlib
import types
from typing import Any

__all__ = ["MESSAGE_NAMES", "load"]

# NOTE [caffe schema] Only the messages and fields CaffeFunction and the exporter touch are
# declared, with the field numbers, types and defaults of Caffe's caffe.proto (proto2, package
# ``caffe``), so files written by Caffe parse here and ours parse in Caffe. Undeclared fields of a
# binary file are kept as unknown fields and ignored.

# Each field: (name, number, type, label, default or None, type name or None). The type is a
# scalar type name, "enum" or "message"; the label is "optional" or "repeated" or "packed".
_Field = tuple[str, int, str, str, Any, "str | None"]

_ENGINE = ("Engine", (("DEFAULT", 0), ("CAFFE", 1), ("CUDNN", 2)))

# Messages in declaration order: name -> (nested enums, fields).
_MESSAGES: dict[str, tuple[tuple[tuple[str, tuple[tuple[str, int], ...]], ...], list[_Field]]] = {
    "BlobShape": ((), [("dim", 1, "int64", "packed", None, None)]),
    "BlobProto": ((), [
        ("num", 1, "int32", "optional", 0, None),
        ("channels", 2, "int32", "optional", 0, None),
        ("height", 3, "int32", "optional", 0, None),
        ("width", 4, "int32", "optional", 0, None),
        ("data", 5, "float", "packed", None, None),
        ("diff", 6, "float", "packed", None, None),
        ("shape", 7, "message", "optional", None, "BlobShape"),
        ("double_data", 8, "double", "packed", None, None),
    ]),
    "ConcatParameter": ((), [
        ("concat_dim", 1, "uint32", "optional", 1, None),
        ("axis", 2, "int32", "optional", 1, None),
    ]),
    "ConvolutionParameter": ((_ENGINE,), [
        ("num_output", 1, "uint32", "optional", None, None),
        ("bias_term", 2, "bool", "optional", True, None),
        ("pad", 3, "uint32", "repeated", None, None),
        ("kernel_size", 4, "uint32", "repeated", None, None),
        ("group", 5, "uint32", "optional", 1, None),
        ("stride", 6, "uint32", "repeated", None, None),
        ("pad_h", 9, "uint32", "optional", 0, None),
        ("pad_w", 10, "uint32", "optional", 0, None),
        ("kernel_h", 11, "uint32", "optional", None, None),
        ("kernel_w", 12, "uint32", "optional", None, None),
        ("stride_h", 13, "uint32", "optional", None, None),
        ("stride_w", 14, "uint32", "optional", None, None),
        ("engine", 15, "enum", "optional", "DEFAULT", "ConvolutionParameter.Engine"),
        ("axis", 16, "int32", "optional", 1, None),
        ("dilation", 18, "uint32", "repeated", None, None),
    ]),
    "DropoutParameter": ((), [("dropout_ratio", 1, "float", "optional", 0.5, None)]),
    "EltwiseParameter": ((("EltwiseOp", (("PROD", 0), ("SUM", 1), ("MAX", 2))),), [
        ("operation", 1, "enum", "optional", "SUM", "EltwiseParameter.EltwiseOp"),
        ("coeff", 2, "float", "repeated", None, None),
        ("stable_prod_grad", 3, "bool", "optional", True, None),
    ]),
    "InnerProductParameter": ((), [
        ("num_output", 1, "uint32", "optional", None, None),
        ("bias_term", 2, "bool", "optional", True, None),
        ("axis", 5, "int32", "optional", 1, None),
    ]),
    "InputParameter": ((), [("shape", 1, "message", "repeated", None, "BlobShape")]),
    "LRNParameter": (
        (("NormRegion", (("ACROSS_CHANNELS", 0), ("WITHIN_CHANNEL", 1))), _ENGINE), [
            ("local_size", 1, "uint32", "optional", 5, None),
            ("alpha", 2, "float", "optional", 1.0, None),
            ("beta", 3, "float", "optional", 0.75, None),
            ("norm_region", 4, "enum", "optional", "ACROSS_CHANNELS",
             "LRNParameter.NormRegion"),
            ("k", 5, "float", "optional", 1.0, None),
        ]),
    "PoolingParameter": (
        (("PoolMethod", (("MAX", 0), ("AVE", 1), ("STOCHASTIC", 2))), _ENGINE), [
            ("pool", 1, "enum", "optional", "MAX", "PoolingParameter.PoolMethod"),
            ("kernel_size", 2, "uint32", "optional", None, None),
            ("stride", 3, "uint32", "optional", 1, None),
            ("pad", 4, "uint32", "optional", 0, None),
            ("kernel_h", 5, "uint32", "optional", None, None),
            ("kernel_w", 6, "uint32", "optional", None, None),
            ("stride_h", 7, "uint32", "optional", None, None),
            ("stride_w", 8, "uint32", "optional", None, None),
            ("pad_h", 9, "uint32", "optional", 0, None),
            ("pad_w", 10, "uint32", "optional", 0, None),
            ("global_pooling", 12, "bool", "optional", False, None),
        ]),
    "ReLUParameter": ((_ENGINE,), [
        ("negative_slope", 1, "float", "optional", 0.0, None),
        ("engine", 2, "enum", "optional", "DEFAULT", "ReLUParameter.Engine"),
    ]),
    "ReshapeParameter": ((), [
        ("shape", 1, "message", "optional", None, "BlobShape"),
        ("axis", 2, "int32", "optional", 0, None),
        ("num_axes", 3, "int32", "optional", -1, None),
    ]),
    "BatchNormParameter": ((), [
        ("use_global_stats", 1, "bool", "optional", None, None),
        ("moving_average_fraction", 2, "float", "optional", 0.999, None),
        ("eps", 3, "float", "optional", 1e-5, None),
    ]),
    "ScaleParameter": ((), [
        ("axis", 1, "int32", "optional", 1, None),
        ("num_axes", 2, "int32", "optional", 1, None),
        ("bias_term", 4, "bool", "optional", False, None),
    ]),
    "SigmoidParameter": ((_ENGINE,), [
        ("engine", 1, "enum", "optional", "DEFAULT", "SigmoidParameter.Engine"),
    ]),
    "SliceParameter": ((), [
        ("slice_dim", 1, "uint32", "optional", 1, None),
        ("slice_point", 2, "uint32", "repeated", None, None),
        ("axis", 3, "int32", "optional", 1, None),
    ]),
    "SoftmaxParameter": ((_ENGINE,), [
        ("engine", 1, "enum", "optional", "DEFAULT", "SoftmaxParameter.Engine"),
        ("axis", 2, "int32", "optional", 1, None),
    ]),
    "LayerParameter": ((), [
        ("name", 1, "string", "optional", None, None),
        ("type", 2, "string", "optional", None, None),
        ("bottom", 3, "string", "repeated", None, None),
        ("top", 4, "string", "repeated", None, None),
        ("loss_weight", 5, "float", "repeated", None, None),
        ("blobs", 7, "message", "repeated", None, "BlobProto"),
        ("phase", 10, "enum", "optional", None, "Phase"),
        ("concat_param", 104, "message", "optional", None, "ConcatParameter"),
        ("convolution_param", 106, "message", "optional", None, "ConvolutionParameter"),
        ("dropout_param", 108, "message", "optional", None, "DropoutParameter"),
        ("eltwise_param", 110, "message", "optional", None, "EltwiseParameter"),
        ("inner_product_param", 117, "message", "optional", None, "InnerProductParameter"),
        ("lrn_param", 118, "message", "optional", None, "LRNParameter"),
        ("pooling_param", 121, "message", "optional", None, "PoolingParameter"),
        ("relu_param", 123, "message", "optional", None, "ReLUParameter"),
        ("sigmoid_param", 124, "message", "optional", None, "SigmoidParameter"),
        ("softmax_param", 125, "message", "optional", None, "SoftmaxParameter"),
        ("slice_param", 126, "message", "optional", None, "SliceParameter"),
        ("reshape_param", 133, "message", "optional", None, "ReshapeParameter"),
        ("batch_norm_param", 139, "message", "optional", None, "BatchNormParameter"),
        ("scale_param", 142, "message", "optional", None, "ScaleParameter"),
        ("input_param", 143, "message", "optional", None, "InputParameter"),
    ]),
    # The pre-2015 layer format, whose type is an enum; only the types CaffeFunction reads.
    "V1LayerParameter": (
        (("LayerType", (
            ("NONE", 0), ("CONCAT", 3), ("CONVOLUTION", 4), ("DATA", 5), ("DROPOUT", 6),
            ("INNER_PRODUCT", 14), ("LRN", 15), ("POOLING", 17), ("RELU", 18), ("SIGMOID", 19),
            ("SOFTMAX", 20), ("SOFTMAX_LOSS", 21), ("SPLIT", 22), ("ELTWISE", 25),
            ("SLICE", 33), ("DECONVOLUTION", 39))),), [
            ("bottom", 2, "string", "repeated", None, None),
            ("top", 3, "string", "repeated", None, None),
            ("name", 4, "string", "optional", None, None),
            ("type", 5, "enum", "optional", None, "V1LayerParameter.LayerType"),
            ("blobs", 6, "message", "repeated", None, "BlobProto"),
            ("concat_param", 9, "message", "optional", None, "ConcatParameter"),
            ("convolution_param", 10, "message", "optional", None, "ConvolutionParameter"),
            ("dropout_param", 12, "message", "optional", None, "DropoutParameter"),
            ("inner_product_param", 17, "message", "optional", None, "InnerProductParameter"),
            ("lrn_param", 18, "message", "optional", None, "LRNParameter"),
            ("pooling_param", 19, "message", "optional", None, "PoolingParameter"),
            ("eltwise_param", 24, "message", "optional", None, "EltwiseParameter"),
            ("relu_param", 30, "message", "optional", None, "ReLUParameter"),
            ("slice_param", 31, "message", "optional", None, "SliceParameter"),
            ("loss_weight", 35, "float", "repeated", None, None),
            ("sigmoid_param", 38, "message", "optional", None, "SigmoidParameter"),
            ("softmax_param", 39, "message", "optional", None, "SoftmaxParameter"),
        ]),
    "NetParameter": ((), [
        ("name", 1, "string", "optional", None, None),
        ("layers", 2, "message", "repeated", None, "V1LayerParameter"),
        ("input", 3, "string", "repeated", None, None),
        ("input_dim", 4, "int32", "repeated", None, None),
        ("input_shape", 8, "message", "repeated", None, "BlobShape"),
        ("layer", 100, "message", "repeated", None, "LayerParameter"),
    ]),
}

_PHASE = ("Phase", (("TRAIN", 0), ("TEST", 1)))

MESSAGE_NAMES: tuple[str, ...] = tuple(_MESSAGES)
_PACKAGE = "caffe"


def _default_text(value: Any) -> str:
    # Descriptor defaults are written the way a .proto file spells them.
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _file_descriptor(descriptor_pb2: Any) -> Any:
    proto = descriptor_pb2.FileDescriptorProto(
        name="chainer_compat/caffe.proto", package=_PACKAGE, syntax="proto2")
    field_type = descriptor_pb2.FieldDescriptorProto
    enum_proto = proto.enum_type.add(name=_PHASE[0])
    for value_name, number in _PHASE[1]:
        enum_proto.value.add(name=value_name, number=number)
    for message_name, (enums, fields) in _MESSAGES.items():
        message = proto.message_type.add(name=message_name)
        for enum_name, values in enums:
            enum_proto = message.enum_type.add(name=enum_name)
            for value_name, number in values:
                enum_proto.value.add(name=value_name, number=number)
        for name, number, kind, label, default, type_name in fields:
            field = message.field.add(name=name, number=number)
            field.type = getattr(field_type, "TYPE_" + kind.upper())
            field.label = (field_type.LABEL_OPTIONAL if label == "optional"
                           else field_type.LABEL_REPEATED)
            if label == "packed":
                field.options.packed = True
            if type_name is not None:
                field.type_name = f".{_PACKAGE}.{type_name}"
            if default is not None:
                field.default_value = _default_text(default)
    return proto


@functools.cache
def load() -> types.SimpleNamespace:
    """Builds (once) and returns the Caffe message classes and the ``Phase`` values.

    Returns:
        A namespace with one class per message (``NetParameter``, ``LayerParameter``, ...),
        the ``TRAIN`` and ``TEST`` phase numbers, and protobuf's ``text_format`` module.

    Raises:
        ImportError: If protobuf is not installed.
    """
    try:
        # Through importlib, so type checking never needs protobuf's stubs.
        descriptor_pb2, descriptor_pool, message_factory, text_format = (
            importlib.import_module(f"google.protobuf.{name}") for name in
            ("descriptor_pb2", "descriptor_pool", "message_factory", "text_format"))
    except ImportError as error:
        raise ImportError(
            "chainer_compat's Caffe support must have the protobuf package, got none installed; "
            "run `pip install chainer_compat[caffe]` (or `pip install protobuf`)") from error
    # A private pool, so a user's own caffe_pb2 in the default pool never clashes with ours.
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file_descriptor(descriptor_pb2))
    get_class = getattr(message_factory, "GetMessageClass", None)
    if get_class is None:  # protobuf before 4.21 has only the factory object
        get_class = message_factory.MessageFactory(pool).GetPrototype
    classes = {name: get_class(pool.FindMessageTypeByName(f"{_PACKAGE}.{name}"))
               for name in _MESSAGES}
    return types.SimpleNamespace(**classes, **dict(_PHASE[1]), text_format=text_format)
