"""``chainer.links.activation``."""
