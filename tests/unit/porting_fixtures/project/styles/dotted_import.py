import chainer.links

model = chainer.links.Classifier(None)
