from chainer import Variable
from chainer import links as L

x = None
v = Variable(x)
layer = L.Linear(1, 2)
