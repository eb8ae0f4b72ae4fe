import chainer.functions as F

x = None
y = F.relu(x)
z = F.sum(y, axis=0)
w = F.no_such_function(z)
