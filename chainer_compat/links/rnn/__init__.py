"""``chainer.links.rnn``."""
