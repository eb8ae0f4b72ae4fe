"""``chainer.links.normalization``."""
