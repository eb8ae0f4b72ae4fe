"""``chainer.links.model``."""
