import chainer
import numpy

x = numpy.zeros((2, 3), numpy.float32)
v = chainer.Variable(x)
h = chainer.functions.relu(v)  # attribute chain through the package
chainer.config.train = False
layer = chainer.links.Linear(3, 2)
