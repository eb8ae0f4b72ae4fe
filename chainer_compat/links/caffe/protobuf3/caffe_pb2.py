"""Caffe's message classes under Chainer's module path, built on first attribute access.

Layer 8: imports links.caffe._proto; protobuf is imported only when a name is looked up.

Compat: Chainer ships protoc's output for all of caffe.proto; this module offers the subset
CaffeFunction and the exporter use (see NOTE [caffe schema] in ``_proto``), with Caffe's field
numbers, so NetParameter files parse and serialize the same way.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.links.caffe import _proto


def __getattr__(name: str) -> Any:
    # A module-level __getattr__ keeps ``import caffe_pb2`` free of protobuf until first use.
    if name.startswith("__"):
        raise AttributeError(name)
    messages = _proto.load()
    if name == "text_format" or not hasattr(messages, name):
        raise AttributeError(
            f"caffe_pb2 must name a Caffe message chainer_compat declares "
            f"({', '.join(_names())}), got {name!r}")
    return getattr(messages, name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_names()))


def _names() -> list[str]:
    return sorted([*_proto.MESSAGE_NAMES, "TRAIN", "TEST"])
