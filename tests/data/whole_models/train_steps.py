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


def _start(model, rng, optimizer, spread=0.1):
    """Draws every parameter of ``model`` from ``rng`` as models.py does (the same in either
    library) and sets ``optimizer`` up on it."""
    models._set_parameters(model, rng, spread)
    optimizer.setup(model)
    return optimizer


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
    optimizer = _start(critic, rng, chainer.optimizers.Adam(alpha=1e-3, beta1=0.5, beta2=0.9))
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


class TinyResNet(chainer.Chain):
    """A ResNet stem and one basic block: 3 x 3 max pooling with padding, batch
    normalization, a residual sum and global average pooling."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.stem = L.Convolution2D(3, 16, 5, stride=2, pad=2, nobias=True)
            self.stem_bn = L.BatchNormalization(16)
            self.conv1 = L.Convolution2D(16, 16, 3, pad=1, nobias=True)
            self.bn1 = L.BatchNormalization(16)
            self.conv2 = L.Convolution2D(16, 16, 3, pad=1, nobias=True)
            self.bn2 = L.BatchNormalization(16)
            self.out = L.Linear(16, 10)

    def __call__(self, x):
        h = F.max_pooling_2d(F.relu(self.stem_bn(self.stem(x))), 3, stride=2, pad=1)
        block = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(h)))))
        h = F.relu(h + block)
        return self.out(F.average_pooling_2d(h, h.shape[2:]))


def resnet_losses():
    """Three MomentumSGD steps of :class:`TinyResNet` on 64 x 64 images."""
    model = TinyResNet()
    rng = numpy.random.RandomState(2)
    optimizer = _start(model, rng, chainer.optimizers.MomentumSGD(0.05), spread=0.2)
    x = rng.randn(16, 3, 64, 64).astype(numpy.float32)
    t = rng.randint(0, 10, 16).astype(numpy.int32)
    losses = []
    for _ in range(3):
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        losses.append(float(loss.array))
    return losses


class SkipGram(chainer.Chain):
    """word2vec's skip-gram over a 500-word vocabulary, with negative sampling or a binary
    hierarchical softmax: both scatter their gradients into tables by rows."""

    vocabulary = 500

    def __init__(self, loss, counts):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(self.vocabulary, 32)
            if loss == "negative_sampling":
                self.loss = L.NegativeSampling(32, counts, 5)
            else:
                tree = L.BinaryHierarchicalSoftmax.create_huffman_tree(
                    dict(enumerate(counts.tolist())))
                self.loss = L.BinaryHierarchicalSoftmax(32, tree)

    def __call__(self, words, contexts):
        rows, width = contexts.shape
        centres = numpy.repeat(words, width)
        return self.loss(F.reshape(self.embed(contexts), (rows * width, 32)), centres)


def skip_gram_losses(loss):
    """Three Adam steps; a third of the context ids are one padding id, and the negative
    samples come from NumPy's global generator."""
    rng = numpy.random.RandomState(3)
    model = SkipGram(loss, rng.randint(1, 100, SkipGram.vocabulary))
    optimizer = _start(model, rng, chainer.optimizers.Adam())
    numpy.random.seed(7)
    losses = []
    for _ in range(3):
        words = rng.randint(0, SkipGram.vocabulary, 64).astype(numpy.int32)
        contexts = numpy.where(rng.rand(64, 4) < 0.3, 0,
                               rng.randint(0, SkipGram.vocabulary, (64, 4))).astype(numpy.int32)
        losses.append(models._train_step(model, optimizer, lambda: model(words, contexts)))
    return losses


class VAE(chainer.Chain):
    """Chainer's VAE example: a Gaussian latent drawn with F.gaussian (NumPy's global
    generator), a Bernoulli reconstruction loss and the KL divergence."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.encode = L.Linear(784, 200)
            self.mean = L.Linear(200, 20)
            self.log_variance = L.Linear(200, 20)
            self.decode_hidden = L.Linear(20, 200)
            self.decode = L.Linear(200, 784)

    def __call__(self, x):
        h = F.tanh(self.encode(x))
        mean, log_variance = self.mean(h), self.log_variance(h)
        z = F.gaussian(mean, log_variance)
        reconstruction = F.bernoulli_nll(x, self.decode(F.tanh(self.decode_hidden(z))))
        return (reconstruction + F.gaussian_kl_divergence(mean, log_variance)) / len(x)


class Seq2seq(chainer.Chain):
    """Chainer's seq2seq example, smaller: two-layer NStepLSTMs with dropout, sequences of
    varied lengths, a summed softmax cross entropy."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.embed_source = L.EmbedID(300, 64)
            self.embed_target = L.EmbedID(300, 64)
            self.encoder = L.NStepLSTM(2, 64, 64, 0.1)
            self.decoder = L.NStepLSTM(2, 64, 64, 0.1)
            self.out = L.Linear(64, 300)

    def __call__(self, sources, targets):
        end = numpy.array([1], numpy.int32)
        inputs = [self.embed_target(F.concat([end, t], axis=0)) for t in targets]
        expected = F.concat([F.concat([t, end], axis=0) for t in targets], axis=0)
        h, c, _ = self.encoder(None, None, [self.embed_source(s) for s in sources])
        _, _, outputs = self.decoder(h, c, inputs)
        losses = F.softmax_cross_entropy(self.out(F.concat(outputs, axis=0)), expected,
                                         reduce="no")
        return F.sum(losses) / len(sources)


def vae_and_seq2seq_losses(name):
    """Three Adam steps of :class:`VAE` or :class:`Seq2seq` on fresh random batches."""
    model = VAE() if name == "vae" else Seq2seq()
    rng = numpy.random.RandomState(5)
    optimizer = _start(model, rng, chainer.optimizers.Adam())
    numpy.random.seed(9)
    losses = []
    for _ in range(3):
        if name == "vae":
            batch = ((rng.rand(32, 784) < 0.3).astype(numpy.float32),)
        else:
            batch = tuple([rng.randint(2, 300, rng.randint(3, 12)).astype(numpy.int32)
                           for _ in range(8)] for _ in range(2))
        losses.append(models._train_step(model, optimizer, lambda: model(*batch)))
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


print(json.dumps({"wgan_gp": wgan_gp_losses(), "resnet": resnet_losses(),
                  "negative_sampling": skip_gram_losses("negative_sampling"),
                  "hierarchical_softmax": skip_gram_losses("hierarchical_softmax"),
                  "seq2seq": vae_and_seq2seq_losses("seq2seq"),
                  "vae": vae_and_seq2seq_losses("vae"),
                  **{name: model_losses(name) for name in ("cnn", "gan", "lstm", "mlp")}}))
