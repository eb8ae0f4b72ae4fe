"""Utility functions of ``chainer.functions`` that wrap other computations (``forget``)."""
