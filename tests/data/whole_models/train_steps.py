"""Losses of a few train steps, printed as JSON: run by chainer_compat's interpreter and by
Chainer 7.8.1's (tests/conformance/test_whole_models_conformance.py).

usage: python train_steps.py chainer_compat|chainer
"""

import json
import pathlib
import sys

import numpy

if sys.argv[1] == "chainer_compat":
    import chainer_compat

    chainer_compat.install_as_chainer()
import chainer  # noqa: E402
import chainer.functions as F  # noqa: E402
import chainer.links as L  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "benchmarks"))
import models  # noqa: E402


class Critic(chainer.Chain):
    """A WGAN-GP critic: convolutions, leaky ReLU and max pooling, differentiated twice."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.c0 = L.Convolution2D(3, 16, 4, stride=2, pad=1)
            self.c1 = L.Convolution2D(16, 32, 4, stride=2, pad=1)
            self.out = L.Linear(32 * 4 * 4, 1)

    def __call__(self, x):
        h = F.leaky_relu(self.c0(x))
        return self.out(F.max_pooling_2d(F.leaky_relu(self.c1(h)), 2))


def wgan_gp_losses():
    """Three critic steps with a gradient penalty; the planes are large enough for the
    branch-free selections (NOTE [branch-free selection])."""
    critic = Critic()
    rng = numpy.random.RandomState(1)
    for _, param in sorted(critic.namedparams()):
        param.array[...] = rng.uniform(-0.1, 0.1, param.shape).astype(param.dtype)
    optimizer = chainer.optimizers.Adam(alpha=1e-3, beta1=0.5, beta2=0.9)
    optimizer.setup(critic)
    real = rng.randn(16, 3, 32, 32).astype(numpy.float32)
    fake = rng.randn(16, 3, 32, 32).astype(numpy.float32)
    losses = []
    for _ in range(3):
        mix = rng.uniform(0, 1, (16, 1, 1, 1)).astype(numpy.float32)
        between = chainer.Variable(mix * real + (1 - mix) * fake)
        grad, = chainer.grad([critic(between)], [between], enable_double_backprop=True)
        norm = F.sqrt(F.batch_l2_norm_squared(grad))
        penalty = 10 * F.mean_squared_error(norm, numpy.ones_like(norm.array))
        loss = F.mean(critic(fake)) - F.mean(critic(real)) + penalty
        critic.cleargrads()
        loss.backward()
        optimizer.update()
        losses.append([float(loss.array), float(penalty.array)])
    return losses


def model_losses(name):
    """models.py's check: three train steps from the same parameters and seed, then the loss
    in test mode."""
    model, optimizer, loss_of_batch = models._build(name, chainer)
    optimizer.setup(model)
    models._set_parameters(model)
    numpy.random.seed(5)
    losses = [models._train_step(model, optimizer, loss_of_batch) for _ in range(3)]
    with chainer.using_config("train", False):
        losses.append(float(loss_of_batch().array))
    return losses


print(json.dumps({"wgan_gp": wgan_gp_losses(),
                  **{name: model_losses(name) for name in ("cnn", "gan", "mlp")}}))
