"""chainer_compat: Chainer 7.8.1 autograd reimplemented for NumPy 2 and CuPy 13/14."""
