"""Exporters of computational graphs to other frameworks' formats: :mod:`.caffe`.

Layer 8: imports exporters.caffe, which imports protobuf only when it exports.
"""

from __future__ import annotations

from chainer_compat.exporters import caffe

__all__ = ["caffe"]
