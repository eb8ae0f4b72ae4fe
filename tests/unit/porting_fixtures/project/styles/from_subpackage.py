from chainer.backends import cuda

x = None
xp = cuda.get_array_module(x)
g = cuda.to_gpu(x)
