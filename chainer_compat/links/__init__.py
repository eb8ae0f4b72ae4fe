"""``chainer.links``: parameterized layers (``Link``s) built on ``chainer.functions``.

Layer 8: imports links, functions, initializers and the Link base only.
"""
