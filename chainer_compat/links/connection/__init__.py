"""``chainer.links.connection``."""
