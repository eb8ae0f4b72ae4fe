"""Activation functions (``relu``, ``sigmoid``, ``softmax``, ...), one module each as in Chainer."""
