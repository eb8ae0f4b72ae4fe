import chainer
import chainerx

if chainerx.is_available():
    device = chainer.backend.ChainerxDevice(None)
    zeros = chainerx.zeros((2,))
