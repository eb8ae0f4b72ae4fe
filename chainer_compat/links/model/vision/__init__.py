"""``chainer.links.model.vision``: ImageNet models (VGG, ResNet, GoogLeNet) that load weights
converted from the published Caffe models.

Its modules (``vgg``, ``resnet``, ``googlenet``) are imported by name, as in Chainer.
"""
