from chainer.functions import *

x = None
y = relu(x)
total = sum(y)  # the star import shadows the builtin, as in Chainer
