"""Chainer's Caffe reader: :class:`CaffeFunction` runs a network read from a ``.caffemodel``.

Layer 8: imports links.caffe.caffe_function; protobuf is imported only when a model is read.
"""

from __future__ import annotations

from chainer_compat.links.caffe.caffe_function import CaffeFunction

__all__ = ["CaffeFunction"]
