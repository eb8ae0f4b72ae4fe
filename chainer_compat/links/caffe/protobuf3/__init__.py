"""Chainer's home of the Caffe message module, :mod:`.caffe_pb2`.

Layer 8: imports nothing; ``caffe_pb2`` is imported by the user when needed.
"""
