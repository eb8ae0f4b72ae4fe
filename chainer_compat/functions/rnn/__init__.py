"""``chainer.functions.rnn``: recurrent cells (``lstm``, ``slstm``) at Chainer's module paths."""
